import Glibc
import Synchronization

/// Checks an input path before libvips sees it, so each problem gets its own clear message (and a FIFO
/// or a directory never reaches a decoder).
enum InputCheck {
    /// `maxBytes`: larger files are refused before anything reads them (`--max-file-size`).
    static func readableFile(_ path: String, maxBytes: Int = .max) throws(FaceCropError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = errno
            if e == ENOENT, lstat(path, &st) == 0 { throw .inputUnreadable(path, reason: "it is a symbolic link to a missing file") }
            if e == ENOENT || e == ENOTDIR { throw .inputNotFound(path) }
            throw .inputUnreadable(path, reason: errorText(e))
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .inputIsDirectory(path)
        default: throw .inputNotRegularFile(path)
        }
        if st.st_size == 0 { throw .inputEmpty(path) }
        if st.st_size > maxBytes { throw .fileTooLarge(path, bytes: Int(st.st_size), limit: maxBytes) }
        if access(path, R_OK) != 0 { throw .inputUnreadable(path, reason: errorText(errno)) }
    }

    /// What `announcedFormat` returns for an MP4/QuickTime file: an ISO 'ftyp' box whose brand is not HEIF's.
    static let video = "video"
    /// HEIF's and AVIF's 'ftyp' brands; other brands (isom, mp42, qt, M4V, ...) are videos.
    private static let heifBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "mif2", "msf1", "avif", "avis"]

    /// The image format a file's first bytes announce (or `video`), if any: a file that starts like an image
    /// but has no loader for it is damaged, not "not an image".
    static func announcedFormat(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 12)
        let count = read(fd, &buffer, 12)
        guard count >= 4 else { return nil }
        let b = buffer.prefix(count)
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if starts([0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if starts(Array("GIF8".utf8)) { return "GIF" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "WebP" }
        if starts(Array("ftyp".utf8), at: 4) {
            return b.count == 12 && !heifBrands.contains(String(decoding: b[8..<12], as: UTF8.self)) ? video : "HEIF"
        }
        return nil
    }
}

/// A file's identity, device and inode after following symbolic links: how outputs are matched against
/// inputs whatever their spelling ("./a.jpg", "dir/../a.jpg", a symbolic or a hard link).
public struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// Nil when nothing is there (or it cannot be reached).
    public init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        (device, inode) = (UInt64(st.st_dev), UInt64(st.st_ino))
    }
}

/// The inputs of a run, by identity: every path facecrop writes is checked against them before any work.
public struct InputSet: Sendable {
    private var paths: [FileIdentity: String] = [:]

    public init(_ inputs: [String] = []) {
        for input in inputs { insert(input) }
    }

    public mutating func insert(_ path: String) {
        if let id = FileIdentity(path), paths[id] == nil { paths[id] = path }
    }

    /// The input that `path` is (by identity), if any.
    public func input(at path: String) -> String? {
        FileIdentity(path).flatMap { paths[$0] }
    }

    public var isEmpty: Bool { paths.isEmpty }
}

/// Checks an output path before any work: known extension, existing writable folder, not an input, not an
/// existing FIFO or device (which a rename would replace).
public enum OutputCheck {
    @discardableResult
    static func writable(_ path: String, input: String) throws(FaceCropError) -> ImageFormat {
        try writable(path, inputs: InputSet([input]))
    }

    @discardableResult
    public static func writable(_ path: String, inputs: InputSet) throws(FaceCropError) -> ImageFormat {
        guard let format = ImageFormat(path: path) else { throw .unsupportedOutputFormat(path) }
        guard VipsImage.canSave(format) else { throw .unsupportedOutputFormat(path) }
        try destination(path, inputs: inputs)
        return format
    }

