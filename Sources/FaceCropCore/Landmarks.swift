// Face landmarks grouped into named regions, shaped like Apple Vision's `VNFaceLandmarks2D`.
//
// Two sources: dlib's 68-point shape predictor (iBUG 300-W point order) or, when that model is not installed,
// the detector's 5 points. Left and right are the **subject's** own, as in Vision and in `FaceLandmarks`:
// `rightEye` is the eye on the image's left side.
//
// Coordinates, as in Vision: a region's `normalizedPoints` are relative to the face bounding box, 0...1 on both
// axes with the origin at the box's **bottom-left**; `pointsInImage` turns them into pixels of the image with the
// origin at the **top-left**. For a face box (x, y, w, h) in pixels (top-left origin) and a pixel point (px, py):
//
//     normalized.x = (px − x) / w        normalized.y = 1 − (py − y) / h
//
// A box with no width (or no height) gives 0 on that axis: the points collapse onto the box.

/// Vision's region names (`VNFaceLandmarks2D` properties).
public enum LandmarkRegionName: String, Hashable, Sendable, Codable, CaseIterable {
    /// The twelve regions of `VNFaceLandmarks2D`; `allCases` is the order of `FaceLandmarks2D.regions`.
    case faceContour, leftEye, rightEye, leftEyebrow, rightEyebrow, nose, noseCrest, medianLine, outerLips,
        innerLips, leftPupil, rightPupil
}

/// One region, like `VNFaceLandmarkRegion2D`.
public struct LandmarkRegion: Hashable, Sendable, Codable {
    /// Which region this is.
    public let name: LandmarkRegionName
    /// Relative to the face bounding box, origin bottom-left.
    public internal(set) var normalizedPoints: [Point]
    /// Whether the last point joins the first (an eye, the lips), or the points form an open path (a brow).
    public let isClosed: Bool

    /// A region from its points, relative to the face box (0...1, origin at the box's bottom-left).
    public init(name: LandmarkRegionName, normalizedPoints: [Point], isClosed: Bool) {
        self.name = name
        self.normalizedPoints = normalizedPoints
        self.isClosed = isClosed
    }

    /// The number of points, as `VNFaceLandmarkRegion2D.pointCount`.
    public var pointCount: Int { normalizedPoints.count }

    /// The points in pixels of an upright image of `imageSize`, origin top-left. `faceBoundingBox` is the face's
    /// Vision-normalized box (`FaceObservation.boundingBox`: relative to the image, origin bottom-left).
    public func pointsInImage(faceBoundingBox box: Rect, imageSize: ImageSize) -> [Point] {
        normalizedPoints.map { p in
            Coordinates.pixelPoint(
                forNormalized: Point(x: box.x + p.x * box.width, y: box.y + p.y * box.height), imageSize: imageSize)
        }
    }
}

/// Which points of the 68 make up each region.
public struct LandmarkRegionLayout: Hashable, Sendable {
    /// The region laid out.
    public let name: LandmarkRegionName
    /// iBUG 300-W indices (0-based), in path order. A pupil has none: it is the mean of its eye's points.
    public let indices: [Int]
    /// Whether the path is closed: the last point joins the first.
    public let isClosed: Bool

    /// The 68-point layout. iBUG numbers from the image's point of view of a frontal face: points 36–41 are the
    /// eye on the image's left, which is the subject's right eye.
    public static let ibug68: [LandmarkRegionLayout] = [
        .init(name: .faceContour, indices: Array(0...16), isClosed: false),
        .init(name: .leftEye, indices: Array(42...47), isClosed: true),
        .init(name: .rightEye, indices: Array(36...41), isClosed: true),
        .init(name: .leftEyebrow, indices: Array(22...26), isClosed: false),
        .init(name: .rightEyebrow, indices: Array(17...21), isClosed: false),
        // The nose's outline: the top of the bridge, then the base from one nostril wing to the other.
        .init(name: .nose, indices: [27, 31, 32, 33, 34, 35], isClosed: true),
        .init(name: .noseCrest, indices: Array(27...30), isClosed: false),
        // Down the middle of the face: bridge, nose tip, base of the nose, lips, chin.
        .init(name: .medianLine, indices: [27, 28, 29, 30, 33, 51, 62, 66, 57, 8], isClosed: false),
        .init(name: .outerLips, indices: Array(48...59), isClosed: true),
        .init(name: .innerLips, indices: Array(60...67), isClosed: true),
        .init(name: .leftPupil, indices: [], isClosed: false),
        .init(name: .rightPupil, indices: [], isClosed: false),
    ]
}

