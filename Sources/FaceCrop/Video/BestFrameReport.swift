// The `best-frame --json` and `stability --json` reports, made from a VideoAnalysis.
import FaceCropCore
import Synchronization

/// A size in pixels, as the video reports write it.
public struct SizeInfo: Codable, Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
}

/// `facecrop stability --json`.
public struct StabilityReport: Codable, Sendable {
    /// The facecrop version that made the report.
    public var version = FaceCropper.version
    /// The input as given: a video, or a Live Photo's still whose video beside it was read.
    public var input: String
    /// What the container says about the video stream: display size, rotation, duration, frame rate, frame
    /// count, codec.
    public var video: VideoInfo
    /// Size of the analysed frames: shifts are in these pixels.
    public var analysis: SizeInfo
    /// Drift under which the scene is stable, in analysis pixels (`--stability-threshold`).
    public var threshold: Double
    /// Frames whose shifts are summed for stability.
    public var history: Int
    /// Every frame, or the `--frames` sampled ones, in time order.
    public var frames: [StabilityFrame]
}

/// One frame of `facecrop stability --json`: its time, its shift from the previous frame, and whether the
/// picture was steady there.
public struct StabilityFrame: Codable, Sendable, Hashable {
    /// Position in `frames`, from 0.
    public var index: Int
    /// Seconds from the start of the video.
    public var time: Double
    /// Translation from the video frame just before this one, in analysis pixels (absent for the first frame
    /// after a jump).
    public var shift: Shift?
    /// Phase-correlation peak, 0...1.
    public var response: Double?
    /// Manhattan length of the window's drift (`StabilityTracker.drift`).
    public var drift: Double?
    /// Whether the scene was stable here: a full window of shifts whose drift is under the threshold.
    public var stable: Bool
}

extension BestFrameFinder {
    /// Fails early (before any decoding) when `output` cannot be written: extension, folder, not the input.
    public static func checkOutput(_ output: String, input: String) throws(VideoError) {
        do { try OutputCheck.writable(output, input: input) } catch { throw .image(error) }
    }

    /// Fails early when the outputs cannot be written or would replace an input: the given one, its video and
    /// its still (by identity), `alsoRead` (a model file), or each other (`-o X --contact-sheet X`).
    public static func checkOutputs(_ outputs: [String], input: String, resolved: VideoInput, alsoRead: [String] = []) throws(VideoError) {
        do {
            try OutputCheck.distinct(outputs)
            let inputs = InputSet([input, resolved.video] + (resolved.still.map { [$0] } ?? []) + alsoRead)
            for output in outputs { try OutputCheck.writable(output, inputs: inputs) }
        } catch {
            throw .image(error)
        }
    }

    /// The `--json` report.
    public func report(_ analysis: VideoAnalysis, output: OutputInfo? = nil, crop: CropInfo? = nil) -> BestFrameReport {
        let chosen = analysis.chosenIndex
        let frames = analysis.frames.enumerated().map { i, f in
            FrameReport(
                index: i, source: f.isStill ? "still" : "video", time: f.time?.rounded(4),
                faces: zip(f.faces, f.quality).map { face, q in
                    FrameFaceReport(
                        boundingBox: face.boundingBox.rounded(6), confidence: face.confidence.rounded(4), score: q.score.rounded(4),
                        components: q.components.mapValues { $0.rounded(4) })
                },
                score: analysis.scores[i]?.rounded(4), shift: f.shift.map { Shift(x: $0.x.rounded(3), y: $0.y.rounded(3)) },
                response: f.response?.rounded(4), drift: f.drift?.manhattan.rounded(3), stable: f.stable, finalist: f.finalist, chosen: i == chosen)
        }
        var chosenInfo: ChosenFrame?
        let outcome: String
        switch analysis.choice {
        case .chosen(let index, let reason):
            outcome = "chosen"
            let f = analysis.frames[index]
            chosenInfo = ChosenFrame(
                index: index, source: f.isStill ? "still" : "video", time: f.time?.rounded(4), score: analysis.scores[index]?.rounded(4) ?? 0, reason: reason)
        case .noFace: outcome = "noFace"
        case .noStableFace: outcome = "noStableFace"
        }
        var timings = analysis.timings
        timings.analyze = timings.analyze.rounded(2)
        timings.decodeWait = timings.decodeWait.rounded(2)
        timings.finalists = timings.finalists.rounded(2)
        timings.write = timings.write.rounded(2)
        timings.total = timings.total.rounded(2)
        return BestFrameReport(
            input: analysis.input, video: analysis.info,
            analysis: VideoAnalysisInfo(
                width: analysis.analysisSize.width, height: analysis.analysisSize.height, detector: cropper.detector.kind,
                threshold: cropper.threshold, mode: options.everyFrame ? "every-frame" : "sampled",
                requested: options.everyFrame ? nil : options.frames, screen: analysis.screen),
            stability: StabilitySettings(threshold: options.stabilityThreshold, history: options.historyLength, stableOnly: options.stableOnly),
            frames: frames, outcome: outcome, chosen: chosenInfo, crop: crop, output: output, timings: timings)
    }
}

