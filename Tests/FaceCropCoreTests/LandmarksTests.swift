import FaceCropCore
import Foundation
import Testing

struct LandmarksTests {
    // MARK: Region layout

    struct LayoutRow: Sendable, CustomTestStringConvertible {
        let name: LandmarkRegionName, indices: [Int], isClosed: Bool, count: Int
        var testDescription: String { name.rawValue }
    }

    /// The iBUG 300-W numbering: 0–16 jaw, 17–21 and 22–26 brows, 27–30 nose bridge, 31–35 nose base,
    /// 36–41 and 42–47 eyes, 48–59 outer lips, 60–67 inner lips. 36–41 is the subject's right eye.
    static let layout: [LayoutRow] = [
        LayoutRow(name: .faceContour, indices: Array(0...16), isClosed: false, count: 17),
        LayoutRow(name: .leftEye, indices: [42, 43, 44, 45, 46, 47], isClosed: true, count: 6),
        LayoutRow(name: .rightEye, indices: [36, 37, 38, 39, 40, 41], isClosed: true, count: 6),
        LayoutRow(name: .leftEyebrow, indices: [22, 23, 24, 25, 26], isClosed: false, count: 5),
        LayoutRow(name: .rightEyebrow, indices: [17, 18, 19, 20, 21], isClosed: false, count: 5),
        LayoutRow(name: .nose, indices: [27, 31, 32, 33, 34, 35], isClosed: true, count: 6),
        LayoutRow(name: .noseCrest, indices: [27, 28, 29, 30], isClosed: false, count: 4),
        LayoutRow(name: .medianLine, indices: [27, 28, 29, 30, 33, 51, 62, 66, 57, 8], isClosed: false, count: 10),
        LayoutRow(name: .outerLips, indices: Array(48...59), isClosed: true, count: 12),
        LayoutRow(name: .innerLips, indices: Array(60...67), isClosed: true, count: 8),
        LayoutRow(name: .leftPupil, indices: [], isClosed: false, count: 1),
        LayoutRow(name: .rightPupil, indices: [], isClosed: false, count: 1),
    ]

    /// 68 distinct pixel points: point i at (10 + i, 300 − 2i), inside the box below.
    static let pixels = (0..<68).map { Point(x: 10 + Double($0), y: 300 - 2 * Double($0)) }
    static let pixelBox = Rect(x: 0, y: 100, width: 100, height: 250)
    static let fitted = FaceLandmarks2D(ibug68: pixels, faceBox: pixelBox)!

    @Test(arguments: layout)
    func regionsTakeTheirIBUGPoints(_ row: LayoutRow) throws {
        let spec = try #require(LandmarkRegionLayout.ibug68.first { $0.name == row.name })
        #expect(spec.indices == row.indices)
        #expect(spec.isClosed == row.isClosed)
        let region = try #require(Self.fitted.region(row.name))
        #expect(region.pointCount == row.count)
        #expect(region.isClosed == row.isClosed)
        if !row.indices.isEmpty {
            #expect(region.normalizedPoints == row.indices.map { FaceLandmarks2D.normalize(Self.pixels[$0], in: Self.pixelBox) })
        }
    }

    @Test func everyPointBelongsToARegionAndRegionsFollowVisionsNames() {
        let used = Set(LandmarkRegionLayout.ibug68.flatMap(\.indices))
        #expect(used == Set(0..<68))
        #expect(Self.fitted.regions.map(\.name) == LandmarkRegionName.allCases)
        #expect(Self.fitted.source == .dlib68)
        #expect(Self.fitted.allPoints.count == 68)
        #expect(Self.fitted.leftEye == Self.fitted.region(.leftEye) && Self.fitted.innerLips?.pointCount == 8)
    }

