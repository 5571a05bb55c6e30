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

/// Checks an output path before any work: known extension, existing writable folder, not the input.
enum OutputCheck {
    @discardableResult
    static func writable(_ path: String, input: String) throws(FaceCropError) -> ImageFormat {
        guard let format = ImageFormat(path: path) else { throw .unsupportedOutputFormat(path) }
        guard VipsImage.canSave(format) else { throw .unsupportedOutputFormat(path) }
        if sameFile(path, input) { throw .outputSameAsInput(path) }
        let dir = directory(of: path)
        var st = stat()
        guard stat(dir, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { throw .outputDirectoryMissing(dir) }
        if access(dir, W_OK) != 0 { throw .outputNotWritable(path, reason: errorText(errno)) }
        if stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR { throw .outputNotWritable(path, reason: "it is a directory") }
        return format
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Same path after resolving links, or the same inode (hard links).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0, stat(b, &sb) == 0 { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        return false
    }
}

/// Writes through a temporary file in the destination folder, renamed into place only when complete, so
/// a failed or interrupted write never leaves a partial output or clobbers an existing one.
enum AtomicFile {
    static func write<E: Error>(to path: String, _ body: (String) throws(E) -> Void) throws {
        let dir = OutputCheck.directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ext = name.split(separator: ".").last.map(String.init) ?? "tmp"
        let tmp = "\(dir)/.\(name).facecrop-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).\(ext)"
        // Create it first: a folder we cannot write to is reported as such, not as a failed save. Created and
        // listed under one lock, so a signal handled in between cannot leave it behind unlisted.
        let (fd, error) = inFlight.withLock { files in
            let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0o666)
            if fd >= 0 { files.insert(tmp) }
            return (fd, errno)
        }
        guard fd >= 0 else { throw FaceCropError.outputNotWritable(path, reason: errorText(error)) }
        close(fd)
        defer { inFlight.withLock { _ = $0.remove(tmp) } }
        do {
            try body(tmp)
        } catch {
            unlink(tmp)
            throw error
        }
        if rename(tmp, path) != 0 {
            let e = errno
            unlink(tmp)
            throw FaceCropError.writeFailed(path, detail: errorText(e))
        }
    }

    /// Temporary files being written right now (removed by `Interruption` if the process is stopped).
    static let inFlight = Mutex(Set<String>())

    /// Whether `name` is one of our temporary files whose process is gone (killed before it could clean up).
    static func isStaleTemporary(_ name: String) -> Bool {
        guard name.hasPrefix("."), let marker = name.firstRange(of: ".facecrop-") else { return false }
        let pid = name[marker.upperBound...].prefix { $0.isNumber }
        guard let value = Int32(pid), value > 0 else { return false }
        return kill(value, 0) != 0 && errno == ESRCH
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
