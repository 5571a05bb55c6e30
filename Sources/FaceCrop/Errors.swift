import FaceCropCore

/// Everything that can go wrong in facecrop, with the exit status the command uses for it.
/// Messages are full sentences, readable after "error: ".
public enum FaceCropError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input does not exist (66).
    case inputNotFound(String)
    /// The input is a folder (66).
    case inputIsDirectory(String)
    /// The input is a FIFO, device or socket, refused from `stat` without opening it (66).
    case inputNotRegularFile(String)
    /// The input cannot be read (66): `reason` says why (no permission, a symbolic link to a missing file, a folder
    /// that cannot be listed or is nested too deep, a name that is not UTF-8).
    case inputUnreadable(String, reason: String)
    /// The input has 0 bytes (65).
    case inputEmpty(String)
    /// The input is in no format facecrop can read (65).
    case notAnImage(String)
    /// The input is an MP4 or QuickTime video given as an image (65); `best-frame` reads videos.
    case inputIsVideo(String)
    /// The input needs a libvips loader blocked for safety (65): `--allow-untrusted-loaders`,
    /// `FaceCropper.allowUntrustedLoaders`.
    case blockedLoader(String)
    /// The input is damaged or truncated, or starts like an image whose header cannot be read (65); `detail` is the
    /// decoder's words.
    case corruptImage(String, detail: String)
    /// The header gives over `limit` pixels (`--max-pixels`, `FaceCropper.maxPixels`): refused before decoding (65).
    case tooManyPixels(String, width: Int, height: Int, limit: Int)
    /// The input is over `limit` bytes (`--max-file-size`, `FaceCropper.maxFileSize`): refused before it is read (65).
    case fileTooLarge(String, bytes: Int, limit: Int)
    /// A format whose decoder holds the whole frame (progressive JPEG, interlaced PNG, GIF, WebP, HEIF) over
    /// the decode memory limit.
    case wholeFrameTooLarge(String, kind: String, width: Int, height: Int, bytes: Int, limit: Int)
    /// No face was found and the crop was to fail then (`--no-face fail`, `NoFacePolicy.fail`) (2).
    case noFace(String)
    /// The output's extension names no format facecrop writes, or this libvips cannot write it (64).
    case unsupportedOutputFormat(String)
    /// The output is an input of the run, by identity: facecrop never overwrites an input (64).
    case outputSameAsInput(String)
    /// An output path given twice (`-o X --contact-sheet X`), by identity.
    case outputsClash(String, String)
    /// A folder of outputs named by rank (`rank --copy-to`) that holds an input a copy could replace.
    case outputFolderHoldsInput(String, input: String)
    /// An existing FIFO, device or socket: facecrop replaces only regular files.
    case outputNotRegularFile(String)
    /// Output larger than the format can hold or than the output pixel limit.
    case outputTooLarge(String, width: Int, height: Int, reason: String)
    /// The output's folder does not exist or is not a folder (73).
    case outputDirectoryMissing(String)
    /// The output cannot be created or written (73): `reason` is the system's words (permission denied, no space left
    /// on device).
    case outputNotWritable(String, reason: String)
    /// Writing or encoding the output failed (73); `detail` says how.
    case writeFailed(String, detail: String)
    /// A model file given instead of a built-in model (`--model`) cannot be used (65): `reason` says why (not a
    /// regular file, too large, not a model OpenCV or dlib can read, another detector's model).
    case modelUnusable(String, reason: String)
    /// A face detector, landmark or expression model could not be loaded or run (1).
    case detector(String)
    /// An image operation failed otherwise (1); `detail` is the library's words.
    case imageProcessing(String)
    /// A library setting (`FaceCropper`, `CropOptions`) outside the range the command accepts for its option;
    /// the message is a whole sentence.
    case invalidSetting(String)

    /// Exit statuses (see README): 2 no face with --no-face fail, 64 usage, 65 bad input data,
    /// 66 input missing or unreadable, 73 output cannot be created, 1 anything else.
    public var exitCode: Int32 {
        switch self {
        case .noFace: return 2
        case .invalidSetting, .unsupportedOutputFormat, .outputSameAsInput, .outputsClash, .outputNotRegularFile, .outputTooLarge, .outputFolderHoldsInput:
            return 64
        case .inputEmpty, .notAnImage, .inputIsVideo, .blockedLoader, .corruptImage, .tooManyPixels, .fileTooLarge, .wholeFrameTooLarge, .modelUnusable:
            return 65
        case .inputNotFound, .inputIsDirectory, .inputNotRegularFile, .inputUnreadable: return 66
        case .outputDirectoryMissing, .outputNotWritable, .writeFailed: return 73
        case .detector, .imageProcessing: return 1
        }
    }

    /// The message: a full sentence, readable after "Error: ".
    public var description: String {
        switch self {
        case .inputNotFound(let p): return "Input '\(p)' does not exist."
        case .inputIsDirectory(let p): return "Input '\(p)' is a directory, not an image file."
        case .inputNotRegularFile(let p): return "Input '\(p)' is not a regular file."
        case .inputUnreadable(let p, let reason): return "Input '\(p)' cannot be read: \(reason)."
        case .inputEmpty(let p): return "Input '\(p)' is empty (0 bytes)."
        case .notAnImage(let p): return "Input '\(p)' is not an image format facecrop can read."
        case .inputIsVideo("-"): return "Standard input holds a video, not an image; 'facecrop best-frame' picks and saves a video file's best frame."
        case .inputIsVideo(let p): return "Input '\(p)' is a video, not an image; 'facecrop best-frame' picks and saves its best frame."
        case .blockedLoader(let p):
            return "Input '\(p)' needs a libvips loader that is blocked for safety; pass --allow-untrusted-loaders if you trust this file."
        case .corruptImage(let p, let detail): return "Input '\(p)' is damaged or truncated: \(detail)."
        case .tooManyPixels(let p, let w, let h, let limit):
            return
                "Input '\(p)' is \(w)x\(h) (\(w.multipliedReportingOverflow(by: h).partialValue) pixels), over the limit of \(limit) pixels; raise it with --max-pixels if you trust this file."
        case .fileTooLarge(let p, let bytes, let limit):
            let size = bytes < 0 ? "" : " \(bytes) bytes,"
            return "Input '\(p)' is\(size) over the limit of \(limit) bytes; raise it with --max-file-size if you trust this file."
        case .wholeFrameTooLarge(let p, let kind, let w, let h, let bytes, let limit):
            return
                "Input '\(p)' is \(kind) of \(w)x\(h) pixels, which is decoded whole in memory: about \(mebibytes(bytes, roundingUp: true)), over the limit of \(mebibytes(limit)); raise it with --max-decode-memory if you trust this file."
        case .noFace(let p): return "No face found in '\(p)'."
        case .unsupportedOutputFormat(let p):
            return "Output '\(p)' has an unsupported extension; use \(ImageFormat.choices(dotted: true))."
        case .outputSameAsInput(let p): return "Output '\(p)' is the input file; facecrop never overwrites its input."
        case .outputsClash(let a, let b):
            return a == b
                ? "Output '\(a)' is given twice; each output needs a file of its own."
                : "Outputs '\(a)' and '\(b)' are the same file; each output needs a file of its own."
        case .outputFolderHoldsInput(let p, let input):
            return "Output folder '\(p)' holds input '\(input)', which a copy named by rank could replace; copy to another folder."
        case .outputNotRegularFile(let p):
            return "Output '\(p)' exists and is not a regular file (a FIFO, device or socket); facecrop replaces only regular files."
        case .outputTooLarge(let p, let w, let h, let reason): return "Output '\(p)' would be \(w)x\(h) pixels, \(reason)."
        case .outputDirectoryMissing(let p): return "Output folder '\(p)' does not exist."
        case .outputNotWritable(let p, let reason): return "Cannot write to '\(p)': \(reason)."
        case .writeFailed(let p, let detail): return "Writing '\(p)' failed: \(detail)."
        case .modelUnusable(let p, let reason): return "Model file '\(p)' cannot be used: \(reason)."
        case .detector(let detail): return "Face detection failed: \(detail)."
        case .imageProcessing(let detail): return "Image processing failed: \(detail)."
        case .invalidSetting(let message): return message
        }
    }
}

/// A memory size in messages: whole MiB (rounded down, or up for an estimate), or bytes under one MiB, where
/// "0 MiB" would say nothing.
func mebibytes(_ bytes: Int, roundingUp: Bool = false) -> String {
    if bytes < 1 << 20 { return "\(bytes) bytes" }
    if bytes == .max { return "more than \(Int.max >> 20) MiB" }
    let whole = bytes >> 20
    return "\(roundingUp && bytes & ((1 << 20) - 1) != 0 ? whole + 1 : whole) MiB"
}
