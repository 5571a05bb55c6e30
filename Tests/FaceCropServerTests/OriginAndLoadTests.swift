// http(s) sources from an origin on 127.0.0.1 (allow-list, redirects, limits, failures), back-pressure with more
// requests than slots, graceful shutdown of the built binary with a request in flight, and the hostile corpus
// through the server.
import AsyncHTTPClient
import FaceCrop
import FaceCropServer
import Foundation
import NIOHTTP1
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Polls /health until `condition` holds on (running, waiting); at most 3000 tries, 10 ms apart.
func waitForLoad(_ s: LiveServer, _ condition: (Int, Int) -> Bool) async throws {
    for _ in 0..<3000 {
        let json = try await s.get("/health").json
        if condition(json?["running"] as? Int ?? -1, json?["waiting"] as? Int ?? -1) { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TestFailure("the server never reached the expected load")
}

@Suite(.timeLimit(.minutes(10)))
struct OriginTests {
    @Test func allowListRedirectsAndFailures() async throws {
        let origin = try await Origin.start(bigBytes: 300_000)
        defer { Task { await origin.stop() } }
        let configuration = LiveServer.configuration(root: nil) {
            $0.allowedHosts = ["127.0.0.1"]
            // Long enough for a loaded machine, short enough for the gated row's 504.
            $0.originTimeout = .seconds(5)
            $0.maxFileSize = 250_000
            $0.maxRedirects = 2
        }
        try await withServer(configuration) { s async throws in
            func get(_ source: String, options: String = "rs:fill:64:64", headers: [(String, String)] = []) async throws -> Reply {
                try await s.get(signed("/\(options)/plain/\(source)@jpg"), headers: headers)
            }
            let ok = try await get(origin.url("/portrait.png"))
            #expect(ok.status == 200, "\(ok)")
            #expect(try imageInfo(ok.body).width == 64)
            let etag = try #require(ok.header("ETag"))
            // 304 from the origin's validator: fetched again (the origin is asked), but not cropped.
            let before = origin.requests.load(ordering: .relaxed)
            let notModified = try await get(origin.url("/portrait.png"), headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304)
            #expect(origin.requests.load(ordering: .relaxed) == before + 1)
            let base64 = base64URLEncoded(Array(origin.url("/portrait.png").utf8))
            #expect(try await s.get(signed("/rs:fill:64:64/\(base64).webp")).status == 200)
            let noValidator = try await get(origin.url("/no-validator.png"))
            #expect(noValidator.status == 200 && noValidator.header("ETag") != nil)
            #expect(try await get(origin.url("/no-validator.png")).header("ETag") == noValidator.header("ETag"), "ETag from the bytes' hash")

            let rows: [(source: String, status: Int, words: String)] = [
                (origin.url("/redirect"), 200, ""),
                (origin.url("/redirect-twice"), 200, ""),
                (origin.url("/loop"), 502, "redirects more than 2 times"),
                (origin.url("/redirect-away"), 403, "redirects to 'http://localhost:1/portrait.png'"),
                (origin.url("/redirect-file"), 502, "redirects to 'file:///etc/passwd', which is not an http or https URL"),
                ("http://localhost:\(origin.port)/portrait.png", 403, "not allowed"),
                ("http://127.0.0.2:\(origin.port)/portrait.png", 403, "not allowed"),
                ("https://example.com/a.jpg", 403, "not allowed"),
                (origin.url("/gone"), 404, "does not exist"),
                (origin.url("/error"), 502, "answered 500"),
                (origin.url("/text"), 422, "not an image"),
                (origin.url("/big"), 413, "over the limit of 250000 bytes"),
                (origin.url("/big-chunked"), 413, "over the limit of 250000 bytes"),
                (origin.url("/gated.png"), 504, "did not arrive"),
                (origin.url("/trickle.png"), 504, "did not arrive"),
                ("http://127.0.0.1:1/portrait.png", 502, "could not be fetched: connection refused."),
                ("local:///portrait.png", 404, "no --root"),
            ]
            for row in rows {
                let r = try await get(row.source)
                #expect(r.status == row.status, "\(row.source): \(r)")
                if row.status != 200 {
                    #expect((r.json?["error"] as? String)?.contains(row.words) == true, "\(row.source): \(r)")
                }
            }
        }
    }
}

extension OriginTests {
    /// An origin that refuses connections is answered 502 once connecting has been tried for
    /// `OriginFetcher.connectTimeout`, not after the whole fetch's `--origin-timeout`.
    @Test func aRefusedOriginFailsAtTheConnectLimit() async throws {
        let configuration = LiveServer.configuration(root: nil) {
            $0.allowedHosts = ["127.0.0.1"]
            $0.originTimeout = .seconds(120)
        }
        try await withServer(configuration) { s async throws in
            let start = ContinuousClock.now
            let r = try await s.get(signed("/rs:fill:64:64/plain/http://127.0.0.1:1/portrait.png@jpg"))
            let waited = ContinuousClock.now - start
            #expect(r.status == 502 && (r.json?["error"] as? String)?.contains("connection refused") == true, "\(r)")
            #expect(waited < .seconds(60), "answered after \(waited)")
        }
    }
}

@Suite(.serialized, .timeLimit(.minutes(10)))
struct LoadTests {
    /// One slot and a queue of one: with a request holding the slot (its origin answers only when the test lets it)
    /// and one waiting, every further request is turned away at once with 503 and Retry-After; then the two finish.
    @Test func backPressure() async throws {
        let origin = try await Origin.start()
        defer { Task { await origin.stop() } }
        let configuration = LiveServer.configuration(root: nil) {
            $0.allowedHosts = ["127.0.0.1"]
            $0.slots = 1
            $0.queue = 1
            $0.retryAfter = 7
            $0.originTimeout = .seconds(300)
        }
        try await withServer(configuration) { s async throws in
            let gated = signed("/rs:fill:64:64/plain/\(origin.url("/gated.png"))@jpg")
            let first = Task { try await s.get(gated) }
            try await waitForLoad(s) { running, _ in running == 1 }
            let second = Task { try await s.get(gated) }
            try await waitForLoad(s) { running, waiting in running == 1 && waiting == 1 }
            let turnedAway = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<6 { group.addTask { try await s.get(gated) } }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            for r in turnedAway {
                #expect(r.status == 503 && r.header("Retry-After") == "7", "\(r)")
                #expect((r.json?["error"] as? String)?.contains("busy") == true)
            }
            let metrics = try await s.get("/metrics").text
            #expect(metrics.contains("facecrop_rejected_total 6"), "\(metrics)")
            #expect(metrics.contains("facecrop_crops_waiting 1") && metrics.contains("facecrop_crops_running 1"))
            origin.gate.open()
            #expect(try await first.value.status == 200)
            #expect(try await second.value.status == 200)
            try await waitForLoad(s) { running, waiting in running == 0 && waiting == 0 }
        }
    }

    /// A request past --timeout is answered 503 with Retry-After (its origin still waiting); the slot it held is
    /// given back once its work ends.
    @Test func requestTimeout() async throws {
        let origin = try await Origin.start()
        defer { Task { await origin.stop() } }
        let configuration = LiveServer.configuration(root: nil) {
            $0.allowedHosts = ["127.0.0.1"]
            $0.slots = 1
            $0.requestTimeout = .seconds(1)
            $0.originTimeout = .seconds(300)
        }
        try await withServer(configuration) { s async throws in
            let r = try await s.get(signed("/rs:fill:64:64/plain/\(origin.url("/gated.png"))@jpg"))
            #expect(r.status == 503 && r.header("Retry-After") == "1", "\(r)")
            #expect((r.json?["error"] as? String)?.contains("--timeout") == true)
            origin.gate.open()
            try await waitForLoad(s) { running, waiting in running == 0 && waiting == 0 }
        }
    }

    /// SIGTERM to the built binary while a request is in flight: the shutdown begins, the request still gets its
    /// image, and the process exits 0.
    @Test func gracefulShutdownFinishesRequestsInFlight() async throws {
        let origin = try await Origin.start()
        defer { Task { await origin.stop() } }
        let served = try ServeProcess(
            [
                "--port", "0", "--allow-host", "127.0.0.1", "--slots", "1", "--log-level", "notice", "--origin-timeout", "600", "--timeout",
                "600",
            ],
            environment: [
                "FACECROP_KEY": "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                "FACECROP_SALT": "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5",
            ])
        let process = served.process
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let output = served.output
        var text = served.text
        let base = "http://127.0.0.1:\(served.port)"
        let inFlight = Task { try await fetch(base + signed("/rs:fill:64:64/plain/\(origin.url("/gated.png"))@jpg")) }
        for _ in 0..<3000 {
            if (try await fetch(base + "/health").json?["running"] as? Int) == 1 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(process.processIdentifier, SIGTERM)
        // The shutdown has begun (the server says so), and the process waits for the request in flight.
        for _ in 0..<1000 where !text.contains("shutting down") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        #expect(text.contains("shutting down"), "\(text)")
        #expect(process.isRunning, "the process waits for the request in flight")
        origin.gate.open()
        let reply = try await inFlight.value
        #expect(reply.status == 200, "\(reply)")
        #expect(try imageInfo(reply.body).width == 64)
        for _ in 0..<3000 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!process.isRunning)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }
}

struct ServedBinaryTests {
    /// A port already taken: one line on standard error in the system's words, exit 1, and no word of a shutdown
    /// (nothing was started).
    @Test func portInUseIsOneClearLine() async throws {
        try await withScratch { dir in
            let first = try ServeProcess(["--port", "0", "--root", dir.path, "--allow-unsigned"], environment: [:])
            defer { kill(first.process.processIdentifier, SIGKILL) }
            let second = Process()
            second.executableURL = try Repo.serveBinary()
            second.arguments = ["--port", "\(first.port)", "--root", dir.path, "--allow-unsigned"]
            let (output, error) = (Pipe(), Pipe())
            (second.standardOutput, second.standardError) = (output, error)
            try second.run()
            let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let complained = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            second.waitUntilExit()
            #expect(second.terminationStatus == 1)
            #expect(complained == "Error: Cannot listen on 127.0.0.1:\(first.port): address already in use.\n", "\(complained)")
            #expect(!said.contains("shutting down") && !said.contains("listening"), "\(said)")
        }
    }

    /// A host that is no name of this machine: the reason in words, the address as one would write it.
    @Test(arguments: [("256.1.1.1", "256.1.1.1", "no such host"), ("fe80::1", "[fe80::1]", "")])
    func unknownHostIsOneClearLine(_ row: (host: String, shown: String, reason: String)) throws {
        let server = Process()
        server.executableURL = try Repo.serveBinary()
        server.arguments = ["--port", "18099", "--host", row.host, "--root", "/tmp", "--allow-unsigned"]
        let error = Pipe()
        (server.standardOutput, server.standardError) = (FileHandle.nullDevice, error)
        try server.run()
        let complained = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        #expect(server.terminationStatus == 1)
        #expect(complained.hasPrefix("Error: Cannot listen on \(row.shown):18099: \(row.reason)"), "\(complained)")
        #expect(complained.split(separator: "\n").count == 1, "\(complained)")
    }

    /// The built facecrop-serve opens libvips' format modules when it needs them, as the facecrop command does:
    /// HEIF's and OpenSlide's at start; JPEG XL's with the first input no open loader knows, which is then refused
    /// (422, its loader blocked), and the server goes on serving.
    @Test func servedBinaryOpensFormatModulesWhenNeeded() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            let png = root.appendingPathComponent("portrait.png")
            #expect(FileManager.default.fileExists(atPath: png.path))
            // A small picture: encoding JPEG XL is slow, and this test's thread is one of the few the tests share.
            let jxl = Process()
            jxl.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
            jxl.arguments = ["copy", png.path, root.appendingPathComponent("portrait.jxl").path]
            try jxl.run()
            jxl.waitUntilExit()
            #expect(jxl.terminationStatus == 0)
            // glibc's LD_DEBUG=files names the libraries the process opens (into a file: a pipe could fill).
            let log = dir.appendingPathComponent("ld-debug.txt")
            let served = try ServeProcess(
                ["--port", "0", "--root", root.path, "--allow-unsigned", "--log-level", "notice"], environment: ["LD_DEBUG": "files"], standardError: log)
            defer { if served.process.isRunning { kill(served.process.processIdentifier, SIGKILL) } }
            func modules() throws -> Set<String> {
                let text = try String(decoding: Data(contentsOf: log), as: UTF8.self)
                return Set(
                    text.split(separator: "\n").compactMap { line -> String? in
                        guard let file = line.split(separator: "file=").dropFirst().first?.split(separator: " ").first,
                            file.contains("/vips-modules-")
                        else { return nil }
                        return file.split(separator: "/").last.map(String.init)
                    })
            }
            // Over a plain socket, waiting with Task.sleep: an HTTP client's read timeout could fire while the
            // tests beside this one hold the threads that would read its answer.
            func get(_ name: String) async throws -> String {
                let fd = try connectSocket(port: served.port)
                defer { close(fd) }
                let request = Array("GET /unsafe/aspect:1:1/plain/local:///\(name)@jpg HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
                guard send(fd, request, request.count, 0) == request.count else { throw TestFailure("send() failed") }
                var answer: [UInt8] = []
                while let part = try await receive(fd, timeout: .seconds(300)), !part.isEmpty { answer += part }
                return String(decoding: answer, as: UTF8.self)
            }
            #expect(try await get("portrait.png").hasPrefix("HTTP/1.1 200"))
            #expect(try modules() == ["vips-heif.so", "vips-openslide.so"])
            let refused = try await get("portrait.jxl")
            #expect(refused.hasPrefix("HTTP/1.1 422") && refused.contains("blocked"), "\(refused)")
            #expect(try modules().contains("vips-jxl.so"))
            #expect(try await get("portrait.png").hasPrefix("HTTP/1.1 200"))
        }
    }
}

/// The hostile-input corpus (scripts/make-corpus.py) served as local sources: no crash, and each case's status
/// follows its CLI exit status (0 → 200, 66 → 404, 65 → 413 for size limits and 422 otherwise), or the case's
/// own `serverStatus`.
@Suite(.timeLimit(.minutes(20)))
struct CorpusServerTests {
    struct Case: Decodable {
        struct Outcome: Decodable {
            var status: Int32
            var stderr: [String]
        }
        var name: String
        var file: String
        var expect: Outcome
        var expectAsRoot: Outcome?
        var command: String?
        /// The server's status where it differs from what the CLI's gives.
        var serverStatus: Int?
        var expected: Outcome { geteuid() == 0 ? expectAsRoot ?? expect : expect }
    }

    @Test func hostileCorpusThroughTheServer() async throws {
        try await withScratch { dir in
            let corpus = dir.appendingPathComponent("corpus")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", Repo.file("scripts/make-corpus.py").path, corpus.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            struct File: Decodable { var cases: [Case] }
            let cases = try JSONDecoder().decode(File.self, from: Data(contentsOf: corpus.appendingPathComponent("cases.json"))).cases
            #expect(cases.count >= 60)
            try await withServer(LiveServer.configuration(root: corpus) { $0.slots = 2 }) { s async throws in
                // Two at a time, as many as the slots.
                var index = 0
                while index < cases.count {
                    let batch = Array(cases[index..<min(index + 2, cases.count)])
                    index += batch.count
                    let replies = try await withThrowingTaskGroup(of: (Case, Reply).self) { group in
                        for c in batch {
                            group.addTask { (c, try await s.get(signed("/aspect:1:1/plain/local:///\(percentEncoded(c.file))@jpg"))) }
                        }
                        return try await group.reduce(into: [(Case, Reply)]()) { $0.append($1) }
                    }
                    for (c, r) in replies {
                        #expect([200, 400, 404, 413, 422].contains(r.status), "\(c.name): \(r)")
                        if c.command != nil { continue }  // videos: the CLI's case is best-frame's
                        let limit = c.expected.stderr.joined().contains("over the limit")
                        let want =
                            c.serverStatus
                            ?? {
                                switch c.expected.status {
                                case 0: 200
                                case 66: 404
                                default: limit ? 413 : 422
                                }
                            }()
                        #expect(r.status == want, "\(c.name) (CLI \(c.expected.status)): \(r)")
                        if r.status == 200 { #expect(try imageInfo(r.body).loader.hasPrefix("jpegload"), "\(c.name)") }
                    }
                }
                #expect(try await s.get("/health").status == 200, "the server is still up")
            }
        }
    }
}
