import FaceCropCore

/// What facecrop found and did for one input: the `--json` output (its fields are described in docs/json.md).
public struct CropReport: Codable, Sendable {
    /// The facecrop version that made the report.
    public var version = FaceCropper.version
    /// The input: path, upright size, EXIF orientation, loader.
    public var input: InputInfo
    /// The copy faces were detected on, the detector and its threshold.
    public var analysis: AnalysisInfo
    /// The faces found (with `--min-quality`, those at or above it).
    public var faces: [FaceReport]
    /// Faces found but treated as absent because their capture quality is below `--min-quality`.
    public var ignoredFaces: [FaceReport]?
    /// The planned crop; absent for `detect` (and for `annotate` without `--crop`).
    public var crop: CropInfo?
    /// The file written; absent with `--dry-run` and for `detect`.
    public var output: OutputInfo?
    /// Mean, min and max capture quality over the faces (with `detect --quality`, `--min-quality`, `annotate`).
    public var quality: ImageQuality?
    /// Milliseconds per stage.
    public var timings: Timings
}

/// The input of a crop report (`input` in `--json`): path, upright size, EXIF orientation, libvips loader.
public struct InputInfo: Codable, Sendable {
    /// The input's path as given ("-" for standard input, or the name given to bytes in memory).
    public var path: String
    /// Upright (display) size in pixels, after EXIF orientation.
    public var width: Int
    /// Upright height in pixels.
    public var height: Int
    /// EXIF orientation of the file (1...8).
    public var orientation: Int
    /// libvips loader that read the file, e.g. "jpegload_source" (written as its name).
    public var loader: ImageLoader
}

/// What faces were detected on (`analysis` in `--json`): the detector's copy's size, the detector and its threshold.
public struct AnalysisInfo: Codable, Sendable {
    /// Width of the copy the detector saw (scaled to `--detect-size`: shrunk, or small images enlarged).
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// The detector that ran: `centerface`, `yunet` or `haar`.
    public var detector: DetectorKind
    /// The detector's confidence threshold (`--threshold`, or the detector's default).
    public var threshold: Double
    /// The EXIF orientation (3, 6 or 8) that shows the image with its faces upright, when they were found with
    /// the image turned that way (`Analysis.uprightOrientation`); null otherwise.
    public var uprightOrientation: Orientation?
}

extension AnalysisInfo {
    enum CodingKeys: String, CodingKey {
        case width, height, detector, threshold, uprightOrientation
    }

    /// `uprightOrientation` is always written (null for an image searched as it is), so every report has the
    /// same fields.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(detector, forKey: .detector)
        try c.encode(threshold, forKey: .threshold)
        try c.encode(uprightOrientation, forKey: .uprightOrientation)
    }
}

/// One face in a crop report: its box (Vision-style and in pixels), the detector's confidence, its landmarks,
/// and its capture quality when it was measured.
public struct FaceReport: Codable, Sendable {
    /// Vision-style: normalized 0...1, origin bottom-left.
    public var boundingBox: Rect
    /// Pixels of the upright full-resolution image, origin top-left.
    public var rect: Rect
    /// The detector's score, 0...1.
    public var confidence: Double
    /// Vision-style normalized points, origin bottom-left (nil for detectors without landmarks).
    public var landmarks: FaceLandmarks?
    /// The same points in pixels, origin top-left.
    public var landmarkPoints: FaceLandmarks?
    /// Capture quality with its breakdown (with `detect --quality`).
    public var quality: CaptureQuality?
    /// Vision-style landmark regions (with `detect --landmarks`): dlib's 68 points, or the detector's 5 without
    /// its model. Points normalized to the face's bounding box, origin bottom-left.
    public var landmarkRegions: FaceLandmarks2D?
}

extension FaceReport {
    enum CodingKeys: String, CodingKey {
        case boundingBox, rect, confidence, landmarks, landmarkPoints, quality, landmarkRegions
    }

    /// The landmark fields are always written (null for a detector without landmarks, Haar), so a report has
    /// the same fields whichever detector ran.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(boundingBox, forKey: .boundingBox)
        try c.encode(rect, forKey: .rect)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(landmarks, forKey: .landmarks)
        try c.encode(landmarkPoints, forKey: .landmarkPoints)
        try c.encodeIfPresent(quality, forKey: .quality)
        try c.encodeIfPresent(landmarkRegions, forKey: .landmarkRegions)
    }
}

/// A planned crop (`FaceCropper.plan`): the rectangle of the upright image it keeps, how it was reached
/// (strategy, aspect, margin, the faces' region), which faces it cuts, and the no-face fallback when there
/// was no face.
public struct CropInfo: Codable, Sendable {
    /// How the faces make the region: `all`, `average` or `largest`.
    public var strategy: CropStrategy
    /// The aspect asked, as text: "W:H", or "original" for the image's own.
    public var aspect: String
    /// The aspect as width / height.
    public var ratio: Double
    /// The margin around the faces, in pixels of the upright image (a percentage is of the mean face
    /// height).
    public var marginPixels: Double
    /// Faces plus margin before fitting to the aspect; nil when no face was found.
    public var region: Rect?
    /// The crop: whole pixels of the upright image, origin top-left, always inside the image.
    public var rect: PixelRect
    /// Indices into `faces` of faces not wholly inside `rect`.
    public var cutFaces: [Int]
    /// Whether faces plus margin (within the image) fit inside `rect`.
    public var regionFits: Bool
    /// "center" or "attention" when no face was found and the crop fell back; nil otherwise.
    public var fallback: NoFacePolicy?
}