/// `facecrop best-frame --json` (fields in docs/json.md).
public struct BestFrameReport: Codable, Sendable {
    /// The facecrop version that made the report.
    public var version = FaceCropper.version
    /// The video read, and the Live Photo's still beside it (absent without one, or with `--no-still`).
    public var input: VideoInput
    /// What the container says about the video stream: display size, rotation, duration, frame rate, frame
    /// count, codec.
    public var video: VideoInfo
    /// The size, detector and mode the frames were analysed with, and the screen.
    public var analysis: VideoAnalysisInfo
    /// The stability settings the frames were judged with.
    public var stability: StabilitySettings
    /// The video frames analysed, in time order, then the still.
    public var frames: [FrameReport]
    /// "chosen", "noFace" or "noStableFace".
    public var outcome: String
    /// The chosen frame and why; absent unless `outcome` is "chosen".
    public var chosen: ChosenFrame?
    /// The crop of the chosen frame at full resolution, as for `facecrop crop`; absent without `-o`, or when the
    /// whole frame was written.
    public var crop: CropInfo?
    /// The chosen frame as written; absent without `-o`, or when no frame was chosen.
    public var output: OutputInfo?
    /// Milliseconds per stage.
    public var timings: VideoTimings
}

/// What the frames were analysed at (`analysis` in `facecrop best-frame --json`): size, detector, mode.
public struct VideoAnalysisInfo: Codable, Sendable {
    /// Width in pixels of the frames the finalists (or, with no screen, all frames) were analysed at: the
    /// video's display aspect, long side `--detect-size`.
    public var width: Int
    /// Height in pixels of those frames.
    public var height: Int
    /// The detector that found the finalists' and the still's faces.
    public var detector: DetectorKind
    /// That detector's confidence threshold.
    public var threshold: Double
    /// "sampled" or "every-frame".
    public var mode: String
    /// Frames asked for in sampled mode.
    public var requested: Int?
    /// How the frames were screened before the finalists were scored in full (absent: every frame was).
    public var screen: ScreenInfo?
}

/// The stability settings a best frame was chosen with: threshold, window length, `--stable-only`.
public struct StabilitySettings: Codable, Sendable {
    /// Drift (Manhattan length, `StabilityTracker.drift`) under which the scene is stable, in analysis pixels.
    public var threshold: Double
    /// Frames whose shifts are summed for stability.
    public var history: Int
    /// Only stable frames (and the still) could be chosen (`--stable-only`).
    public var stableOnly: Bool
}

/// One candidate frame (or the Live Photo's still) in `facecrop best-frame --json`: its faces, score and
/// stability, whether it was a finalist, and whether it was chosen.
public struct FrameReport: Codable, Sendable {
    /// Position in `frames`, from 0.
    public var index: Int
    /// "video" or "still".
    public var source: String
    /// Seconds from the start of the video; absent for the still.
    public var time: Double?
    /// The faces found, with their capture quality (by the screen's detector in a frame screened only).
    public var faces: [FrameFaceReport]
    /// Frame score (absent without a face).
    public var score: Double?
    /// Translation from the video frame before it, in analysis pixels (positive: right, down); absent for the
    /// first frame after a jump, and for the still.
    public var shift: Shift?
    /// Phase-correlation peak, 0...1 (how sure `shift` is); absent with `shift`.
    public var response: Double?
    /// Manhattan length of the stability window's drift (`StabilityTracker.drift`), in analysis pixels; absent with
    /// `shift`.
    public var drift: Double?
    /// Whether the scene was stable at this frame; absent for the still.
    public var stable: Bool?
    /// Scored in full (false: screened only, not a candidate for the choice).
    public var finalist: Bool
    /// Whether this is the chosen frame.
    public var chosen: Bool
}

/// One face of a candidate frame: where it is, the detector's confidence, and its capture quality with the
/// components the score is made of.
public struct FrameFaceReport: Codable, Sendable {
    /// Vision-style: normalized 0...1, origin bottom-left.
    public var boundingBox: Rect
    /// The detector's score, 0...1 (the screen's detector in a frame screened only).
    public var confidence: Double
    /// Capture quality, 0...1, higher is better.
    public var score: Double
    /// The components the score is made of, each 0...1; those not measured are absent (no `eyes`, `mouth`
    /// or `expression` in a frame screened only).
    public var components: [QualityComponent: Double]
}

/// The frame `BestFrameFinder` chose, with its score and the reason it won.
public struct ChosenFrame: Codable, Sendable {
    /// Position of the chosen frame in `frames`.
    public var index: Int
    /// "video" or "still".
    public var source: String
    /// Seconds from the start of the video; absent for the still.
    public var time: Double?
    /// Its frame score, 0...1.
    public var score: Double
    /// A sentence saying what decided: the highest frame score, and the tie-break when one was needed.
    public var reason: String
}
