// Capture quality: each face cut from the full-resolution pixels, measured by COpenCV, scored by
// FaceCropCore.QualityModel.
import COpenCV
import FaceCropCore
import Synchronization

/// Per image: the mean capture quality over its faces (as Apple's selfie sample ranks), with min and max.
public struct ImageQuality: Codable, Sendable, Hashable {
    /// The mean of the faces' scores, 0...1.
    public var mean: Double
    /// The lowest face score.
    public var min: Double
    /// The highest face score.
    public var max: Double
    /// How many faces were scored.
    public var faces: Int

    /// The summary of `faces`; nil without any.
    public init?(_ faces: [CaptureQuality]) {
        guard !faces.isEmpty else { return nil }
        self.faces = faces.count
        let scores = faces.map(\.score)
        mean = scores.reduce(0, +) / Double(scores.count)
        min = scores.min()!
        max = scores.max()!
    }
}

/// Measures and scores faces. The expression model is not thread-safe: calls are serialised by a mutex.
public final class QualityAnalyzer: Sendable {
    /// The scoring constants and weights.
    public let model: QualityModel
    /// dlib's 68-point predictor, for eye and mouth openness and the landmark regions; nil: the detector's 5
    /// points only (no eyes or mouth component). Loaded on first use (`loadingLandmarksOnFirstUse`): nil until
    /// an assessment has loaded it.
    public var landmarkFitter: LandmarkFitter? {
        landmarks.withLock { state in
            if case .loaded(let fitter) = state { return fitter }
            return nil
        }
    }
    private let landmarks: Mutex<Landmarks>
    private let expression: Mutex<Handle>

    private enum Landmarks {
        case loaded(LandmarkFitter?)
        case defaultOnFirstUse(cacheDirectory: String?)
    }

    private struct Handle: ~Copyable, @unchecked Sendable {
        let pointer: OpaquePointer
        deinit { ocv_expression_free(pointer) }
    }

    /// Side of the square crop, in face sizes, and the height it is measured at.
    static let cropScale = 1.25
    static let measureHeight = 128
    /// Sharpness is measured on the same cut at its own resolution, between `measureHeight` and this: a blur of
    /// half a pixel, lost when a larger face is scaled down to `measureHeight`, shows there.
    static let sharpnessHeight = 256

    /// - Parameters:
    ///   - model: the scoring constants and weights.
    ///   - expressionModelPath: an ONNX expression model instead of the built-in one.
    ///   - landmarks: dlib's 68-point fitter, shared; nil scores with the detector's 5 points.
    public convenience init(model: QualityModel = .defaults, expressionModelPath: String? = nil, landmarks: LandmarkFitter?) throws(FaceCropError) {
        try self.init(model: model, expressionModelPath: expressionModelPath, landmarks: .loaded(landmarks))
    }

    /// With dlib's 68-point model when it is installed (`LandmarkFitter.loadDefault()`), else with the
    /// detector's 5 points (check `landmarkFitter`, and tell the user `LandmarkFitter.missingModelNote`).
    public convenience init(model: QualityModel = .defaults) throws(FaceCropError) {
        try self.init(model: model, landmarks: LandmarkFitter.loadDefault())
    }

    /// Like `init(model:)`, but dlib's model (35 MB in memory) is loaded by the first `assess`, and its errors
    /// thrown there: work before it, such as `screen`, runs without that memory. Check
    /// `LandmarkFitter.defaultModelInstalled` for the missing-model note, and `landmarkFitter` afterwards for
    /// the cache note.
    public static func loadingLandmarksOnFirstUse(
        model: QualityModel = .defaults, cacheDirectory: String? = LandmarkFitter.defaultCacheDirectory
    ) throws(FaceCropError) -> QualityAnalyzer {
        try QualityAnalyzer(model: model, expressionModelPath: nil, landmarks: .defaultOnFirstUse(cacheDirectory: cacheDirectory))
    }

    private init(model: QualityModel, expressionModelPath: String?, landmarks: Landmarks) throws(FaceCropError) {
        if let expressionModelPath { try FaceDetector.checkModelFile(expressionModelPath) }
        let (created, message) = withErrorBuffer { ocv_expression_create(expressionModelPath, $0, $1) }
        guard let pointer = created else { throw expressionModelPath.map { .modelUnusable($0, reason: message) } ?? .detector(message) }
        self.model = model
        self.landmarks = Mutex(landmarks)
        self.expression = Mutex(Handle(pointer: pointer))
    }