/// A crop made in memory (`FaceCropper.run(bytes:name:format:options:)`): the encoded output and the report.
public struct CroppedImage: Sendable {
    /// The crop, encoded in the requested format.
    public var bytes: [UInt8]
    /// The report, as `--json` prints it (`output.path` is `FaceCropper.memoryName`).
    public var report: CropReport
}

/// One written (or encoded) output: where, its size and format, and whether `withoutEnlargement` kept it
/// at the crop's size.
public struct OutputInfo: Codable, Sendable {
    /// Where it was written, as given ("-" for standard output, `FaceCropper.memoryName` when encoded in
    /// memory).
    public var path: String
    /// Width written, in pixels.
    public var width: Int
    /// Height written, in pixels.
    public var height: Int
    /// The format it was encoded in.
    public var format: ImageFormat
    /// True when `CropOptions.withoutEnlargement` kept the output at the crop's size, smaller than asked.
    public var notEnlarged: Bool?
}

/// Milliseconds per stage.
public struct Timings: Codable, Sendable {
    /// Reading the header and decoding; for a JPEG, whose full-size decode runs during detection, only what is
    /// left of it after.
    public var load = 0.0
    /// Running the detector on the analysis copy.
    public var detect = 0.0
    /// Capture quality (and landmarks) of all faces; nil (absent from `--json`) when it was not measured.
    public var quality: Double?
    /// Planning the crop.
    public var plan = 0.0
    /// Cutting the full-resolution crop, resizing and encoding it.
    public var write = 0.0
    /// The whole job.
    public var total = 0.0
    /// Every stage at 0, quality not measured.
    public init() {}
}

extension Rect {
    /// Rounded for reports: `places` decimals.
    func rounded(_ places: Int) -> Rect {
        Rect(x: x.rounded(places), y: y.rounded(places), width: width.rounded(places), height: height.rounded(places))
    }
}

extension Point {
    func rounded(_ places: Int) -> Point { Point(x: x.rounded(places), y: y.rounded(places)) }
}

extension FaceLandmarks {
    init(_ p: [Point]) { self.init(rightEye: p[0], leftEye: p[1], nose: p[2], mouthRight: p[3], mouthLeft: p[4]) }
}

extension Double {
    /// Rounded to `places` decimals; a value that rounds to zero is 0, never -0 (which JSON would write "-0").
    func rounded(_ places: Int) -> Double {
        let scale = Double(sign: .plus, exponent: 0, significand: 1) * pow10(places)
        let rounded = (self * scale).rounded() / scale
        return rounded == 0 ? 0 : rounded
    }
    private func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { r, _ in r * 10 } }
}

extension FaceCropper {
    /// The `--json` report. `landmarks` adds each face's landmark regions (measured with its quality).
    public func report(
        _ analysis: Analysis, crop: CropInfo?, output: OutputInfo?, quality: [CaptureQuality]? = nil, landmarks: Bool = false
    ) -> CropReport {
        let size = analysis.size
        func faceReport(_ f: FaceObservation, _ quality: CaptureQuality?) -> FaceReport {
            FaceReport(
                boundingBox: f.boundingBox.rounded(6), rect: f.boundingBox(in: size).rounded(2), confidence: f.confidence.rounded(4),
                landmarks: f.landmarks.map { FaceLandmarks($0.allPoints.map { $0.rounded(6) }) },
                landmarkPoints: f.landmarks.map { FaceLandmarks($0.points(in: size).map { $0.rounded(2) }) },
                quality: quality, landmarkRegions: landmarks ? quality?.landmarks?.mapped { $0.rounded(6) } : nil)
        }
        let quality = quality ?? analysis.quality
        let faces = analysis.faces.enumerated().map { i, f in faceReport(f, quality.flatMap { i < $0.count ? $0[i] : nil }) }
        let ignored = analysis.ignoredFaces.map { faceReport($0.face, $0.quality) }
        var timings = analysis.timings
        for k in [\Timings.load, \.detect, \.plan, \.write, \.total] { timings[keyPath: k] = timings[keyPath: k].rounded(2) }
        timings.quality = timings.quality?.rounded(2)
        return CropReport(
            input: InputInfo(path: analysis.path, width: size.width, height: size.height, orientation: analysis.orientation.rawValue, loader: analysis.loader),
            analysis: AnalysisInfo(
                width: analysis.analysisSize.width, height: analysis.analysisSize.height, detector: detector.kind, threshold: threshold,
                uprightOrientation: analysis.uprightOrientation),
            faces: faces, ignoredFaces: ignored.isEmpty ? nil : ignored, crop: crop, output: output, quality: quality.flatMap(ImageQuality.init),
            timings: timings)
    }
}