    @Test func pupilsAreTheCentersOfTheirEyes() throws {
        let right = try #require(Self.fitted.rightPupil?.normalizedPoints.first)
        let eye = (36...41).map { FaceLandmarks2D.normalize(Self.pixels[$0], in: Self.pixelBox) }
        #expect(abs(right.x - eye.map(\.x).reduce(0, +) / 6) < 1e-12)
        #expect(abs(right.y - eye.map(\.y).reduce(0, +) / 6) < 1e-12)
        let left = try #require(Self.fitted.leftPupil?.normalizedPoints.first)
        #expect(abs(left.x - (42...47).map { FaceLandmarks2D.normalize(Self.pixels[$0], in: Self.pixelBox).x }.reduce(0, +) / 6) < 1e-12)
    }

    @Test(arguments: [0, 5, 67, 69])
    func onlyExactly68PointsMakeA68PointFace(_ count: Int) {
        #expect(FaceLandmarks2D(ibug68: Array(repeating: Point(x: 1, y: 1), count: count), faceBox: Self.pixelBox) == nil)
    }

    // MARK: Coordinates

    struct NormalizeRow: Sendable {
        let pixel: Point, box: Rect, normalized: Point
    }

    static let normalizeRows: [NormalizeRow] = [
        // Box corners: top-left of the box is (0, 1), bottom-right (1, 0).
        NormalizeRow(pixel: Point(x: 50, y: 20), box: Rect(x: 50, y: 20, width: 100, height: 200), normalized: Point(x: 0, y: 1)),
        NormalizeRow(pixel: Point(x: 150, y: 220), box: Rect(x: 50, y: 20, width: 100, height: 200), normalized: Point(x: 1, y: 0)),
        NormalizeRow(pixel: Point(x: 75, y: 170), box: Rect(x: 50, y: 20, width: 100, height: 200), normalized: Point(x: 0.25, y: 0.25)),
        // Outside the box stays linear (a chin below the detector's box).
        NormalizeRow(pixel: Point(x: 40, y: 240), box: Rect(x: 50, y: 20, width: 100, height: 200), normalized: Point(x: -0.1, y: -0.1)),
        // Degenerate boxes collapse that axis to 0.
        NormalizeRow(pixel: Point(x: 7, y: 9), box: Rect(x: 5, y: 5, width: 0, height: 10), normalized: Point(x: 0, y: 0.6)),
        NormalizeRow(pixel: Point(x: 7, y: 9), box: Rect(x: 5, y: 5, width: 0, height: 0), normalized: Point(x: 0, y: 0)),
    ]

    @Test(arguments: normalizeRows)
    func pixelPointsNormalizeToTheBoxWithTheOriginBottomLeft(_ row: NormalizeRow) {
        let n = FaceLandmarks2D.normalize(row.pixel, in: row.box)
        #expect(abs(n.x - row.normalized.x) < 1e-12 && abs(n.y - row.normalized.y) < 1e-12, "\(n)")
    }

    struct ImageRow: Sendable {
        let normalized: Point, faceBox: Rect, size: ImageSize, pixel: Point
    }