    /// The checks every written path gets, whatever its format (reports and manifests too): not an input (by
    /// identity), an existing folder we may write in, and, unless `allowStreams`, not an existing FIFO, device
    /// or socket (a report may go to /dev/stdout; an image would replace the node).
    public static func destination(_ path: String, inputs: InputSet, allowStreams: Bool = false) throws(FaceCropError) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        if name.isEmpty || name == "." || name == ".." { throw .outputNotWritable(path, reason: "it names a folder") }
        if inputs.input(at: path) != nil { throw .outputSameAsInput(path) }
        let dir = directory(of: path)
        var st = stat()
        guard stat(dir, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { throw .outputDirectoryMissing(dir) }
        if stat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw .outputNotWritable(path, reason: "it is a directory")
            default:
                if !allowStreams { throw .outputNotRegularFile(path) }
                if access(path, W_OK) != 0 { throw .outputNotWritable(path, reason: errorText(errno)) }
                return
            }
        }
        if access(dir, W_OK) != 0 { throw .outputNotWritable(path, reason: errorText(errno)) }
    }

    /// Refuses two outputs that are one file: the same identity when they exist, else the same name in the
    /// same folder (by the folder's identity).
    public static func distinct(_ outputs: [String]) throws(FaceCropError) {
        for (i, a) in outputs.enumerated() {
            for b in outputs[(i + 1)...] where sameDestination(a, b) { throw .outputsClash(a, b) }
        }
    }

    static func sameDestination(_ a: String, _ b: String) -> Bool {
        if let ia = FileIdentity(a), let ib = FileIdentity(b) { return ia == ib }
        func split(_ p: String) -> (FileIdentity?, String) {
            (FileIdentity(directory(of: p)), p.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? p)
        }
        let (da, na) = split(a)
        let (db, nb) = split(b)
        return da != nil && da == db && na == nb
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Same path after resolving links, or the same inode (hard links).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let ia = FileIdentity(a) else { return false }
        return ia == FileIdentity(b)
    }
}

/// Writes through a temporary file in the destination folder, renamed into place only when complete, so
/// a failed or interrupted write never leaves a partial output or clobbers an existing one.
///
/// Temporary names are ".NAME.facecrop-PID-START-RANDOM.EXT": PID and START (the process's start time in
/// clock ticks since boot, /proc/PID/stat) name the writing process even after its PID is reused, RANDOM is
/// 16 hex digits. `isStaleTemporary` accepts only that exact shape.
public enum AtomicFile {
    static let marker = ".facecrop-"

    static func temporaryName(for name: String) -> String {
        let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? "tmp"
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let hex = String(repeating: "0", count: 16 - random.count) + random
        return ".\(name)\(marker)\(getpid())-\(ownStartTime)-\(hex).\(ext.isEmpty ? "tmp" : ext)"
    }

    static func write<E: Error>(to path: String, _ body: (String) throws(E) -> Void) throws {
        let dir = OutputCheck.directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let tmp = "\(dir)/\(temporaryName(for: name))"
        // Create it first: a folder we cannot write to is reported as such, not as a failed save. Created and
        // listed under one lock, so a signal handled in between cannot leave it behind unlisted.
        let (fd, error) = inFlight.withLock { files in
            let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 { files.insert(tmp) }
            return (fd, errno)
        }
        guard fd >= 0 else { throw FaceCropError.outputNotWritable(path, reason: errorText(error)) }
        close(fd)
        defer { inFlight.withLock { _ = $0.remove(tmp) } }
        do {
            try body(tmp)
        } catch {
            // A full disk (or quota) makes every encoder fail in its own words ("Unknown error -1" from
            // libjpeg): ask the file system, while the partial file still holds its space.
            let space = spaceProblem(tmp)
            unlink(tmp)
            if let space { throw FaceCropError.outputNotWritable(path, reason: space) }
            throw error
        }
        if rename(tmp, path) != 0 {
            let e = errno
            unlink(tmp)
            throw FaceCropError.writeFailed(path, detail: errorText(e))
        }
    }

    /// Writes `bytes` to `path` atomically with plain POSIX calls (reports, manifests, copies): errors are
    /// the system's own words ("no space left on device"), never a Foundation error's description.
    static func write(_ bytes: [UInt8], to path: String) throws(FaceCropError) {
        do {
            try write(to: path) { (tmp: String) throws(FaceCropError) in try writeAll(bytes, to: tmp, path: path, create: false) }
        } catch let error as FaceCropError {
            throw error
        } catch {
            throw .writeFailed(path, detail: "\(error)")
        }
    }

