// FFmpeg's libraries through CVideo (the only user of that shim), plus frame registration (through COpenCV).
import COpenCV
import CVideo
import FaceCropCore

/// What can go wrong with a video input, with the exit status the command uses for it.
public enum VideoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No demuxer reads the file as a video (65); `detail` is FFmpeg's words.
    case notAVideo(String, detail: String)
    /// The container has no video stream, only audio or a cover picture (65).
    case noVideoStream(String)
    /// No decoder for the video's codec, or the decoder would not start (65).
    case unsupportedCodec(String, detail: String)
    /// Samples the container lists lie past the end of the file, as in a cut-off download (65).
    case truncated(String)
    /// An MP4 or QuickTime file without its index (`moov`), as one cut off before its end (65).
    case noIndex(String)
    /// The streams cannot be read, or the decoder refused the data (65).
    case damaged(String, detail: String)
    /// A video stream without a single frame (65).
    case noFrames(String)
    /// Over `limit` seconds (`--max-duration`), from the container's duration or a frame's time past it (65).
    case tooLong(String, seconds: Double, limit: Double)
    /// More frames to analyse than `limit` (`--max-frames`): every frame the container counts with `--every-frame`,
    /// else the `--frames` asked (65).
    case tooManyFrames(String, frames: Int, limit: Int)
    /// Frames over `limit` pixels (`--max-pixels`), refused from the stream's coded size before any is decoded (65).
    case frameTooLarge(String, width: Int, height: Int, limit: Int)
    /// A Live Photo still without a readable video beside it; `looked` lists the paths tried (66).
    case stillWithoutVideo(String, looked: [String])
    /// No face in any of the `frames` frames analysed (2).
    case noFace(String, frames: Int)
    /// With `VideoOptions.stableOnly` (`--stable-only`), faces only in frames where the scene was not stable (2).
    case noStableFace(String, frames: Int)
    /// FFmpeg or the frame registration failed otherwise (1).
    case decoder(String)
    /// A problem of the image pipeline (the still, the output).
    case image(FaceCropError)

    /// 2 no face in any frame; 65 not a readable video; 66 a still without its video (and input problems
    /// as for images); others as the image pipeline's.
    public var exitCode: Int32 {
        switch self {
        case .noFace, .noStableFace: return 2
        case .notAVideo, .noVideoStream, .unsupportedCodec, .truncated, .noIndex, .damaged, .noFrames, .tooLong, .tooManyFrames, .frameTooLarge: return 65
        case .stillWithoutVideo: return 66
        case .decoder: return 1
        case .image(let e): return e.exitCode
        }
    }

    /// The message: a full sentence, readable after "Error: ".
    public var description: String {
        switch self {
        case .notAVideo(let p, let detail): return "Input '\(p)' is not a video facecrop can read (\(detail))."
        case .noVideoStream(let p): return "Input '\(p)' has no video stream."
        case .unsupportedCodec(let p, let detail): return "Input '\(p)' cannot be decoded: \(detail)."
        case .truncated(let p): return "Input '\(p)' is truncated: the file ends before the video data it lists."
        case .noIndex(let p): return "Input '\(p)' is truncated or damaged: it is an MP4/QuickTime file without its index (the 'moov' box)."
        case .damaged(let p, let detail): return "Input '\(p)' is damaged: \(detail)."
        case .noFrames(let p): return "Input '\(p)' contains no video frames."
        case .tooLong(let p, let s, let limit):
            return
                "Input '\(p)' lasts \(String((s * 10).rounded() / 10)) s, over the limit of \(String(limit)) s; raise it with --max-duration if you trust this file."
        case .tooManyFrames(let p, let n, let limit):
            return "Input '\(p)' has \(n) frames, over the limit of \(limit) analysed frames; raise it with --max-frames or sample with --frames."
        case .frameTooLarge(let p, let w, let h, let limit):
            return
                "Input '\(p)' has frames of \(w)x\(h) (\(w * h) pixels), over the limit of \(limit) pixels; raise it with --max-pixels if you trust this file."
        case .stillWithoutVideo(let p, let looked):
            return "No video found beside the still '\(p)' (looked for \(looked.map { "'\($0)'" }.joined(separator: ", ")))."
        case .noFace(let p, let n): return "No face found in any of the \(n) frames analysed of '\(p)'."
        case .noStableFace(let p, let n):
            return "No face found in a stable frame of '\(p)' (\(n) frames analysed); drop --stable-only or raise --stability-threshold."
        case .decoder(let detail): return "Video decoding failed: \(detail)."
        case .image(let e): return e.description
        }
    }
}