    static let imageRows: [ImageRow] = [
        // Face box (Vision) 0.25…0.75 × 0.5…1 in 400×200: pixels x 100…300, y 0…100.
        ImageRow(
            normalized: Point(x: 0, y: 0), faceBox: Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.5), size: ImageSize(width: 400, height: 200),
            pixel: Point(x: 100, y: 100)),
        ImageRow(
            normalized: Point(x: 1, y: 1), faceBox: Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.5), size: ImageSize(width: 400, height: 200),
            pixel: Point(x: 300, y: 0)),
        ImageRow(
            normalized: Point(x: 0.5, y: 0.25), faceBox: Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.5), size: ImageSize(width: 400, height: 200),
            pixel: Point(x: 200, y: 75)),
        // A box with no size: every point at its corner.
        ImageRow(
            normalized: Point(x: 0.7, y: 0.3), faceBox: Rect(x: 0.5, y: 0.5, width: 0, height: 0), size: ImageSize(width: 100, height: 100),
            pixel: Point(x: 50, y: 50)),
        // A 1×1 image.
        ImageRow(
            normalized: Point(x: 0.5, y: 0.5), faceBox: Rect(x: 0, y: 0, width: 1, height: 1), size: ImageSize(width: 1, height: 1),
            pixel: Point(x: 0.5, y: 0.5)),
    ]

    @Test(arguments: imageRows)
    func normalizedPointsGoToTopLeftPixels(_ row: ImageRow) throws {
        let region = LandmarkRegion(name: .nose, normalizedPoints: [row.normalized], isClosed: false)
        let p = try #require(region.pointsInImage(faceBoundingBox: row.faceBox, imageSize: row.size).first)
        #expect(abs(p.x - row.pixel.x) < 1e-9 && abs(p.y - row.pixel.y) < 1e-9, "\(p)")
    }

    /// Fitted on a 640-pixel analysis copy, drawn on the full-resolution image: the same places, scaled.
    @Test func pixelsRoundTripThroughTheFaceBoxAtAnyResolution() throws {
        let analysis = ImageSize(width: 640, height: 480)
        let full = ImageSize(width: 3200, height: 2400)
        let vision = Coordinates.normalizedRect(forPixel: Self.pixelBox, imageSize: analysis)
        let contour = try #require(Self.fitted.faceContour)
        for (i, p) in contour.pointsInImage(faceBoundingBox: vision, imageSize: full).enumerated() {
            #expect(abs(p.x - 5 * Self.pixels[i].x) < 1e-9 && abs(p.y - 5 * Self.pixels[i].y) < 1e-9, "point \(i): \(p)")
        }
    }

    // MARK: 5-point fallback

    @Test func fivePointsGivePupilsNoseAndMouthCorners() throws {
        let box = Rect(x: 0.2, y: 0.4, width: 0.4, height: 0.5)  // Vision-normalized
        let five = FaceLandmarks(
            rightEye: Point(x: 0.3, y: 0.8), leftEye: Point(x: 0.5, y: 0.8), nose: Point(x: 0.4, y: 0.65),
            mouthRight: Point(x: 0.32, y: 0.5), mouthLeft: Point(x: 0.48, y: 0.5))
        let l = FaceLandmarks2D(detector5: five, faceBoundingBox: box)
        #expect(l.source == .detector5 && l.measures == nil && l.allPoints.count == 5)
        #expect(Set(l.regions.map(\.name)) == [.leftPupil, .rightPupil, .nose, .outerLips])
        #expect(l.leftEye == nil && l.innerLips == nil && l.faceContour == nil)
        let close = { (a: Point, b: Point) in abs(a.x - b.x) < 1e-12 && abs(a.y - b.y) < 1e-12 }
        // Relative to the box: (0.3 − 0.2) / 0.4 = 0.25, (0.8 − 0.4) / 0.5 = 0.8.
        #expect(close(try #require(l.rightPupil?.normalizedPoints.first), Point(x: 0.25, y: 0.8)))
        #expect(close(try #require(l.leftPupil?.normalizedPoints.first), Point(x: 0.75, y: 0.8)))
        #expect(close(try #require(l.nose?.normalizedPoints.first), Point(x: 0.5, y: 0.5)))
        let lips = try #require(l.outerLips)
        #expect(!lips.isClosed && lips.pointCount == 2)
        // Back in the image: where the detector put them.
        let size = ImageSize(width: 1000, height: 800)
        let pupil = try #require(l.rightPupil?.pointsInImage(faceBoundingBox: box, imageSize: size).first)
        #expect(close(pupil, Coordinates.pixelPoint(forNormalized: five.rightEye, imageSize: size)))
    }

    // MARK: Measures

    struct EyeRow: Sendable, CustomTestStringConvertible {
        let label: String, eye: [Point], ratio: Double?
        var testDescription: String { label }
    }

    /// p1…p6 in iBUG order: outer corner, two upper-lid points, inner corner, two lower-lid points (pixels).
    static let eyes: [EyeRow] = [
        EyeRow(
            label: "open", eye: [.init(x: 0, y: 0), .init(x: 2, y: -1), .init(x: 4, y: -1), .init(x: 6, y: 0), .init(x: 4, y: 1), .init(x: 2, y: 1)],
            ratio: 4.0 / 12),
        EyeRow(
            label: "closed", eye: [.init(x: 0, y: 0), .init(x: 2, y: 0), .init(x: 4, y: 0), .init(x: 6, y: 0), .init(x: 4, y: 0), .init(x: 2, y: 0)], ratio: 0),
        // Uneven lids: (|p2−p6| + |p3−p5|) / (2|p1−p4|) = (3 + 1) / 20.
        EyeRow(
            label: "uneven", eye: [.init(x: 0, y: 0), .init(x: 3, y: -2), .init(x: 7, y: -0.5), .init(x: 10, y: 0), .init(x: 7, y: 0.5), .init(x: 3, y: 1)],
            ratio: 4.0 / 20),
        // Tilted by 90°: the ratio does not depend on rotation.
        EyeRow(
            label: "vertical", eye: [.init(x: 0, y: 0), .init(x: 1, y: 2), .init(x: 1, y: 4), .init(x: 0, y: 6), .init(x: -1, y: 4), .init(x: -1, y: 2)],
            ratio: 4.0 / 12),
        EyeRow(label: "no width", eye: Array(repeating: .init(x: 3, y: 3), count: 6), ratio: nil),
        EyeRow(label: "five points", eye: Array(repeating: .init(x: 3, y: 3), count: 5), ratio: nil),
    ]

    @Test(arguments: eyes)
    func eyeAspectRatio(_ row: EyeRow) {
        let ratio = LandmarkMeasures.eyeAspectRatio(row.eye)
        if let expected = row.ratio {
            #expect(abs((ratio ?? -1) - expected) < 1e-12, "\(String(describing: ratio))")
        } else {
            #expect(ratio == nil)
        }
    }

    struct MouthRow: Sendable, CustomTestStringConvertible {
        let label: String, lips: [Point], openness: Double?
        var testDescription: String { label }
    }

    /// q0…q7 in iBUG order: corner, upper lip left to right, corner, lower lip right to left.
    static func mouth(gap: Double, width: Double = 8) -> [Point] {
        let s = width / 4
        return [
            .init(x: 0, y: 0), .init(x: s, y: -gap / 2), .init(x: 2 * s, y: -gap / 2), .init(x: 3 * s, y: -gap / 2),
            .init(x: width, y: 0), .init(x: 3 * s, y: gap / 2), .init(x: 2 * s, y: gap / 2), .init(x: s, y: gap / 2),
        ]
    }

    static let mouths: [MouthRow] = [
        MouthRow(label: "closed", lips: mouth(gap: 0), openness: 0),
        MouthRow(label: "ajar", lips: mouth(gap: 2), openness: 0.25),
        MouthRow(label: "wide open", lips: mouth(gap: 8), openness: 1),
        MouthRow(label: "no width", lips: Array(repeating: Point(x: 1, y: 1), count: 8), openness: nil),
        MouthRow(label: "seven points", lips: Array(mouth(gap: 2).prefix(7)), openness: nil),
    ]

    @Test(arguments: mouths)
    func mouthOpenness(_ row: MouthRow) {
        let openness = LandmarkMeasures.mouthOpenness(innerLips: row.lips)
        if let expected = row.openness {
            #expect(abs((openness ?? -1) - expected) < 1e-12, "\(String(describing: openness))")
        } else {
            #expect(openness == nil)
        }
    }

    @Test func measuresOfA68PointFaceUseItsEyesAndInnerLips() throws {
        var points = Self.pixels
        let openEye = Self.eyes[0].eye
        let unevenEye = Self.eyes[2].eye
        for i in 0..<6 {
            points[36 + i] = Point(x: 100 + openEye[i].x, y: 100 + openEye[i].y)  // subject's right
            points[42 + i] = Point(x: 200 + unevenEye[i].x, y: 100 + unevenEye[i].y)
        }
        for (i, p) in Self.mouth(gap: 2).enumerated() { points[60 + i] = Point(x: 150 + p.x, y: 200 + p.y) }
        // The box is three times wider than high: the ratios come from pixels, so that does not matter.
        let m = try #require(FaceLandmarks2D(ibug68: points, faceBox: Rect(x: 50, y: 50, width: 300, height: 100))?.measures)
        #expect(abs(m.rightEyeAspectRatio - 1.0 / 3) < 1e-12)
        #expect(abs(m.leftEyeAspectRatio - 0.2) < 1e-12)
        #expect(abs(m.eyeAspectRatio - (1.0 / 3 + 0.2) / 2) < 1e-12)
        #expect(abs(m.mouthOpenness - 0.25) < 1e-12)
        // An eye with no width: no measures.
        var degenerate = points
        for i in 36...41 { degenerate[i] = Point(x: 5, y: 5) }
        #expect(FaceLandmarks2D(ibug68: degenerate, faceBox: Self.pixelBox)?.measures == nil)
    }

    // MARK: JSON

    @Test func encodesWithStableKeysAndDecodesToTheSameValue() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(Self.fitted)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["source", "allPoints", "regions", "measures"])
        #expect(object["source"] as? String == "dlib68")
        let region = try #require((object["regions"] as? [[String: Any]])?.first)
        #expect(Set(region.keys) == ["name", "normalizedPoints", "isClosed"])
        #expect(region["name"] as? String == "faceContour")
        let measures = try #require(object["measures"] as? [String: Any])
        #expect(Set(measures.keys) == ["rightEyeAspectRatio", "leftEyeAspectRatio", "eyeAspectRatio", "mouthOpenness"])
        #expect(try JSONDecoder().decode(FaceLandmarks2D.self, from: data) == Self.fitted)
    }

    /// dlib's predictor gets a square box of the detector box's mean side, 0.05 of its height lower.
    static let predictorBoxes: [(Rect, Rect)] = [
        (Rect(x: 0, y: 0, width: 100, height: 100), Rect(x: 0, y: 5, width: 100, height: 100)),
        (Rect(x: 10, y: 20, width: 80, height: 120), Rect(x: 0, y: 36, width: 100, height: 100)),
        (Rect(x: 50, y: 50, width: 0, height: 0), Rect(x: 50, y: 50, width: 0, height: 0)),
    ]

    @Test(arguments: predictorBoxes)
    func predictorBox(_ detector: Rect, _ expected: Rect) {
        let box = DetectorProfile.yunet.predictorBox(forDetectorBox: detector)
        #expect(abs(box.x - expected.x) < 1e-9 && abs(box.y - expected.y) < 1e-9)
        #expect(abs(box.width - expected.width) < 1e-9 && abs(box.height - expected.height) < 1e-9)
    }

    @Test func mappedTransformsEveryCoordinateAndMeasure() throws {
        let points = (0..<68).map { Point(x: 10 + Double($0 % 10) * 7.3333, y: 20 + Double($0 / 10) * 9.1111) }
        let landmarks = try #require(FaceLandmarks2D(ibug68: points, faceBox: Rect(x: 10, y: 20, width: 70, height: 65)))
        let rounded = landmarks.mapped { ($0 * 100).rounded() / 100 }
        #expect(rounded.allPoints.count == 68 && rounded.regions.map(\.name) == landmarks.regions.map(\.name))
        let all = rounded.allPoints + rounded.regions.flatMap(\.normalizedPoints)
        func isRounded(_ v: Double) -> Bool { abs((v * 100).rounded() - v * 100) < 1e-9 }
        #expect(all.allSatisfy { isRounded($0.x) && isRounded($0.y) })
        let m = try #require(rounded.measures)
        #expect(abs(m.eyeAspectRatio - landmarks.measures!.eyeAspectRatio) <= 0.005)
        #expect(isRounded(m.mouthOpenness) && isRounded(m.eyeAspectRatio))
    }
}