/// A face's landmarks, like `VNFaceLandmarks2D`.
public struct FaceLandmarks2D: Hashable, Sendable, Codable {
    /// Which points the regions were made from.
    public enum Source: String, Hashable, Sendable, Codable {
        /// dlib's 68-point shape predictor (iBUG 300-W).
        case dlib68
        /// The face detector's 5 points (YuNet): pupils, nose tip, mouth corners.
        case detector5
    }

    /// Which points the regions were made from: dlib's 68, or the detector's 5.
    public let source: Source
    /// Every point, relative to the face box (origin bottom-left): 68 in iBUG 300-W order, or the detector's 5 in
    /// `FaceLandmarks.allPoints` order.
    public internal(set) var allPoints: [Point]
    /// In `LandmarkRegionName.allCases` order; the 5-point source has only pupils, nose and outer lips.
    public internal(set) var regions: [LandmarkRegion]
    /// Eye and mouth openness; nil for the 5-point source, which has no eyelids or lips.
    public internal(set) var measures: LandmarkMeasures?

    /// From the 68 points dlib fitted, in pixels of the image it fitted them on (origin top-left), and the face
    /// box it was given in the same pixels. Nil unless there are exactly 68 points.
    public init?(ibug68 points: [Point], faceBox: Rect) {
        guard points.count == 68 else { return nil }
        let normalized = points.map { Self.normalize($0, in: faceBox) }
        source = .dlib68
        allPoints = normalized
        regions = LandmarkRegionLayout.ibug68.map { layout in
            let path =
                switch layout.name {
                case .leftPupil: [Self.centroid(Array(normalized[42...47]))]
                case .rightPupil: [Self.centroid(Array(normalized[36...41]))]
                default: layout.indices.map { normalized[$0] }
                }
            return LandmarkRegion(name: layout.name, normalizedPoints: path, isClosed: layout.isClosed)
        }
        measures = LandmarkMeasures(ibug68: points)
    }

    /// From the detector's 5 points (Vision-normalized, relative to the image) and the face's Vision-normalized box.
    public init(detector5 landmarks: FaceLandmarks, faceBoundingBox box: Rect) {
        func relative(_ p: Point) -> Point {
            Point(x: box.width > 0 ? (p.x - box.x) / box.width : 0, y: box.height > 0 ? (p.y - box.y) / box.height : 0)
        }
        let l = landmarks
        source = .detector5
        allPoints = l.allPoints.map(relative)
        regions = [
            LandmarkRegion(name: .nose, normalizedPoints: [relative(l.nose)], isClosed: false),
            LandmarkRegion(name: .outerLips, normalizedPoints: [relative(l.mouthRight), relative(l.mouthLeft)], isClosed: false),
            LandmarkRegion(name: .leftPupil, normalizedPoints: [relative(l.leftEye)], isClosed: false),
            LandmarkRegion(name: .rightPupil, normalizedPoints: [relative(l.rightEye)], isClosed: false),
        ]
        measures = nil
    }

    /// The same landmarks with `transform` applied to every coordinate and measure (for reports: rounding).
    public func mapped(_ transform: (Double) -> Double) -> FaceLandmarks2D {
        func map(_ p: Point) -> Point { Point(x: transform(p.x), y: transform(p.y)) }
        var copy = self
        copy.allPoints = allPoints.map(map)
        for i in copy.regions.indices { copy.regions[i].normalizedPoints = regions[i].normalizedPoints.map(map) }
        if var m = measures {
            m.rightEyeAspectRatio = transform(m.rightEyeAspectRatio)
            m.leftEyeAspectRatio = transform(m.leftEyeAspectRatio)
            m.eyeAspectRatio = transform(m.eyeAspectRatio)
            m.mouthOpenness = transform(m.mouthOpenness)
            copy.measures = m
        }
        return copy
    }

    /// The region named `name`, or nil when the source has none (the 5-point source has four).
    public func region(_ name: LandmarkRegionName) -> LandmarkRegion? { regions.first { $0.name == name } }

