/// A detected face, shaped like Vision's `VNFaceObservation`: a normalized bounding box with the origin
/// at the bottom-left, a confidence, and landmarks when the detector gives them.
public struct FaceObservation: Hashable, Sendable, Codable {
    /// Normalized (0...1), origin bottom-left, like `VNFaceObservation.boundingBox`.
    public var boundingBox: Rect
    /// Detector score, 0...1.
    public var confidence: Double
    /// The detector's five points (CenterFace and YuNet give them; Haar does not).
    public var landmarks: FaceLandmarks?

    /// A face from its normalized box (origin bottom-left), its detector score and, when the detector gives
    /// them, its five landmarks.
    public init(boundingBox: Rect, confidence: Double, landmarks: FaceLandmarks? = nil) {
        self.boundingBox = boundingBox
        self.confidence = confidence
        self.landmarks = landmarks
    }

    /// The box in pixels of an upright image of `imageSize`, origin top-left.
    public func boundingBox(in imageSize: ImageSize) -> Rect {
        Coordinates.pixelRect(forNormalized: boundingBox, imageSize: imageSize)
    }
}

/// The detector's five landmarks (CenterFace's or YuNet's), normalized with the origin at the bottom-left. Left and right are the
/// subject's own: `rightEye` is the eye on the image's left side.
public struct FaceLandmarks: Hashable, Sendable, Codable {
    /// The centre of the subject's right eye: the one on the image's left.
    public var rightEye: Point
    /// The centre of the subject's left eye: the one on the image's right.
    public var leftEye: Point
    /// The tip of the nose.
    public var nose: Point
    /// The subject's right mouth corner: the one on the image's left.
    public var mouthRight: Point
    /// The subject's left mouth corner: the one on the image's right.
    public var mouthLeft: Point

    /// The five points, each normalized (0...1) with the origin at the image's bottom-left.
    public init(rightEye: Point, leftEye: Point, nose: Point, mouthRight: Point, mouthLeft: Point) {
        self.rightEye = rightEye
        self.leftEye = leftEye
        self.nose = nose
        self.mouthRight = mouthRight
        self.mouthLeft = mouthLeft
    }

    /// In the order right eye, left eye, nose, right mouth corner, left mouth corner.
    public var allPoints: [Point] { [rightEye, leftEye, nose, mouthRight, mouthLeft] }

    /// The points in pixels of an upright image of `imageSize`, origin top-left.
    public func points(in imageSize: ImageSize) -> [Point] {
        allPoints.map { Coordinates.pixelPoint(forNormalized: $0, imageSize: imageSize) }
    }
}
