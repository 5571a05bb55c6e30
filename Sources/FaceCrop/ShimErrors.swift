// The C shims' error messages: the buffer each failing call writes its message into, and reading it.

/// The NUL-terminated message a C shim wrote into `buffer`.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Calls a shim function that reports a failure as a message in a buffer it is handed (pointer and size):
/// its result, and the message as one line (empty when it wrote none). The one place the shims' error buffers
/// are made.
func withErrorBuffer<R>(_ call: (UnsafeMutablePointer<CChar>, Int) -> R) -> (result: R, message: String) {
    var buffer = [CChar](repeating: 0, count: 512)
    let result = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
    return (result, oneLine(cString(buffer)))
}

/// A library's message made one line for "Error: ...": OpenCV's `what()` ends in a newline and some of its
/// messages hold more, real or written as the two characters backslash and n. Each run of them, with the
/// spaces around it, becomes "; ", and the ends are trimmed.
func oneLine(_ message: String) -> String {
    message.replacing("\\n", with: "\n").split(whereSeparator: \.isNewline)
        .compactMap { line -> Substring? in
            guard let first = line.firstIndex(where: { !$0.isWhitespace }), let last = line.lastIndex(where: { !$0.isWhitespace }) else { return nil }
            return line[first...last]
        }
        .joined(separator: "; ")
}

/// Runs `body`, which throws facecrop's errors and libvips' (so Swift sees `any Error`), as one typed throw:
/// a FaceCropError passes through, a VipsError becomes `vips(error)`. The one place that mapping is written.
func withVipsErrors<T>(_ body: () throws -> T, vips: (VipsError) -> FaceCropError) throws(FaceCropError) -> T {
    do {
        return try body()
    } catch let error as FaceCropError {
        throw error
    } catch let error as VipsError {
        throw vips(error)
    } catch {
        throw vips(VipsError(message: "\(error)"))  // nothing else is thrown in these blocks; kept total
    }
}
