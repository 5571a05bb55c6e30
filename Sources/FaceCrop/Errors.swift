import FaceCropCore

/// Everything that can go wrong in facecrop, with the exit status the command uses for it.
/// Messages are full sentences, readable after "error: ".
public enum FaceCropError: Error, Equatable, Sendable, CustomStringConvertible {
    case inputNotFound(String)
    case inputIsDirectory(String)
    case inputNotRegularFile(String)
    case inputUnreadable(String, reason: String)
    case inputEmpty(String)
    case notAnImage(String)
    case inputIsVideo(String)
    case blockedLoader(String)
    case corruptImage(String, detail: String)
    case tooManyPixels(String, width: Int, height: Int, limit: Int)
    case fileTooLarge(String, bytes: Int, limit: Int)
    case noFace(String)
    case unsupportedOutputFormat(String)
    case outputSameAsInput(String)
    case outputDirectoryMissing(String)
    case outputNotWritable(String, reason: String)
    case writeFailed(String, detail: String)
    case detector(String)
    case imageProcessing(String)

    /// Exit statuses (see README): 2 no face with --no-face fail, 64 usage, 65 bad input data,
    /// 66 input missing or unreadable, 73 output cannot be created, 1 anything else.
    public var exitCode: Int32 {
        switch self {
        case .noFace: return 2
        case .unsupportedOutputFormat, .outputSameAsInput: return 64
        case .inputEmpty, .notAnImage, .inputIsVideo, .blockedLoader, .corruptImage, .tooManyPixels, .fileTooLarge: return 65
        case .inputNotFound, .inputIsDirectory, .inputNotRegularFile, .inputUnreadable: return 66
        case .outputDirectoryMissing, .outputNotWritable: return 73
        case .writeFailed, .detector, .imageProcessing: return 1
        }
    }

    public var description: String {
        switch self {
        case .inputNotFound(let p): return "Input '\(p)' does not exist."
        case .inputIsDirectory(let p): return "Input '\(p)' is a directory, not an image file."
        case .inputNotRegularFile(let p): return "Input '\(p)' is not a regular file."
        case .inputUnreadable(let p, let reason): return "Input '\(p)' cannot be read: \(reason)."
        case .inputEmpty(let p): return "Input '\(p)' is empty (0 bytes)."
        case .notAnImage(let p): return "Input '\(p)' is not an image format facecrop can read."
        case .inputIsVideo(let p): return "Input '\(p)' is a video, not an image; 'facecrop best-frame' picks and saves its best frame."
        case .blockedLoader(let p):
            return "Input '\(p)' needs a libvips loader that is blocked for safety; pass --allow-untrusted-loaders if you trust this file."
        case .corruptImage(let p, let detail): return "Input '\(p)' is damaged or truncated: \(detail)."
        case .tooManyPixels(let p, let w, let h, let limit):
            return "Input '\(p)' is \(w)x\(h) (\(w * h) pixels), over the limit of \(limit) pixels; raise it with --max-pixels if you trust this file."
        case .fileTooLarge(let p, let bytes, let limit):
            return "Input '\(p)' is \(bytes) bytes, over the limit of \(limit) bytes; raise it with --max-file-size if you trust this file."
        case .noFace(let p): return "No face found in '\(p)'."
        case .unsupportedOutputFormat(let p):
            return "Output '\(p)' has an unsupported extension; use .jpg, .jpeg, .png, .webp, .tif, .tiff, .heic or .avif."
        case .outputSameAsInput(let p): return "Output '\(p)' is the input file; facecrop never overwrites its input."
        case .outputDirectoryMissing(let p): return "Output folder '\(p)' does not exist."
        case .outputNotWritable(let p, let reason): return "Cannot write to '\(p)': \(reason)."
        case .writeFailed(let p, let detail): return "Writing '\(p)' failed: \(detail)."
        case .detector(let detail): return "Face detection failed: \(detail)."
        case .imageProcessing(let detail): return "Image processing failed: \(detail)."
        }
    }
}
