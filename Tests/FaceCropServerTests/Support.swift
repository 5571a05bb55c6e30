// A live server on 127.0.0.1 (an ephemeral port), an origin server for http sources, and a real HTTP client.
import AsyncHTTPClient
import FaceCrop
import FaceCropServer
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization
import Testing

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Repo {
    /// The package root: the first folder above this file holding Package.swift.
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    static func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The built facecrop-serve, next to the test bundle.
    static func serveBinary() throws -> URL {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        if let exe = Bundle.main.executableURL { folders.append(exe.resolvingSymlinksInPath().deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent("facecrop-serve")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestFailure("facecrop-serve was not found in \(folders.map(\.path)); run `swift build` first.")
    }
}

/// A scratch folder, removed afterwards.
func withScratch<T>(_ body: (URL) async throws -> T) async throws -> T {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-serve-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    return try await body(dir)
}

/// The test key: imgproxy's documented example pair.
let testKey = SigningKey(
    key: hexDecoded("943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881")!,
    salt: hexDecoded("520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")!)

/// `path` with its signature in front.
func signed(_ path: String, key: SigningKey = testKey) -> String { "/" + key.sign(path) + path }

/// Everything but unreserved characters and '/' percent-encoded (for file names in plain sources).
func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
            out.unicodeScalars.append(UnicodeScalar(byte))
        default:
            out += String(format: "%%%02X", byte)
        }
    }
    return out
}

/// An ImageServer running in this process on 127.0.0.1 and an ephemeral port.
final class LiveServer: Sendable {
    let server: ImageServer
    let port: Int
    let group: ServiceGroup
    let task: Task<Void, any Error>

    init(server: ImageServer, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.group = group
        self.task = task
    }

    static func configuration(root: URL?, _ edit: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        var c = ServerConfiguration()
        c.port = 0
        c.root = root?.path
        c.keys = [testKey]
        c.requestTimeout = .seconds(300)
        edit(&c)
        return c
    }

    static func start(_ configuration: ServerConfiguration) async throws -> LiveServer {
        var logger = Logger(label: "facecrop-serve-test")
        logger.logLevel = .warning
        let server = try ImageServer(configuration: configuration, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = server.application { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw TestFailure("the server did not start") }
        return LiveServer(server: server, port: port, group: group, task: task)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        await server.shutdown()
    }

    func get(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Reply {
        try await fetch("http://127.0.0.1:\(port)\(path)", method: method, headers: headers)
    }
}

/// A TCP connection to 127.0.0.1:`port`.
func connectSocket(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw TestFailure("connect() to port \(port) failed")
    }
    return fd
}

/// A connection to 127.0.0.1:`port` with `request` sent on it.
func connection(port: Int, sending request: String) throws -> Int32 {
    let fd = try connectSocket(port: port)
    let bytes = Array(request.utf8)
    guard send(fd, bytes, bytes.count, 0) == bytes.count else {
        close(fd)
        throw TestFailure("send() failed")
    }
    return fd
}

/// The response to `request`, sent on a connection of its own that the server is to close after it: what came
/// before the close (or before nothing came for 20 s), and how long that took.
func answerBeforeClose(port: Int, sending request: String) async throws -> (text: String, after: Duration) {
    let fd = try connection(port: port, sending: request)
    defer { close(fd) }
    let start = ContinuousClock.now
    let text = String(decoding: try await receiveUntilClosed(fd, timeout: .seconds(20)), as: UTF8.self)
    return (text, ContinuousClock.now - start)
}

/// What comes in on `fd` until it holds `count` occurrences of `marker` (one per response), the peer closes the
/// connection, or nothing comes for 10 s.
func receive(_ fd: Int32, until count: Int, of marker: String) async throws -> String {
    var text = ""
    while text.components(separatedBy: marker).count <= count, let part = try await receive(fd, timeout: .seconds(10)), !part.isEmpty {
        text += String(decoding: part, as: UTF8.self)
    }
    return text
}

/// Everything that comes in on `fd` until the peer closes the connection, or nothing comes for `timeout`.
func receiveUntilClosed(_ fd: Int32, timeout: Duration) async throws -> [UInt8] {
    var received = [UInt8]()
    while let part = try await receive(fd, timeout: timeout), !part.isEmpty { received += part }
    return received
}

/// What comes in on `fd` within `timeout`: the bytes of one read, empty when the peer closed (or reset) the
/// connection, nil when nothing came; any other failure throws. It waits with Task.sleep, not in a blocking call: the server's accept loop
/// runs on Swift's cooperative pool, which has only as many threads as the machine has cores.
func receive(_ fd: Int32, timeout: Duration) async throws -> [UInt8]? {
    let deadline = ContinuousClock.now + timeout
    while true {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, 0) > 0 {
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 && errno != ECONNRESET { throw TestFailure("recv() failed: \(String(cString: strerror(errno)))") }
            return Array(buffer.prefix(max(n, 0)))
        }
        if ContinuousClock.now >= deadline { return nil }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Runs `body` with a server, stopping it afterwards whatever happens.
func withServer<T>(_ configuration: ServerConfiguration, _ body: (LiveServer) async throws -> T) async throws -> T {
    let server = try await LiveServer.start(configuration)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

struct Reply: CustomStringConvertible {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first(name: name) }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    var description: String {
        "\(status) \(headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")) \(body.count < 400 ? text : "\(body.count) bytes")"
    }
}