/// What the container says about the video stream.
public struct VideoInfo: Codable, Sendable, Hashable {
    /// Display size (after rotation).
    public var width: Int
    /// Display height (after rotation).
    public var height: Int
    /// Clockwise quarter turn applied for display (the phone's rotation metadata): 0, 90, 180, 270.
    public var rotation: Int
    /// Seconds.
    public var duration: Double
    /// Frames per second (the stream's average rate).
    public var fps: Double
    /// Frames in the stream, as the container counts them (estimated from the duration when it does not).
    public var frameCount: Int
    /// FFmpeg's name of the codec ("h264", "hevc", ...).
    public var codec: String
}

/// One decoded frame in display orientation, with its time in seconds: in greyscale at the registration
/// size, and in RGB at the analysis size when it is a frame to analyse.
struct VideoFrame: Sendable {
    /// Seconds from the start.
    var time: Double
    /// RGB at the analysis size; nil for a frame that is only registered.
    var image: RGBImage?
    /// 8-bit greyscale at the registration size (`greySize`), row by row.
    var grey: [UInt8]
    /// The size of `grey`, in pixels.
    var greySize: ImageSize
    /// The decoded frame itself, kept when asked for (a frame to analyse), for a full-resolution copy later.
    var kept: KeptFrame?
}

/// A decoded frame kept without copying its pixels (FFmpeg's reference-counted buffers), converted to RGB at
/// full resolution only if it is chosen. Immutable once made and independent of its decoder; the conversion
/// uses a scaler of its own, hence @unchecked Sendable.
final class KeptFrame: @unchecked Sendable {
    private let pointer: OpaquePointer

    init?(_ pointer: OpaquePointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit { video_kept_free(pointer) }

    /// The frame in RGB at `size` (display orientation).
    func rgb(_ size: ImageSize) throws(VideoError) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
        let (rc, message) = withErrorBuffer { error, errorSize in
            pixels.withUnsafeMutableBufferPointer { video_kept_convert(pointer, Int32(size.width), Int32(size.height), $0.baseAddress, error, errorSize) }
        }
        guard rc == VIDEO_OK else { throw .decoder("the chosen frame could not be converted: \(message)") }
        return RGBImage(trusted: size.width, height: size.height, pixels: pixels)
    }
}

/// An open video. Not thread-safe: one caller at a time (the best-frame pipeline reads it from its decoding
/// thread only, and joins that thread before letting go of it), hence @unchecked Sendable.
final class VideoDecoder: @unchecked Sendable {
    let path: String
    let info: VideoInfo
    private let pointer: OpaquePointer