    /// The jaw line from the image's left (iBUG 0–16), open; nil for the 5-point source.
    public var faceContour: LandmarkRegion? { region(.faceContour) }
    /// The subject's left eye, on the image's right (iBUG 42–47), closed; nil for the 5-point source.
    public var leftEye: LandmarkRegion? { region(.leftEye) }
    /// The subject's right eye, on the image's left (iBUG 36–41), closed; nil for the 5-point source.
    public var rightEye: LandmarkRegion? { region(.rightEye) }
    /// The subject's left eyebrow (iBUG 22–26), open; nil for the 5-point source.
    public var leftEyebrow: LandmarkRegion? { region(.leftEyebrow) }
    /// The subject's right eyebrow (iBUG 17–21), open; nil for the 5-point source.
    public var rightEyebrow: LandmarkRegion? { region(.rightEyebrow) }
    /// The nose's outline (iBUG 27, 31–35), closed; for the 5-point source, the nose tip alone.
    public var nose: LandmarkRegion? { region(.nose) }
    /// The bridge of the nose down to its tip (iBUG 27–30), open; nil for the 5-point source.
    public var noseCrest: LandmarkRegion? { region(.noseCrest) }
    /// Down the middle of the face, 10 points from the bridge to the chin, open; nil for the 5-point source.
    public var medianLine: LandmarkRegion? { region(.medianLine) }
    /// The outer lip line (iBUG 48–59), closed; for the 5-point source, the two mouth corners (right, then
    /// left), open.
    public var outerLips: LandmarkRegion? { region(.outerLips) }
    /// The inner lip line (iBUG 60–67), closed; nil for the 5-point source.
    public var innerLips: LandmarkRegion? { region(.innerLips) }
    /// One point: the mean of the left eye's six points, or the detector's left-eye point.
    public var leftPupil: LandmarkRegion? { region(.leftPupil) }
    /// One point: the mean of the right eye's six points, or the detector's right-eye point.
    public var rightPupil: LandmarkRegion? { region(.rightPupil) }

    /// A pixel point (origin top-left) relative to a pixel face box, origin bottom-left (formula above).
    public static func normalize(_ p: Point, in box: Rect) -> Point {
        Point(
            x: box.width > 0 ? (p.x - box.x) / box.width : 0,
            y: box.height > 0 ? 1 - (p.y - box.y) / box.height : 0)
    }

    static func centroid(_ points: [Point]) -> Point {
        let n = Double(points.count)
        return Point(x: points.reduce(0) { $0 + $1.x } / n, y: points.reduce(0) { $0 + $1.y } / n)
    }
}

/// How open the eyes and mouth are, from the 68 points in pixels (distances must be measured on both axes in
/// the same unit, so not in box-normalized coordinates, which stretch with the box's aspect).
public struct LandmarkMeasures: Hashable, Sendable, Codable {
    /// Eye aspect ratio of the subject's right eye (points 36–41) and left eye (42–47).
    public internal(set) var rightEyeAspectRatio: Double
    /// Eye aspect ratio of the subject's left eye (points 42–47).
    public internal(set) var leftEyeAspectRatio: Double
    /// Mean of the two: about 0.25–0.35 for open eyes, under about 0.2 for closed ones.
    public internal(set) var eyeAspectRatio: Double
    /// Inner-lip gap over inner-lip width: 0 for a closed mouth, about 0.3 and up for an open one.
    public internal(set) var mouthOpenness: Double

    /// Nil when a measure is undefined (an eye or mouth with no width).
    public init?(ibug68 p: [Point]) {
        guard p.count == 68, let right = Self.eyeAspectRatio(Array(p[36...41])),
            let left = Self.eyeAspectRatio(Array(p[42...47])), let mouth = Self.mouthOpenness(innerLips: Array(p[60...67]))
        else { return nil }
        rightEyeAspectRatio = right
        leftEyeAspectRatio = left
        eyeAspectRatio = (right + left) / 2
        mouthOpenness = mouth
    }

    /// Soukupová & Čech (2016), "Real-Time Eye Blink Detection using Facial Landmarks": for the six eye points
    /// p1…p6 (p1, p4 the corners; p2, p3 on the upper lid; p5, p6 on the lower lid, in iBUG order),
    ///
    ///     EAR = (|p2 − p6| + |p3 − p5|) / (2 |p1 − p4|)
    ///
    /// Nil unless there are six points and the corners are apart.
    public static func eyeAspectRatio(_ eye: [Point]) -> Double? {
        guard eye.count == 6 else { return nil }
        let width = distance(eye[0], eye[3])
        guard width > 0 else { return nil }
        return (distance(eye[1], eye[5]) + distance(eye[2], eye[4])) / (2 * width)
    }

    /// For the eight inner-lip points q0…q7 (iBUG 60–67: q0, q4 the corners; q1–q3 upper lip left to right;
    /// q5–q7 lower lip right to left), the mean vertical gap over the width:
    ///
    ///     openness = (|q1 − q7| + |q2 − q6| + |q3 − q5|) / (3 |q0 − q4|)
    ///
    /// Nil unless there are eight points and the corners are apart.
    public static func mouthOpenness(innerLips q: [Point]) -> Double? {
        guard q.count == 8 else { return nil }
        let width = distance(q[0], q[4])
        guard width > 0 else { return nil }
        return (distance(q[1], q[7]) + distance(q[2], q[6]) + distance(q[3], q[5])) / (3 * width)
    }

    static func distance(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
}
