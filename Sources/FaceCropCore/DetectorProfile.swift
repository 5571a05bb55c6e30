/// The face detectors facecrop can run.
public enum DetectorKind: String, Sendable, CaseIterable, Codable {
    /// CenterFace through OpenCV's dnn module (the default): finds the most faces, small and masked ones
    /// included, at several times YuNet's cost. The model is built into facecrop.
    case centerface
    /// YuNet 2023mar through OpenCV's dnn module: the fast choice. The model is built into facecrop.
    case yunet
    /// OpenCV's frontal-face Haar cascade from Debian's opencv-data: no model file needed, far less accurate.
    case haar

    /// What facecrop knows about this detector's scores and boxes.
    public var profile: DetectorProfile {
        switch self {
        case .centerface: .centerface
        case .yunet: .yunet
        case .haar: .haar
        }
    }
}

/// Everything that depends on which detector drew a face's box: its default threshold and analysis size, the
/// shape of its boxes of whole faces, how sure its scores are, and where dlib's landmark predictor wants its box.
/// Each detector's numbers were measured, not guessed: `scripts/detector-sweep.py` (threshold, analysis size,
/// on the faces-dev photos) and `scripts/detector-boxes.py` (box shapes and scores); docs/accuracy.md has the
/// figures.
public struct DetectorProfile: Sendable, Hashable {
    /// Default score threshold, 0...1.
    public var threshold: Double
    /// Default long side, in pixels, of the image the detector sees.
    public var analysisSize: Int
    /// Width over height of whole faces' boxes: 10th and 90th percentiles. A box at the image's border that is
    /// narrower (or shorter) than that shows the share of the face the border cuts off.
    public var narrowestFace: Double
    /// The 90th percentile of whole faces' width over height (see `narrowestFace`).
    public var widestFace: Double
    /// A box edge this close to the image's edge (share of the box's height) is at the border.
    public var borderTolerance: Double
    /// Scores at or above `sureFace` count as certain faces, at or below `unsureFace` as doubtful ones (blur,
    /// rotation, occlusion): the capture quality's confidence component ramps between them.
    public var sureFace: Double
    /// Score at or below which the confidence component is 0 (see `sureFace`).
    public var unsureFace: Double
    /// dlib's 68-point predictor was trained on boxes of its own detector (square, brows to chin): the box to
    /// give it is a square `predictorSide` times the detector box's mean side, its centre moved down by
    /// `predictorShift` of the box's height.
    public var predictorSide: Double
    /// How far down the predictor's square is moved, as a share of the detector box's height (see
    /// `predictorSide`).
    public var predictorShift: Double

    /// The box to give dlib's landmark predictor for a face this detector boxed, both in pixels.
    public func predictorBox(forDetectorBox b: Rect) -> Rect {
        let side = predictorSide * (b.width + b.height) / 2
        return Rect(x: b.midX - side / 2, y: b.midY + predictorShift * b.height - side / 2, width: side, height: side)
    }

    /// YuNet 2023mar: threshold 0.75 and analysis size 640 from a grid on faces-dev; whole faces 0.71–0.83
    /// (45 faces of Samples/ and Golden/); YuNet boxes only the visible part of a cut face, ending 1–5 % of
    /// their height short of the border; dlib's box a median 1.12× YuNet's width and 0.89× its height, 0.05 of
    /// its height lower (18 faces of faces-dev's dlib subset).
    public static let yunet = DetectorProfile(
        threshold: 0.75, analysisSize: 640, narrowestFace: 0.71, widestFace: 0.83, borderTolerance: 0.05,
        sureFace: 0.93, unsureFace: 0.70, predictorSide: 1.0, predictorShift: 0.05)

    /// CenterFace: threshold 0.5 and analysis size 640 from a sweep on faces-dev (sizes 320–640, thresholds
    /// 0.3–0.8); whole faces 0.68–0.88 (the same 45 faces); like YuNet it boxes only the visible part of a cut
    /// face; dlib's box a median 1.14× its width and 0.84× its height, 0.035 of its height lower (a square 0.97×
    /// the mean side); scores of true faces have their 90th percentile at 0.90 (YuNet's at 0.93), and the ramp
    /// maps YuNet's onto CenterFace's scale through their 10th and 90th percentiles.
    public static let centerface = DetectorProfile(
        threshold: 0.5, analysisSize: 640, narrowestFace: 0.68, widestFace: 0.88, borderTolerance: 0.05,
        sureFace: 0.90, unsureFace: 0.34, predictorSide: 0.97, predictorShift: 0.035)

    /// Haar: its scores are the cascade's last-stage weight squashed into 0...1; its box constants are YuNet's
    /// (not measured separately: the cascade is the model-free fallback).
    public static let haar = DetectorProfile(
        threshold: 0.5, analysisSize: 640, narrowestFace: 0.71, widestFace: 0.83, borderTolerance: 0.05,
        sureFace: 0.93, unsureFace: 0.70, predictorSide: 1.0, predictorShift: 0.05)
}
