// Inputs checked before libvips sees them, and files known by identity (device and inode) rather than by
// spelling.
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
            if e == ENOENT && path == "-" {
                throw .inputUnreadable(path, reason: "only 'facecrop crop' reads standard input ('-'); give this command a file")
            }
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

    /// How many first bytes `announcedFormat(head:)` reads.
    static let headLength = 12

    /// The first `headLength` bytes of a file (fewer when it is shorter); nil when it cannot be read.
    static func head(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: headLength)
        let count = read(fd, &buffer, headLength)
        return count >= 0 ? Array(buffer.prefix(count)) : nil
    }

    /// The image format a file's first bytes announce (`announcedFormat(head:)`).
    static func announcedFormat(_ path: String) -> String? { head(path).flatMap(announcedFormat(head:)) }

    /// The image format an input's first bytes (`head`) announce (or `video`), if any: an input that starts like
    /// an image but has no loader for it is damaged, not "not an image".
    static func announcedFormat(head b: [UInt8]) -> String? {
        guard b.count >= 4 else { return nil }
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if starts([0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if starts(Array("GIF8".utf8)) { return "GIF" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "WebP" }
        if starts(Array("ftyp".utf8), at: 4) {
            return b.count == headLength && !heifBrands.contains(String(decoding: b[8..<12], as: UTF8.self)) ? video : "HEIF"
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

    /// The regular file open as `descriptor` (standard input or output redirected from or to a file); nil for
    /// a pipe, a terminal or anything else.
    public init?(descriptor: Int32) {
        var st = stat()
        guard fstat(descriptor, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        (device, inode) = (UInt64(st.st_dev), UInt64(st.st_ino))
    }
}

/// The inputs of a run, by identity: every path facecrop writes is checked against them before any work.
public struct InputSet: Sendable {
    private var paths: [FileIdentity: String] = [:]

    /// The identities of `inputs`; a path where nothing exists is left out.
    public init(_ inputs: [String] = []) {
        for input in inputs { insert(input) }
    }

    /// Adds the identity of `path`, unless nothing exists there or that file is in the set already.
    public mutating func insert(_ path: String) {
        if let id = FileIdentity(path), paths[id] == nil { paths[id] = path }
    }

    /// Adds the file standard input reads, if it is one (`< file`), as "-": for a command that reads it.
    public mutating func insertStandardInput() {
        if let id = FileIdentity(descriptor: STDIN_FILENO), paths[id] == nil { paths[id] = "-" }
    }

    /// The input that `path` is (by identity), if any.
    public func input(at path: String) -> String? {
        FileIdentity(path).flatMap { paths[$0] }
    }

    /// The input that standard output writes to (redirected to or appended to a file), if any.
    public var inputAtStandardOutput: String? {
        FileIdentity(descriptor: STDOUT_FILENO).flatMap { paths[$0] }
    }

    /// Whether no input is in the set.
    public var isEmpty: Bool { paths.isEmpty }
}
