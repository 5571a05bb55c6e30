// What best-frame works with: its options, the files of an input, each analysed candidate, the analysis
// as a whole and its timings.
import FaceCropCore
import Synchronization

/// How frames are sampled, gated and bounded.
public struct VideoOptions: Sendable {
    /// Frames evenly spaced over the duration (ignored with `everyFrame`).
    public var frames = 12
    /// Analyse every frame instead.
    public var everyFrame = false
    /// Score only frames where the scene is stable (the Live Photo's still always counts).
    public var stableOnly = false
    /// Manhattan length of the summed shifts under which the scene is stable, in analysis pixels.
    public var stabilityThreshold = 20.0
    public var historyLength = 15
    /// Refuse longer videos (seconds).
    public var maxDuration = 60.0
    /// Refuse to analyse more frames than this (every-frame mode on long videos; --frames).
    public var maxFrames = 900
    /// Consider a Live Photo's still beside the video (same name, .heic/.jpg) as a candidate.
    public var includeStill = true
    /// Keep the analysed frames (for a contact sheet).
    public var keepFrames = false
    public init() {}

    public static let videoExtensions = ["mov", "mp4", "m4v"]
    public static let stillExtensions = ["heic", "heif", "jpg", "jpeg"]
}

/// The files of one input: the video, and a Live Photo's still when there is one.
public struct VideoInput: Sendable, Hashable, Codable {
    public var video: String
    public var still: String?
}

/// One analysed candidate: a video frame or the still.
public struct FrameAnalysis: Sendable {
    public var time: Double?
    public var isStill: Bool
    public var faces: [FaceObservation]
    public var quality: [CaptureQuality]
    /// Registration against the previous frame (nil for the first frame after a jump, and the still).
    public var shift: Shift?
    public var response: Double?
    /// The summed shifts of the stability window, and whether the scene was stable (nil for the still).
    public var drift: Shift?
    public var stable: Bool?
    /// The analysed pixels, with `VideoOptions.keepFrames`.
    public var frame: RGBImage?
    /// The decoded frame, kept while this frame is among the best few so far: the chosen frame's full-resolution
    /// copy comes from it, without decoding it again.
    var kept: KeptFrame?
}

/// Everything the choice of a best frame was made from.
public struct VideoAnalysis: Sendable {
    public var input: VideoInput
    public var info: VideoInfo
    public var analysisSize: ImageSize
    /// Video frames in time order, then the still.
    public var frames: [FrameAnalysis]
    public var scores: [Double?]
    public var choice: FrameChoice
    public var timings = VideoTimings()
    /// The still read at full resolution (for writing it when it wins).
    let still: Analysis?

    public var chosenIndex: Int? {
        if case .chosen(let index, _) = choice { return index }
        return nil
    }
}

/// Milliseconds: opening and analysing every frame (decode overlapped), of which waiting for the decoder,
/// and writing the chosen frame.
public struct VideoTimings: Codable, Sendable, Hashable {
    public var analyze = 0.0
    public var decodeWait = 0.0
    public var write = 0.0
    public var total = 0.0
}