    /// The fitter, the default model loaded now when it is loaded on first use (once: other callers wait).
    private func fitter() throws(FaceCropError) -> LandmarkFitter? {
        try landmarks.withLock { (state) throws(FaceCropError) -> LandmarkFitter? in
            switch state {
            case .loaded(let fitter): return fitter
            case .defaultOnFirstUse(let cacheDirectory):
                let fitter = try LandmarkFitter.loadDefault(cacheDirectory: cacheDirectory)
                state = .loaded(fitter)
                return fitter
            }
        }
    }

    /// The capture quality of every face of `analysis`, in the same order. Faces found with the picture turned
    /// are measured as the picture turned their way shows them, upright (`Analysis.faceTurns`).
    public func assess(_ analysis: Analysis) throws(FaceCropError) -> [CaptureQuality] {
        let size = analysis.size
        return try zip(analysis.faces, analysis.faceTurns).map { (face, turn) throws(FaceCropError) -> CaptureQuality in
            let shownSize = turn?.displaySize(storedSize: size) ?? size
            let box = face.boundingBox(in: size)
            let shownBox = turn.map { FaceTurn.shown(box, by: $0, size: size) } ?? box
            var (m, points) = try measure(analysis, box: shownBox, turn: turn, predictorBox: analysis.detector.profile.predictorBox(forDetectorBox:))
            m.blockiness = try blockiness(analysis, box: box)
            var landmarks: FaceLandmarks2D?
            if let points, let fitted = FaceLandmarks2D(ibug68: points, faceBox: box) {
                landmarks = fitted
                m.eyeAspectRatio = fitted.measures?.eyeAspectRatio
                m.mouthOpenness = fitted.measures?.mouthOpenness
            }
            let posePoints = face.landmarks?.points(in: size).map { p in turn.map { FaceTurn.shown(p, by: $0, size: size) } ?? p }
            return score(m, face: face, box: shownBox, in: shownSize, posePoints: posePoints, detector: analysis.detector, landmarks: landmarks)
        }
    }

    /// A quick capture quality of `faces` in an in-memory frame, for ranking many frames before scoring the
    /// best few with `assess`: the same sharpness, noise, exposure, size, pose, border and confidence, measured
    /// on the same cuts scaled by area in OpenCV (no libvips round trip), without the 68 landmarks or the
    /// expression model (no eyes, mouth or expression component). Faster than `assess` by a wide margin.
    public func screen(_ frame: RGBImage, faces: [FaceObservation], detector: DetectorKind) throws(FaceCropError) -> [CaptureQuality] {
        let size = ImageSize(width: frame.width, height: frame.height)
        return try faces.map { (face) throws(FaceCropError) -> CaptureQuality in
            let box = face.boundingBox(in: size)
            let cut = Self.cut(around: box, in: size)
            let sharp = Self.cutSize(cut, height: Self.sharpnessHeight(cut))
            let measured = Self.cutSize(cut, height: Self.measureHeight)
            var metrics = OCVFaceMetrics()
            var blur: Float = 1
            let (rc, message) = withErrorBuffer { error, errorSize in
                frame.pixels.withUnsafeBufferPointer {
                    ocv_face_screen(
                        $0.baseAddress, Int32(frame.width), Int32(frame.height), Int32(cut.x), Int32(cut.y), Int32(cut.width), Int32(cut.height),
                        Int32(sharp.width), Int32(sharp.height), Int32(measured.width), Int32(measured.height), &metrics, &blur, error, errorSize)
                }
            }
            guard rc == 0 else { throw .imageProcessing(message) }
            return score(
                Self.measurements(metrics, blur: blur), face: face, box: box, in: size, posePoints: face.landmarks?.points(in: size), detector: detector,
                landmarks: nil)
        }
    }