    /// Writes `bytes` into the file at `tmp` (created unless `create` is false), reporting problems as `path`'s.
    static func writeAll(_ bytes: [UInt8], to tmp: String, path: String, create: Bool = true) throws(FaceCropError) {
        let fd = open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC | (create ? O_CREAT : 0), 0o666)
        guard fd >= 0 else { throw .outputNotWritable(path, reason: errorText(errno)) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let e = n < 0 ? errno : ENOSPC
                close(fd)
                throw .outputNotWritable(path, reason: errorText(e))
            }
            offset += n
        }
        if close(fd) != 0 { throw .outputNotWritable(path, reason: errorText(errno)) }
    }

    /// Why the file system refuses more bytes in `tmp`'s folder (full, over quota), if it does: a page
    /// appended to the partial file tells, in the system's words.
    static func spaceProblem(_ tmp: String) -> String? {
        let fd = open(tmp, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let page = [UInt8](repeating: 0, count: 4096)
        let n = page.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n < 0, [ENOSPC, EDQUOT, EFBIG].contains(errno) { return errorText(errno) }
        if n >= 0 && n < page.count { return errorText(ENOSPC) }
        if n > 0, fsync(fd) != 0, [ENOSPC, EDQUOT].contains(errno) { return errorText(errno) }
        return nil
    }

    /// Temporary files being written right now (removed by `Interruption` if the process is stopped).
    static let inFlight = Mutex(Set<String>())

    /// This process's start time, in clock ticks since boot.
    static let ownStartTime: UInt64 = startTime(of: getpid()) ?? 0

    /// Field 22 of /proc/PID/stat, or nil when there is no such process.
    static func startTime(of pid: Int32) -> UInt64? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return nil }
        // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
        let text = buffer.prefix(n)
        guard let close = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[(close + 1)...].split(separator: UInt8(ascii: " "))
        // Fields from 3 on: index 0 here is field 3, so field 22 is index 19.
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// The PID and start time in one of our temporary names, or nil when `name` is not exactly one.
    static func temporaryOwner(_ name: String) -> (pid: Int32, start: UInt64)? {
        guard name.hasPrefix("."), let marker = name.ranges(of: marker).last else { return nil }
        guard name.index(after: name.startIndex) < marker.lowerBound else { return nil }
        let parts = name[marker.upperBound...].split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let pid = Int32(parts[0]), pid > 0, let start = UInt64(parts[1]) else { return nil }
        let tail = parts[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard tail.count == 2, tail[0].count == 16, tail[0].allSatisfy(\.isHexDigit), !tail[1].isEmpty,
            !tail[1].contains("/"), String(parts[0]) == String(pid), String(parts[1]) == String(start)
        else { return nil }
        return (pid, start)
    }

    /// Whether `name` is one of our temporary files whose writer is gone (killed before it could clean up):
    /// no process with its PID, or one that started at another time (the PID was reused).
    static func isStaleTemporary(_ name: String) -> Bool {
        guard let owner = temporaryOwner(name) else { return false }
        guard let start = startTime(of: owner.pid) else { return true }
        return start != owner.start
    }
}

/// Reports (`batch --report`): written atomically to a regular file, or straight into a FIFO or device
/// (/dev/stdout); a failed write (a full disk, /dev/full) fails the run in the system's words.
public enum ReportFile {
    public static func write(_ bytes: [UInt8], to path: String, inputs: InputSet) throws(FaceCropError) {
        try OutputCheck.destination(path, inputs: inputs, allowStreams: true)
        var st = stat()
        if stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            try AtomicFile.writeAll(bytes, to: path, path: path, create: false)
        } else {
            try AtomicFile.write(bytes, to: path)
        }
    }
}

/// Copies a file atomically (`rank --copy-to`), in the system's words when it fails.
public enum FileCopy {
    public static func copy(_ source: String, to target: String, inputs: InputSet) throws(FaceCropError) {
        try OutputCheck.destination(target, inputs: inputs)
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .inputUnreadable(source, reason: errorText(errno)) }
        defer { close(input) }
        do {
            try AtomicFile.write(to: target) { (tmp: String) throws(FaceCropError) in
                let output = open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC)
                guard output >= 0 else { throw .outputNotWritable(target, reason: errorText(errno)) }
                defer { close(output) }
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = read(input, &buffer, buffer.count)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { throw .inputUnreadable(source, reason: errorText(errno)) }
                    if n == 0 { break }
                    var offset = 0
                    while offset < n {
                        let w = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + offset, n - offset) }
                        if w < 0 && errno == EINTR { continue }
                        guard w > 0 else { throw .outputNotWritable(target, reason: errorText(w < 0 ? errno : ENOSPC)) }
                        offset += w
                    }
                }
            }
        } catch let error as FaceCropError {
            throw error
        } catch {
            throw .writeFailed(target, detail: "\(error)")
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP stop facecrop cleanly: temporary files being written are deleted, then the
/// process exits with 128 + the signal number. (SIGKILL cannot be caught: the next batch run removes the
/// temporary files of processes that no longer exist.)
public enum Interruption {
    /// Call before any thread starts: the signals are blocked everywhere and taken by one waiting thread.
    public static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let blocked = set
        _ = BackgroundTask<Void> {
            var set = blocked
            var signal: Int32 = 0
            sigwait(&set, &signal)
            AtomicFile.inFlight.withLock { for path in $0 { unlink(path) } }
            _exit(128 + signal)
        }
    }
}

func errorText(_ code: Int32) -> String {
    guard let s = strerror(code) else { return "error \(code)" }
    return String(cString: s).lowercased()
}
