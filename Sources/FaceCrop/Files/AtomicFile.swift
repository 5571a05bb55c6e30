// Writing without ever leaving a partial file: outputs through a temporary file and a rename, reports,
// copies.
import Glibc
import Synchronization

/// Writes through a temporary file in the destination folder, renamed into place only when complete, so
/// a failed or interrupted write never leaves a partial output or clobbers an existing one.
///
/// Temporary names are ".NAME.facecrop-PID-START-RANDOM.EXT": PID and START (the process's start time in
/// clock ticks since boot, /proc/PID/stat) name the writing process even after its PID is reused, RANDOM is
/// 16 hex digits. `isStaleTemporary` accepts only that exact shape.
package enum AtomicFile {
    static let marker = ".facecrop-"

    package static func temporaryName(for name: String) -> String {
        var ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? "tmp"
        if ext.isEmpty || ext.utf8.count > 16 { ext = "tmp" }
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let hex = String(repeating: "0", count: 16 - random.count) + random
        let suffix = "\(marker)\(getpid())-\(ownStartTime)-\(hex).\(ext)"
        // Within the 255 bytes of a file name: a long name keeps only its start (whole Unicode scalars).
        var stem = name.unicodeScalars
        var bytes = name.utf8.count
        while stem.count > 1 && 1 + bytes + suffix.utf8.count > Int(NAME_MAX) { bytes -= UTF8.width(stem.removeLast()) }
        return ".\(String(stem))\(suffix)"
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
    package static func temporaryOwner(_ name: String) -> (pid: Int32, start: UInt64)? {
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
package enum ReportFile {
    package static func write(_ bytes: [UInt8], to path: String, inputs: InputSet) throws(FaceCropError) {
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
package enum FileCopy {
    package static func copy(_ source: String, to target: String, inputs: InputSet) throws(FaceCropError) {
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
