// libvips' reading errors turned into FaceCropError, with a second read of the input to tell whose error it was.
import FaceCropCore

extension FaceCropper {
    /// Reads `path` once more with libvips to itself (its header, then all its pixels: in memory within the
    /// single-pass budget, else shrunk on load); the error, if that fails.
    static func rereadFailure(_ input: ImageInput) -> VipsError? {
        VipsImage.exclusively { () -> VipsError? in
            _ = VipsError.take()  // messages of calls that overlapped the failure: their threads read again too
            do throws(VipsError) {
                let header = try input.open(sequential: true)
                _ = try header.decodedBytes > defaultSinglePassBytes ? input.thumbnail(box: 640) : header.inMemory()
                return nil
            } catch {
                return error
            }
        }
    }

    /// libvips' reading errors in facecrop's words. A message may belong to another thread's failure
    /// (libvips' error buffer is process-wide), so a failed file is read once more with libvips to itself:
    /// its header, then all its pixels (in memory within the single-pass budget, else shrunk on load).
    static func readError(_ input: ImageInput, _ error: VipsError) -> FaceCropError {
        let path = input.name
        var error = error
        if error.kind == .other, let again = rereadFailure(input) { error = again }
        switch error.kind {
        case .notAnImage:
            let format: String?
            switch input {
            case .file(let path): format = InputCheck.announcedFormat(path)
            case .memory(let blob, _): format = InputCheck.announcedFormat(head: blob.head)
            }
            guard let format else { return .notAnImage(path) }
            if format == InputCheck.video { return .inputIsVideo(path) }
            return .corruptImage(path, detail: "it starts like a \(format) file, but its header cannot be read")
        case .blocked: return .blockedLoader(path)
        case .other: break
        }
        let m = error.message
        if m.contains("operation is blocked") { return .blockedLoader(path) }
        if m.contains("not in a known format") || m.contains("is not a known") {
            return .notAnImage(path)
        }
        var detail = m
        if let colon = m.firstIndex(of: ":"), !m[..<colon].contains(" ") { detail = String(m[m.index(after: colon)...]) }
        detail = String(detail.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        while detail.hasSuffix(".") { detail.removeLast() }
        return .corruptImage(path, detail: detail.isEmpty ? m : detail)
    }
}