    /// The score of `face` (its box in pixels of an image of `size`, its 5 points `posePoints` in the same
    /// pixels) from its measurements, with what the detector gave (height, confidence, pose from its 5 points,
    /// the share inside the image); its landmarks are the 68 fitted ones, else the detector's 5.
    private func score(
        _ measurements: QualityMeasurements, face: FaceObservation, box: Rect, in size: ImageSize, posePoints: [Point]?, detector: DetectorKind,
        landmarks: FaceLandmarks2D?
    ) -> CaptureQuality {
        var m = measurements
        m.faceHeight = box.height
        m.confidence = face.confidence
        m.inside = model.visibleShare(of: box, in: size, detector: detector.profile)
        if let pose = posePoints.flatMap(QualityModel.pose) {
            (m.roll, m.yaw, m.pitch) = (pose.roll, pose.yaw, pose.pitch)
        }
        var quality = model.score(m, detector: detector.profile)
        quality.landmarks = landmarks ?? face.landmarks.flatMap { FaceLandmarks2D(detector5: $0, faceBoundingBox: face.boundingBox) }
        return quality
    }

    /// The square cut measured around a face's box: `cropScale` face sizes wide, clamped to the image (at
    /// least one pixel, inside it, whatever the box: a caller's may be huge or not finite).
    static func cut(around box: Rect, in size: ImageSize) -> PixelRect {
        let side = cropScale * max(box.width, box.height)
        let square = Rect(x: box.midX - side / 2, y: box.midY - side / 2, width: side, height: side).intersection(size.bounds)
        let x0 = clampedInt(square.minX, in: 0...max(0, size.width - 1), rounding: .down)
        let y0 = clampedInt(square.minY, in: 0...max(0, size.height - 1), rounding: .down)
        return PixelRect(
            x: x0, y: y0, width: max(1, clampedInt(square.maxX, in: 0...size.width, rounding: .up) - x0),
            height: max(1, clampedInt(square.maxY, in: 0...size.height, rounding: .up) - y0))
    }

    /// The height sharpness is measured at: the cut's own, within `measureHeight`...`sharpnessHeight`.
    static func sharpnessHeight(_ cut: PixelRect) -> Int { min(sharpnessHeight, max(measureHeight, cut.height)) }

    /// The cut's size scaled to `height` (at least 16 pixels wide).
    static func cutSize(_ cut: PixelRect, height: Int) -> ImageSize {
        ImageSize(width: max(16, Int((Double(height) * Double(cut.width) / Double(max(1, cut.height))).rounded())), height: height)
    }

    /// The measurements OpenCV took, in `QualityMeasurements`' terms (the detector's share filled in later).
    static func measurements(_ metrics: OCVFaceMetrics, blur: Float) -> QualityMeasurements {
        let e = withUnsafeBytes(of: metrics.expression) { Array($0.bindMemory(to: Float.self)).map(Double.init) }
        return QualityMeasurements(
            blur: Double(blur), noise: Double(metrics.noise), brightness: Double(metrics.mean), contrast: Double(metrics.contrast),
            clipped: Double(metrics.clipped), imbalance: Double(metrics.imbalance), faceHeight: 0,
            expression: e.allSatisfy { $0 >= 0 } ? e : nil, inside: 1)
    }

    /// Blocking on the face at full resolution, on a region whose stored origin sits on the 8x8 JPEG grid
    /// (at most 512x512 from its centre, to bound the work). 1 for images that are not JPEG.
    private func blockiness(_ analysis: Analysis, box: Rect) throws(FaceCropError) -> Double {
        guard analysis.loader.isJPEG else { return 1 }
        let size = analysis.size
        let visible = box.intersection(size.bounds)
        let side = 512.0
        let region = Rect(
            x: max(visible.minX, visible.midX - side / 2), y: max(visible.minY, visible.midY - side / 2),
            width: min(visible.width, side), height: min(visible.height, side))
        let display = PixelRect(
            x: clampedInt(region.minX, in: 0...size.width, rounding: .down), y: clampedInt(region.minY, in: 0...size.height, rounding: .down),
            width: clampedInt(region.width, in: 0...size.width, rounding: .down), height: clampedInt(region.height, in: 0...size.height, rounding: .down))
        guard display.width >= 24, display.height >= 24 else { return 1 }
        var stored = analysis.orientation.storedRect(forDisplay: display, storedSize: analysis.storedSize)
        let dx = stored.x % 8
        let dy = stored.y % 8
        stored = PixelRect(x: stored.x - dx, y: stored.y - dy, width: stored.width + dx, height: stored.height + dy)
        var ratio: Float = 1
        do {
            let source = try analysis.reopen()
            let rc = try source.extract(stored).inMemory().withRGB8 { rgb, w, h in
                withErrorBuffer { ocv_blockiness(rgb, Int32(w), Int32(h), &ratio, $0, $1) }.result
            }
            guard rc == 0 else { return 1 }
        } catch let error as VipsError {
            throw FaceCropper.readError(analysis.input, error)
        } catch {
            throw .imageProcessing("\(error)")
        }
        return Double(ratio)
    }

