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
    /// Manhattan length of the window's drift (`StabilityTracker.drift`) under which the scene is stable, in
    /// analysis pixels.
    public var stabilityThreshold = 20.0
    /// Frames whose shifts are summed for stability (Apple's sample: 15).
    public var historyLength = 15
    /// Refuse longer videos (seconds).
    public var maxDuration = 60.0
    /// Refuse to analyse more frames than this (every-frame mode on long videos; --frames).
    public var maxFrames = 900
    /// Consider a Live Photo's still beside the video (same name, .heic/.jpg) as a candidate.
    public var includeStill = true
    /// Keep the analysed frames (for a contact sheet).
    public var keepFrames = false
    /// The contact sheet the caller will write (`writeContactSheet`): refused as soon as the number of frames is
    /// known, before any is decoded, when it would not fit (`ContactSheet`) or its encoder would take more than
    /// the cropper's `maxEncodeMemory`.
    public var contactSheet: String?
    /// Frames scored in full (`BestFrameFinder`'s second stage); the others are screened only. As many as the
    /// frames analysed, or more: every frame in full, nothing screened.
    public var finalists = 3

    /// The defaults: 12 frames, 3 finalists, the still considered, 60 s and 900 frames at most.
    public init() {}

    /// Extensions taken as videos, and those a Live Photo's still beside one may have.
    public static let videoExtensions = ["mov", "mp4", "m4v"]
    /// Extensions a Live Photo's still may have.
    public static let stillExtensions = ["heic", "heif", "jpg", "jpeg"]
}

/// The files of one input: the video, and a Live Photo's still when there is one.
public struct VideoInput: Sendable, Hashable, Codable {
    /// The video's path.
    public var video: String
    /// The still's path; nil without one (or with `VideoOptions.includeStill` off).
    public var still: String?
}

/// One analysed candidate: a video frame or the still.
public struct FrameAnalysis: Sendable {
    /// Seconds from the start; nil for the still.
    public var time: Double?
    /// The Live Photo's still rather than a video frame.
    public var isStill: Bool
    /// The faces found (by the screen's detector for a frame screened only).
    public var faces: [FaceObservation]
    /// Each face's capture quality, in the order of `faces`.
    public var quality: [CaptureQuality]
    /// Registration against the previous frame (nil for the first frame after a jump, and the still), and the
    /// phase correlation's peak (how sure the shift is, 0...1).
    public var shift: Shift?
    /// Phase-correlation peak, 0...1 (how sure `shift` is); nil with `shift`.
    public var response: Double?
    /// The stability window's drift (`StabilityTracker.drift`), and whether the scene was stable (nil for the still).
    public var drift: Shift?
    /// Whether the scene was stable at this frame (never before the window is full); nil for the still.
    public var stable: Bool?
    /// The analysed pixels, with `VideoOptions.keepFrames`.
    public var frame: RGBImage?
    /// Scored in full; false: screened only (a faster detector, no eyes, mouth or expression), and not a
    /// candidate for the choice.
    public var finalist = true
    /// The decoded frame, kept while this frame is among the best few so far: the finalists' analysis copies and
    /// the chosen frame's full-resolution copy come from it, without decoding it again.
    var kept: KeptFrame?
}

/// How the frames were screened before the finalists were scored in full (`BestFrameFinder.analyze`).
public struct ScreenInfo: Codable, Sendable, Hashable {
    /// The screen's detector and its threshold, and the size of the frames it looked at.
    public var detector: DetectorKind
    /// The screen's detector's confidence threshold (YuNet's own when it stands in for CenterFace).
    public var threshold: Double
    /// Width in pixels of the frames the screen's detector looked at (long side half the analysis size).
    public var width: Int
    /// Height in pixels of those frames.
    public var height: Int
    /// Frames asked to be scored in full.
    public var finalists: Int
}

/// Everything the choice of a best frame was made from.
public struct VideoAnalysis: Sendable {
    /// The files analysed.
    public var input: VideoInput
    /// What the container says about the video stream.
    public var info: VideoInfo
    /// The size the finalists (or, when nothing was screened, all frames) were analysed at.
    public var analysisSize: ImageSize
    /// How the frames were screened; nil: every frame was scored in full.
    public var screen: ScreenInfo?
    /// Video frames in time order, then the still.
    public var frames: [FrameAnalysis]
    /// Each frame's score (`FrameSelection.scores`), in the order of `frames`; nil for a frame without a face.
    public var scores: [Double?]
    /// The chosen frame and why, or why none was.
    public var choice: FrameChoice
    /// Milliseconds per stage: `BestFrameFinder.analyze` sets `analyze`, `decodeWait` and `finalists`; the caller
    /// sets `write` and `total`.
    public var timings = VideoTimings()
    /// The still read at full resolution (for writing it when it wins).
    let still: Analysis?

    /// The index in `frames` of the choice; nil when none was chosen.
    public var chosenIndex: Int? {
        if case .chosen(let index, _) = choice { return index }
        return nil
    }
}

/// Milliseconds: opening and analysing every frame (decode overlapped), of which waiting for the decoder and
/// scoring the finalists in full, and writing the chosen frame.
public struct VideoTimings: Codable, Sendable, Hashable {
    /// Milliseconds spent opening and analysing the input: decoding, registration, screen, finalists, still.
    public var analyze = 0.0
    /// Milliseconds of `analyze` spent waiting for the decoder.
    public var decodeWait = 0.0
    /// Milliseconds of `analyze` spent scoring the finalists in full (with loading the landmark model, when it is
    /// first used there).
    public var finalists = 0.0
    /// Milliseconds spent writing the chosen frame (set by the caller); 0 when none was written.
    public var write = 0.0
    /// Milliseconds for the whole run, analysis and outputs included; 0 until the caller sets it.
    public var total = 0.0
}