    /// Opens the video; frames of more than `maxPixels` are refused before any is decoded.
    init(_ path: String, maxPixels: Int, threads: Int = 0) throws(VideoError) {
        var handle: OpaquePointer?
        var raw = VideoStreamInfo()
        let (status, message) = withErrorBuffer { video_open(path, Int32(threads), Int64(maxPixels), &handle, &raw, $0, $1) }
        let rc = Int(status)
        if rc == VIDEO_TOO_LARGE {
            throw .frameTooLarge(path, width: Int(raw.coded_width), height: Int(raw.coded_height), limit: maxPixels)
        }
        guard rc == VIDEO_OK, let handle else { throw Self.error(rc, path: path, message: message) }
        pointer = handle
        self.path = path
        let codec = withUnsafeBytes(of: raw.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        info = VideoInfo(
            width: Int(raw.width), height: Int(raw.height), rotation: Int(raw.rotation), duration: raw.duration,
            fps: raw.fps, frameCount: raw.frame_count, codec: codec)
    }

    deinit { video_close(pointer) }

    /// The frame nearest `time`, the first that starts at most half a frame before it (nil: the next one); nil at the end. Its greyscale copy is `grey`
    /// in size; its RGB copy, `rgb` in size, is made only when the frame is at or after `rgbFrom` (within half a frame).
    /// With `keep`, a frame converted to RGB also keeps its decoded pixels (`VideoFrame.kept`).
    func read(at time: Double?, rgbFrom: Double, rgb: ImageSize?, grey: ImageSize, keep: Bool = false) throws(VideoError) -> VideoFrame? {
        var pixels = [UInt8](repeating: 0, count: rgb.map { $0.width * $0.height * 3 } ?? 0)
        var greyPixels = [UInt8](repeating: 0, count: grey.width * grey.height)
        var frameTime = 0.0
        var converted: Int32 = 0
        let (rc, message) = withErrorBuffer { error, size in
            pixels.withUnsafeMutableBufferPointer { buffer in
                greyPixels.withUnsafeMutableBufferPointer { g in
                    Int(
                        video_read(
                            pointer, time ?? -1, rgbFrom, Int32(rgb?.width ?? 0), Int32(rgb?.height ?? 0), rgb == nil ? nil : buffer.baseAddress, &converted,
                            Int32(grey.width), Int32(grey.height), g.baseAddress, &frameTime, error, size))
                }
            }
        }
        if rc == VIDEO_END { return nil }
        guard rc == VIDEO_OK else { throw Self.error(rc, path: path, message: message) }
        let image = converted != 0 ? RGBImage(trusted: rgb!.width, height: rgb!.height, pixels: pixels) : nil
        let kept = keep && converted != 0 ? KeptFrame(video_keep(pointer)) : nil
        return VideoFrame(time: frameTime, image: image, grey: greyPixels, greySize: grey, kept: kept)
    }

    /// From now on, of the frames no other frame refers to (most B-frames), decodes only those within half a frame
    /// of `times`: the others are never returned. Empty: every frame again.
    func decodeOnly(_ times: [Double]) throws(VideoError) {
        guard times.withUnsafeBufferPointer({ video_decode_only(pointer, $0.baseAddress, Int32(clamping: $0.count)) }) == VIDEO_OK else {
            throw .decoder("out of memory")
        }
    }

    /// One frame in RGB at `size` (the full-resolution copy of a chosen frame).
    func readRGB(at time: Double, size: ImageSize) throws(VideoError) -> RGBImage? {
        try read(at: time, rgbFrom: 0, rgb: size, grey: ImageSize(width: 8, height: 8))?.image
    }

    private static func error(_ rc: Int, path: String, message: String) -> VideoError {
        switch rc {
        case VIDEO_NOT_A_VIDEO: return .notAVideo(path, detail: message)
        case VIDEO_NO_VIDEO_STREAM: return .noVideoStream(path)
        case VIDEO_UNSUPPORTED_CODEC: return .unsupportedCodec(path, detail: message)
        case VIDEO_TRUNCATED: return .truncated(path)
        case VIDEO_NO_INDEX: return .noIndex(path)
        case VIDEO_DAMAGED: return .damaged(path, detail: message)
        case VIDEO_NO_FRAMES: return .noFrames(path)
        default: return .decoder(message)
        }
    }
}

/// Image registration between consecutive frames (phase correlation, OpenCV) on their greyscale copies.
enum Registration {
    /// How far the content moved from `previous` to `current`, in their pixels, and the correlation peak.
    static func shift(from previous: VideoFrame, to current: VideoFrame) throws(VideoError) -> (shift: Shift, response: Double) {
        var dx = 0.0
        var dy = 0.0
        var response = 0.0
        let size = current.greySize
        let (rc, message) = withErrorBuffer { error, errorSize in
            previous.grey.withUnsafeBufferPointer { a in
                current.grey.withUnsafeBufferPointer { b in
                    ocv_phase_correlate(a.baseAddress, b.baseAddress, Int32(size.width), Int32(size.height), &dx, &dy, &response, error, errorSize)
                }
            }
        }
        guard rc == 0 else { throw .decoder("registration failed: \(message)") }
        return (Shift(x: dx, y: dy), response)
    }
}
