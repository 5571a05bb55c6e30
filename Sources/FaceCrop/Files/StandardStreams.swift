import CVipsShim
import FaceCropCore
import Glibc

/// `-` for a crop's input and output: standard input read whole (within a limit), standard output written whole.
package enum StandardStreams {
    /// Standard input to its end; more than `limit` bytes is `fileTooLarge` (65), a terminal is refused.
    package static func read(limit: Int) throws(FaceCropError) -> [UInt8] {
        if isatty(STDIN_FILENO) != 0 { throw .inputUnreadable("-", reason: "standard input is a terminal; pipe an image into it") }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .inputUnreadable("-", reason: errorText(errno)) }
            if n == 0 { return bytes }
            guard bytes.count + n <= limit else {
                // A file's size is known; a pipe's is not (-1: "over the limit").
                var st = stat()
                let size = fstat(STDIN_FILENO, &st) == 0 && st.st_mode & S_IFMT == S_IFREG ? Int(st.st_size) : -1
                throw .fileTooLarge("-", bytes: size, limit: limit)
            }
            bytes += chunk[..<n]
        }
    }

    /// Flushes what `print` buffered: a write that failed (a full disk) shows only then, as `outputNotWritable`
    /// (73), in the system's words unless it was an earlier flush's (whose reason is gone).
    package static func flush() throws(FaceCropError) {
        let code = fc_flush_stdout()
        if code != 0 { throw .outputNotWritable("-", reason: code > 0 ? errorText(code) : "some of it could not be written") }
    }

    /// Standard output a line at a time, in a pipe too, for output that tells of progress.
    package static func writeLines() { fc_line_buffer_stdout() }

    package static func write(_ bytes: [UInt8]) throws(FaceCropError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .outputNotWritable("-", reason: errorText(n < 0 ? errno : EIO)) }
            offset += n
        }
    }
}
