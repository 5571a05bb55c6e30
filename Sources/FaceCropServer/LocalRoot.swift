// Local sources: files under one folder (--root), never outside it. A path is checked as text first (no "..",
// no ".", no empty or NUL component), then resolved with realpath (symlinks included) and refused unless it
// stays under the resolved root; the file is opened without following a last symlink, without blocking on a
// FIFO, and read only if it is a regular file.
import FaceCrop
import Glibc

/// The identity of a source for ETags: a local file's device, inode, size and modification time, or an origin's
/// validator. Two identical identities mean the same bytes.
public struct SourceIdentity: Sendable, Equatable {
    /// The identity as text: `file:` with the device, inode, size and modification time, or `url:` with the URL and the
    /// origin's ETag, Last-Modified or body's SHA-256.
    public var text: String
    /// An identity from its text.
    public init(_ text: String) { self.text = text }
}

/// The folder local sources are read under (`--root`): paths are checked as text, resolved, and opened only when they
/// stay under it.
public struct LocalRoot: Sendable {
    /// The root, resolved (realpath), without a trailing slash.
    public let path: String

    /// The root, resolved with realpath; throws (500) when it does not exist or is not a folder.
    public init(_ root: String) throws(ServerError) {
        guard let resolved = Self.realPath(root) else { throw ServerError(500, "The root folder '\(root)' does not exist.") }
        var st = stat()
        guard stat(resolved, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { throw ServerError(500, "The root '\(root)' is not a folder.") }
        path = resolved == "/" ? "" : resolved
    }

    /// A source path checked as text: relative, every component a name (not empty, ".", ".." or holding NUL).
    public static func relativePath(_ text: String) throws(ServerError) -> String {
        // Bytes, not characters: a "/" followed by a combining mark is one Character but still a separator.
        let components = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let dot = UInt8(ascii: ".")
        guard !text.isEmpty, !components.contains(where: { $0.isEmpty || $0.elementsEqual([dot]) || $0.elementsEqual([dot, dot]) || $0.contains(0) })
        else {
            throw .badOptions("Expected a path of names under the root after local:/// but received '\(text)'; '..', '.' and empty names are refused.")
        }
        return text
    }

    /// Whether `resolved` (a realpath) is inside `root` (not `root` itself; with an empty root, any absolute path).
    /// Compared as bytes: `hasPrefix` would take canonically equivalent names (a KELVIN SIGN for a K, a
    /// decomposed é for a composed one) for the same folder.
    public static func isInside(_ resolved: String, root: String) -> Bool {
        resolved.utf8.starts(with: (root.isEmpty ? "/" : root + "/").utf8)
    }

    /// An open regular file under the root, with its identity. Immutable; pread needs no lock.
    public final class OpenFile: Sendable {
        let fd: Int32
        /// The file's size in bytes, from fstat when it was opened.
        public let size: Int
        /// The file's device, inode, size and modification time, for ETags.
        public let identity: SourceIdentity
        init(fd: Int32, size: Int, identity: SourceIdentity) {
            self.fd = fd
            self.size = size
            self.identity = identity
        }
        deinit { close(fd) }

        /// The whole file (at most `size` bytes, as stat gave it).
        public func read() throws(ServerError) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: size)
            var done = 0
            while done < size {
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    if n == 0 { break }
                    throw ServerError(500, "Reading the source failed: \(String(cString: strerror(errno))).")
                }
                done += n
            }
            if done < size { bytes.removeLast(size - done) }
            return bytes
        }
    }

    /// Opens `relative` (already checked by `relativePath`): 404 when it does not exist, leaves the root through a
    /// symlink, or is not a regular file (a folder, FIFO, device or socket); 413 over `maxBytes`.
    public func open(_ relative: String, maxBytes: Int) throws(ServerError) -> OpenFile {
        let name = "local:///" + relative
        let notFound = ServerError.notFound("Source '\(name)' does not exist under the root.")
        guard let resolved = Self.realPath(path + "/" + relative), Self.isInside(resolved, root: path) else { throw notFound }
        let fd = Glibc.open(resolved, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            if errno == EACCES { throw ServerError(404, "Source '\(name)' cannot be read.") }
            throw notFound
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ServerError.notFound("Source '\(name)' is not a regular file.")
        }
        let size = Int(st.st_size)
        guard size <= maxBytes else {
            close(fd)
            throw ServerError(413, FaceCropError.fileTooLarge(name, bytes: size, limit: maxBytes).description)
        }
        let identity = SourceIdentity("file:\(st.st_dev):\(st.st_ino):\(size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
        return OpenFile(fd: fd, size: size, identity: identity)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