/// One request with the shared client, bounded in time.
func fetch(_ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Reply {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
    let body = try await response.body.collect(upTo: 256 << 20)
    return Reply(status: Int(response.status.code), headers: response.headers, body: Array(body.readableBytesView))
}

/// The built facecrop-serve running with `arguments` (and `environment` over this process's), its port read
/// from the "listening" line of its standard output; standard error goes to `standardError` (a file) or nowhere.
struct ServeProcess {
    let process = Process()
    let output = Pipe()
    /// Standard output up to the "listening" line.
    private(set) var text = ""
    private(set) var port = 0

    init(_ arguments: [String], environment: [String: String], standardError: URL? = nil) throws {
        process.executableURL = try Repo.serveBinary()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        if let standardError {
            guard FileManager.default.createFile(atPath: standardError.path, contents: nil) else {
                throw TestFailure("cannot create \(standardError.path)")
            }
            process.standardError = try FileHandle(forWritingTo: standardError)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        for _ in 0..<1000 where port == 0 {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"address=127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last!) ?? 0
            }
        }
        guard port > 0 else {
            kill(process.processIdentifier, SIGKILL)
            throw TestFailure("facecrop-serve did not say where it listens: \(text)")
        }
    }
}

/// Width, height and libvips loader of an encoded image, read back by `vipsheader`.
func imageInfo(_ bytes: [UInt8]) throws -> (width: Int, height: Int, loader: String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-serve-\(UUID().uuidString)")
    try Data(bytes).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    func field(_ name: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vipsheader")
        process.arguments = ["-f", name, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("vipsheader cannot read the \(bytes.count) bytes") }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return (Int(try field("width")) ?? -1, Int(try field("height")) ?? -1, try field("vips-loader"))
}

/// Requests on an origin route wait here until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiting.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiting = [] }
            return s.waiting
        }
        for c in waiting { c.resume() }
    }
}

/// An HTTP origin on 127.0.0.1 for http:// sources: the sample portrait, redirects, failures and a gated route.
final class Origin: Sendable {
    let port: Int
    /// Requests for /gated.png wait until this opens.
    let gate: Gate
    let group: ServiceGroup
    let task: Task<Void, any Error>
    /// Requests for /portrait.png so far.
    let requests = Atomic<Int>(0)

    static func start(bigBytes: Int = 4 << 20) async throws -> Origin {
        let portrait = ByteBuffer(bytes: try Data(contentsOf: Repo.file("Samples/portrait.png")))
        let box = Mutex<Origin?>(nil)
        let router = Router()
        let counted: @Sendable () -> Void = { box.withLock { $0 }?.requests.add(1, ordering: .relaxed) }
        router.get("/portrait.png") { _, _ in
            counted()
            return Response(status: .ok, headers: [.contentType: "image/png", .eTag: "\"portrait-v1\""], body: ResponseBody(byteBuffer: portrait))
        }
        router.get("/no-validator.png") { _, _ in Response(status: .ok, headers: [.contentType: "image/png"], body: ResponseBody(byteBuffer: portrait)) }
        router.get("/redirect") { _, _ in Response(status: .found, headers: [.location: "/portrait.png"]) }
        router.get("/redirect-twice") { _, _ in Response(status: .movedPermanently, headers: [.location: "/redirect"]) }
        router.get("/redirect-away") { _, _ in Response(status: .found, headers: [.location: "http://localhost:1/portrait.png"]) }
        router.get("/loop") { _, _ in Response(status: .found, headers: [.location: "/loop"]) }
        router.get("/redirect-file") { _, _ in Response(status: .found, headers: [.location: "file:///etc/passwd"]) }
        router.get("/gone") { _, _ in Response(status: .notFound) }
        router.get("/error") { _, _ in Response(status: .internalServerError) }
        router.get("/text") { _, _ in Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: "hello")))
        }
        router.get("/big") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: 0xFF, count: bigBytes))) }
        // No Content-Length: the limit must hold while reading.
        router.get("/big-chunked") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    for _ in 0..<(bigBytes / 65536 + 2) { try await writer.write(ByteBuffer(repeating: 0xFF, count: 65536)) }
                    try await writer.finish(nil)
                })
        }
        // The head at once, then the first 100 bytes of the body one every 100 ms: each read within any read
        // timeout, the whole (10 s) slower than the test's --origin-timeout.
        router.get("/trickle.png") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/png"],
                body: ResponseBody { writer in
                    for byte in portrait.readableBytesView.prefix(100) {
                        try await writer.write(ByteBuffer(bytes: [byte]))
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    try await writer.finish(nil)
                })
        }
        let gate = Gate()
        router.get("/gated.png") { _, _ in
            await gate.wait()
            return Response(status: .ok, headers: [.contentType: "image/png"], body: ResponseBody(byteBuffer: portrait))
        }
        var logger = Logger(label: "origin")
        logger.logLevel = .warning
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw TestFailure("the origin did not start") }
        let origin = Origin(port: port, group: group, task: task, gate: gate)
        box.withLock { $0 = origin }
        return origin
    }

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>, gate: Gate) {
        self.port = port
        self.group = group
        self.task = task
        self.gate = gate
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() async {
        gate.open()
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