    /// The measurements on the face in `box` (pixels of the upright image as `turn` shows it, when it is
    /// given), and its 68 landmarks in pixels of the upright image when there is a landmark fitter. Both are taken
    /// on one square cut around the face, `cropScale` face sizes wide, scaled to `measureHeight`; sharpness on
    /// the same cut at up to `sharpnessHeight`.
    private func measure(_ analysis: Analysis, box: Rect, turn: Orientation?, predictorBox: (Rect) -> Rect) throws(FaceCropError) -> (
        QualityMeasurements, [Point]?
    ) {
        let clamped = Self.cut(around: box, in: turn?.displaySize(storedSize: analysis.size) ?? analysis.size)
        let upright = turn.map { $0.storedRect(forDisplay: clamped, storedSize: analysis.size) } ?? clamped
        let stored = analysis.orientation.storedRect(forDisplay: upright, storedSize: analysis.storedSize)
        var metrics = OCVFaceMetrics()
        var blur: Float = 1
        var points: [Point]?
        let fitter = try self.fitter()
        try withVipsErrors(
            {
                // One read of the source (a large image is read again sequentially, so only once): the cut at
                // the sharpness height, upright, and from it the cut at `measureHeight` for everything else.
                let sharpSize = Self.cutSize(clamped, height: Self.sharpnessHeight(clamped))
                let swaps = analysis.orientation.swapsAxes != (turn?.swapsAxes ?? false)
                let storedSize = swaps ? ImageSize(width: sharpSize.height, height: sharpSize.width) : sharpSize
                var sharp = try analysis.reopen().extract(stored).resized(width: storedSize.width, height: storedSize.height).inMemory().upright()
                if let turn { sharp = try sharp.shown(as: turn).inMemory() }
                let measured = Self.cutSize(clamped, height: Self.measureHeight)
                let face = sharpSize == measured ? sharp : try sharp.resized(width: measured.width, height: measured.height).inMemory()
                // The face box in the cut's pixels (for the landmarks, which come back in the cut's pixels too).
                let sx = Double(face.width) / Double(clamped.width)
                let sy = Double(face.height) / Double(clamped.height)
                let local = Rect(
                    x: (box.x - Double(clamped.x)) * sx, y: (box.y - Double(clamped.y)) * sy, width: box.width * sx, height: box.height * sy)
                try face.withRGB8 { rgb, width, height in
                    let (rc, message) = withErrorBuffer { error, size in
                        expression.withLock { e in ocv_face_metrics(rgb, Int32(width), Int32(height), e.pointer, &metrics, error, size) }
                    }
                    guard rc == 0 else { throw FaceCropError.imageProcessing(message) }
                    points = try fitter?.fit(rgb: rgb, width: width, height: height, faceBox: predictorBox(local))
                        .map { p in
                            let shown = Point(x: p.x / sx + Double(clamped.x), y: p.y / sy + Double(clamped.y))
                            return turn.map { $0.storedPoint(shown, storedSize: analysis.size) } ?? shown
                        }
                }
                try sharp.withRGB8 { rgb, width, height in
                    let (rc, message) = withErrorBuffer { ocv_blur(rgb, Int32(width), Int32(height), &blur, $0, $1) }
                    guard rc == 0 else { throw FaceCropError.imageProcessing(message) }
                }
            }, vips: { FaceCropper.readError(analysis.input, $0) })
        return (Self.measurements(metrics, blur: blur), points)
    }
}
