// The `best-frame --json` and `stability --json` reports, made from a VideoAnalysis.
import FaceCropCore
import Synchronization

/// A size in pixels, as the video reports write it.
public struct SizeInfo: Codable, Sendable, Hashable {
    public var width: Int
    public var height: Int
}

/// `facecrop stability --json`.
public struct StabilityReport: Codable, Sendable {
    public var version = FaceCropper.version
    public var input: String
    public var video: VideoInfo
    /// Size of the analysed frames: shifts are in these pixels.
    public var analysis: SizeInfo
    public var threshold: Double
    public var history: Int
    public var frames: [StabilityFrame]
}

/// One frame of `facecrop stability --json`: its time, its shift from the previous frame, and whether the
/// picture was steady there.
public struct StabilityFrame: Codable, Sendable, Hashable {
    public var index: Int
    public var time: Double
    /// Translation from the previous analysed frame (absent for the first).
    public var shift: Shift?
    /// Phase-correlation peak, 0...1.
    public var response: Double?
    /// Manhattan length of the summed shifts over the window.
    public var drift: Double?
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

/// `facecrop best-frame --json` (schema in README).
public struct BestFrameReport: Codable, Sendable {
    public var version = FaceCropper.version
    public var input: VideoInput
    public var video: VideoInfo
    public var analysis: VideoAnalysisInfo
    public var stability: StabilitySettings
    public var frames: [FrameReport]
    /// "chosen", "noFace" or "noStableFace".
    public var outcome: String
    public var chosen: ChosenFrame?
    public var crop: CropInfo?
    public var output: OutputInfo?
    public var timings: VideoTimings
}

/// What the frames were analysed at (`analysis` in `facecrop best-frame --json`): size, detector, mode.
public struct VideoAnalysisInfo: Codable, Sendable {
    public var width: Int
    public var height: Int
    public var detector: DetectorKind
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
    public var threshold: Double
    public var history: Int
    public var stableOnly: Bool
}

/// One candidate frame (or the Live Photo's still) in `facecrop best-frame --json`: its faces, score and
/// stability, whether it was a finalist, and whether it was chosen.
public struct FrameReport: Codable, Sendable {
    public var index: Int
    /// "video" or "still".
    public var source: String
    public var time: Double?
    public var faces: [FrameFaceReport]
    /// Frame score (absent without a face).
    public var score: Double?
    public var shift: Shift?
    public var response: Double?
    public var drift: Double?
    public var stable: Bool?
    /// Scored in full (false: screened only, not a candidate for the choice).
    public var finalist: Bool
    public var chosen: Bool
}

/// One face of a candidate frame: where it is, the detector's confidence, and its capture quality with the
/// components the score is made of.
public struct FrameFaceReport: Codable, Sendable {
    /// Vision-style: normalized 0...1, origin bottom-left.
    public var boundingBox: Rect
    public var confidence: Double
    public var score: Double
    public var components: [QualityComponent: Double]
}

/// The frame `BestFrameFinder` chose, with its score and the reason it won.
public struct ChosenFrame: Codable, Sendable {
    public var index: Int
    public var source: String
    public var time: Double?
    public var score: Double
    public var reason: String
}
