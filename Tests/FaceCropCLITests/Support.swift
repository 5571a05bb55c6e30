import Dispatch
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A test precondition that does not hold (binary missing, bad JSON, ...), with a readable message.
struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Where things are: the repository (read-only), its sample images and the built `facecrop` binary.
enum CLI {
    /// The package root: the first folder above this file holding Package.swift.
    static func repoRoot(file: String = #filePath) -> URL {
        var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// A file of the repository, e.g. "Samples/group.jpg". Never written to: tests copy it first.
    static func repoFile(_ relative: String) -> URL { repoRoot().appendingPathComponent(relative) }

    /// Folders the binary is looked for in: next to the test executable (swift build/test put every
    /// product of a build in one folder).
    static var searchedFolders: [URL] {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        if let exe = Bundle.main.executableURL { folders.append(exe.resolvingSymlinksInPath().deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        return folders
    }

    /// The `facecrop` executable: $FACECROP_BIN, or the one built next to the test bundle.
    static func binary() throws -> URL {
        let fm = FileManager.default
        if let override = ProcessInfo.processInfo.environment["FACECROP_BIN"], !override.isEmpty {
            guard fm.isExecutableFile(atPath: override) else {
                throw CLITestError("FACECROP_BIN='\(override)' is not an executable file.")
            }
            return URL(fileURLWithPath: override)
        }
        for folder in searchedFolders {
            let candidate = folder.appendingPathComponent("facecrop")
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: candidate.path, isDirectory: &isDir), !isDir.boolValue, fm.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw CLITestError(
            "The facecrop binary was not found in \(searchedFolders.map(\.path)); run `swift build` first or set FACECROP_BIN.")
    }

    /// The landmark model's cache folder of every run (FACECROP_CACHE_DIR, unless a test sets its own): in the
    /// build folder, filled by one run before the first test's. No run's standard error then depends on whether
    /// it was the first of the tests side by side to write the cache, and tests write nothing in the home folder.
    static let landmarkCache: String = {
        let dir = repoRoot().appendingPathComponent(".build/test-cache").path
        _ = try? runFaceCrop(
            ["detect", "--landmarks", repoFile("Samples/portrait.png").path], in: repoRoot(), environment: ["FACECROP_CACHE_DIR": dir])
        return dir
    }()
}

/// What one run of the binary did.
struct RunResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var timedOut: Bool
    /// Ended by a signal (a crash, or the kill after `timeout`) rather than by exiting.
    var signalled = false

    /// Lines of standard error, without the final newline's empty line.
    var stderrLines: [String] {
        var lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
    /// Standard error without the warnings (a face cut by a crop): the errors only.
    var errorLines: [String] { stderrLines.filter { !$0.hasPrefix("Warning: ") } }

    var description: String { "\(signalled ? "signal" : "exit") \(status)\(timedOut ? " (timed out)" : "")\n--- stdout:\n\(stdout)--- stderr:\n\(stderr)" }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
    var flag = false
}

/// Sends `signal` to `process` and waits for it to end, at most `seconds`; a process still running then (a
/// signal handler that hangs) is killed, and the answer is false, so a test fails instead of hanging.
func stop(_ process: Process, with signal: Int32, within seconds: Double = 30) -> Bool {
    kill(process.processIdentifier, signal)
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(5_000) }
    let ended = !process.isRunning
    if !ended { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return ended
}

/// Runs `facecrop args...` in `directory`, capturing standard output and error; kills it after `timeout`.
/// `stdin` (small: it must fit in a pipe's buffer) is fed to its standard input, which is otherwise empty.
/// `environment` adds to (or replaces) variables of this process's environment; FACECROP_CACHE_DIR is
/// `CLI.landmarkCache` unless it names another.
func runFaceCrop(
    _ args: [String], in directory: URL, timeout: Double = 60, stdin: Data? = nil, environment: [String: String] = [:],
    executable: URL? = nil
) throws -> RunResult {
    let process = Process()
    process.executableURL = try executable ?? CLI.binary()
    process.arguments = args
    process.currentDirectoryURL = directory
    var environment = environment
    if environment["FACECROP_CACHE_DIR"] == nil { environment["FACECROP_CACHE_DIR"] = CLI.landmarkCache }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    if let stdin {
        guard stdin.count < 16_384 else { throw CLITestError("stdin data too large for a pipe buffer") }
        // Written and closed before the launch: the child reads it then end of file, and no write can hit SIGPIPE.
        let inPipe = Pipe()
        try inPipe.fileHandleForWriting.write(contentsOf: stdin)
        try inPipe.fileHandleForWriting.close()
        process.standardInput = inPipe
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    let outPipe = Pipe()
    let errPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    try process.run()
    let pid = process.processIdentifier

    // Standard error is read on a thread of its own while this one reads standard output, so neither pipe can
    // fill up, and a third thread kills the process at the deadline. Threads of their own, not Dispatch's
    // global pool: on two cores that pool runs a handful of threads, which runs of tests side by side can
    // keep blocked past any deadline.
    let err = DataBox()
    let errDone = DispatchSemaphore(value: 0)
    let errHandle = errPipe.fileHandleForReading
    Thread {
        err.data = errHandle.readDataToEndOfFile()
        errDone.signal()
    }.start()
    let ended = DispatchSemaphore(value: 0)
    let timer = DataBox()
    let timerDone = DispatchSemaphore(value: 0)
    Thread {
        if ended.wait(timeout: .now() + timeout) == .timedOut {
            timer.flag = true
            kill(pid, SIGKILL)
        }
        timerDone.signal()
    }.start()
    let out = outPipe.fileHandleForReading.readDataToEndOfFile()
    errDone.wait()
    process.waitUntilExit()
    ended.signal()
    timerDone.wait()
    // Timed out means killed at the deadline: a process that ended on its own as the deadline passed was slow,
    // which benchmarks measure, not tests.
    let signalled = process.terminationReason == .uncaughtSignal
    return RunResult(
        status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: err.data, as: UTF8.self), timedOut: timer.flag && signalled, signalled: signalled)
}

/// Runs a shell command in `directory` with `$FACECROP` naming the binary: for arguments a Swift string
/// cannot hold (bytes that are not UTF-8), which the shell can make.
func runShell(_ command: String, in directory: URL, timeout: Double = 60) throws -> RunResult {
    try runFaceCrop(
        ["-c", command], in: directory, timeout: timeout, environment: ["FACECROP": try CLI.binary().path], executable: URL(fileURLWithPath: "/bin/sh"))
}

/// A fresh temporary folder for one test, removed afterwards (permissions restored first).
func withScratch<T>(_ body: (URL) throws -> T) throws -> T {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-cli-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer {
        if let walker = FileManager.default.enumerator(atPath: dir.path) {
            for case let name as String in walker { chmod(dir.appendingPathComponent(name).path, 0o700) }
        }
        chmod(dir.path, 0o700)
        try? FileManager.default.removeItem(at: dir)
    }
    return try body(dir)
}

/// Copies a repository file into `dir` under `name`; returns the copy.
@discardableResult
func copySample(_ relative: String, to dir: URL, as name: String) throws -> URL {
    let target = dir.appendingPathComponent(name)
    try FileManager.default.copyItem(at: CLI.repoFile(relative), to: target)
    return target
}

/// Contents plus modification time of a file: equal snapshots mean it was not touched.
struct FileSnapshot: Equatable {
    var data: Data
    var mtimeSeconds: Int
    var mtimeNanoseconds: Int

    init(_ url: URL) throws {
        data = try Data(contentsOf: url)
        var st = stat()
        guard stat(url.path, &st) == 0 else { throw CLITestError("cannot stat \(url.path)") }
        mtimeSeconds = Int(st.st_mtim.tv_sec)
        mtimeNanoseconds = Int(st.st_mtim.tv_nsec)
    }
}

/// Every name in `dir`, hidden ones included.
func listing(_ dir: URL) -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
}

/// The input file name a batch manifest's name is for: "NAME.HASH.json" (HASH 16 hex digits, the options') gives
/// NAME; nil for any other name.
func manifestInputName(_ name: String) -> String? {
    guard name.hasSuffix(".json"), name.utf8.count > 22 else { return nil }
    let stem = name.dropLast(".json".count)
    let hash = stem.suffix(16)
    guard hash.utf8.count == 16, hash.allSatisfy(\.isHexDigit), stem.dropLast(16).hasSuffix(".") else { return nil }
    return String(stem.dropLast(17))
}

/// facecrop's temporary files (".NAME.facecrop-PID-RANDOM.EXT") left in `dir`.
func leftoverTempFiles(_ dir: URL) -> [String] {
    listing(dir).filter { $0.hasPrefix(".") && $0.contains(".facecrop-") }.sorted()
}

// MARK: - Images and JSON

enum ImageKind: String, Sendable {
    case jpeg, png, webp, tiff
}

/// The format of `url` from its first bytes.
func imageKind(of url: URL) -> ImageKind? {
    guard let data = try? Data(contentsOf: url), data.count >= 12 else { return nil }
    let b = [UInt8](data.prefix(12))
    if b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF { return .jpeg }
    if b[0...3] == [0x89, 0x50, 0x4E, 0x47] { return .png }
    if b[0...3] == Array("RIFF".utf8)[0...3], b[8...11] == Array("WEBP".utf8)[0...3] { return .webp }
    if b[0...3] == [0x49, 0x49, 0x2A, 0x00] || b[0...3] == [0x4D, 0x4D, 0x00, 0x2A] { return .tiff }
    return nil
}

typealias JSONObject = [String: Any]

func parseJSONObject(_ text: String) throws -> JSONObject {
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? JSONObject else {
        throw CLITestError("not a JSON object: \(text.prefix(200))")
    }
    return object
}

/// A JSON number as Double (JSONSerialization gives Int, Double or NSNumber).
func number(_ value: Any?) -> Double? {
    switch value {
    case let v as Int: return Double(v)
    case let v as Double: return v
    case let v as NSNumber: return v.doubleValue
    default: return nil
    }
}

extension Dictionary where Key == String, Value == Any {
    func object(_ key: String) -> JSONObject? { self[key] as? JSONObject }
    func num(_ key: String) -> Double? { number(self[key]) }
    func string(_ key: String) -> String? { self[key] as? String }
}

/// Runs libvips' own command with `args` and returns its standard output; throws when it fails.
@discardableResult
func vips(_ args: [String]) throws -> String {
    let vips = Process()
    vips.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
    vips.arguments = args
    let out = Pipe()
    vips.standardOutput = out
    vips.standardError = FileHandle.nullDevice
    try vips.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    vips.waitUntilExit()
    guard vips.terminationStatus == 0 else { throw CLITestError("vips \(args.joined(separator: " ")) failed") }
    return text
}

/// The pixel at `x`, `y` of an image, as libvips reads it (`vips getpoint`).
func pixel(_ path: String, x: Int, y: Int) throws -> [Int] {
    try vips(["getpoint", path, String(x), String(y)]).split(whereSeparator: \.isWhitespace).compactMap { Double($0).map { Int($0) } }
}

/// Size and loader of an image as the binary itself reads it (`facecrop detect FILE --json`).
func readBack(_ name: String, in dir: URL) throws -> (width: Int, height: Int, loader: String) {
    let r = try runFaceCrop(["detect", name, "--json"], in: dir)
    guard r.status == 0 else { throw CLITestError("detect \(name) failed: \(r)") }
    let input = try parseJSONObject(r.stdout).object("input")
    guard let w = input?.num("width"), let h = input?.num("height"), let loader = input?.string("loader") else {
        throw CLITestError("detect --json gave no input size: \(r.stdout.prefix(300))")
    }
    return (Int(w), Int(h), loader)
}
