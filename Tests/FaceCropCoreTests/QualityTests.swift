import FaceCropCore
import Foundation
import Testing

struct QualityTests {
    static let good = {
        var m = QualityMeasurements(
            blur: 0.15, noise: 2, brightness: 0.5, contrast: 0.2, clipped: 0, imbalance: 0.02, faceHeight: 200,
            roll: 0, yaw: 0, pitch: 0.57, expression: [0, 0, 0, 0.2, 0, 0, 0.8], inside: 1)
        (m.eyeAspectRatio, m.mouthOpenness) = (0.3, 0.1)
        return m
    }()

    @Test func aGoodFaceScoresNearOne() {
        let q = QualityModel.defaults.score(Self.good)
        #expect(q.score > 0.99)
        #expect(
            Set(q.components.keys) == Set(QualityComponent.allCases))
        #expect(q.components.values.allSatisfy { (0...1).contains($0) })
    }

    /// One row per component: making that measurement worse lowers both the component and the score.
    @Test(arguments: [
        (QualityComponent.sharpness, "blur", 0.6), (.noise, "noise", 12), (.exposure, "brightness", 0.15), (.exposure, "contrast", 0.03),
        (.exposure, "clipped", 0.2), (.exposure, "imbalance", 0.3), (.size, "faceHeight", 40), (.border, "inside", 0.7),
        (.compression, "blockiness", 3), (.confidence, "confidence", 0.8), (.pose, "roll", 25), (.pose, "yaw", 0.3),
        (.eyes, "eyeAspectRatio", 0.15), (.mouth, "mouthOpenness", 0.8),
    ])
    func worseMeasurementLowersItsComponent(_ component: QualityComponent, _ field: String, _ value: Double) {
        var m = Self.good
        switch field {
        case "blur": m.blur = value
        case "noise": m.noise = value
        case "brightness": m.brightness = value
        case "contrast": m.contrast = value
        case "clipped": m.clipped = value
        case "imbalance": m.imbalance = value
        case "faceHeight": m.faceHeight = value
        case "inside": m.inside = value
        case "blockiness": m.blockiness = value
        case "confidence": m.confidence = value
        case "roll": m.roll = value
        case "yaw": m.yaw = value
        case "eyeAspectRatio": m.eyeAspectRatio = value
        case "mouthOpenness": m.mouthOpenness = value
        default: Issue.record("unknown field \(field)")
        }
        let base = QualityModel.defaults.score(Self.good)
        let worse = QualityModel.defaults.score(m)
        #expect(worse.components[component]! < base.components[component]!)
        #expect(worse.score < base.score)
    }

    @Test func negativeExpressionsScoreLower() {
        var m = Self.good
        m.expression = [0.6, 0, 0, 0, 0.3, 0, 0.1]
        #expect(QualityModel.defaults.score(m).components[.expression]! < 0.2)
    }

    @Test func unmeasuredComponentsAreLeftOut() {
        var m = Self.good
        (m.roll, m.yaw, m.pitch, m.expression, m.eyeAspectRatio, m.mouthOpenness) = (nil, nil, nil, nil, nil, nil)
        let q = QualityModel.defaults.score(m)
        #expect(Set(q.components.keys).isDisjoint(with: [.pose, .expression, .eyes, .mouth]))
        #expect(q.score > 0.99)
    }

    /// Closed eyes (eye aspect ratio under 0.12) cost as much as a blurred face; half-open ones less; open
    /// ones, from a squint in a smile (0.2) up, nothing.
    @Test(arguments: [(0.08, 0.0), (0.10, 0.0), (0.16, 0.5), (0.20, 1.0), (0.32, 1.0)])
    func eyeOpenness(_ ratio: Double, _ component: Double) {
        var m = Self.good
        m.eyeAspectRatio = ratio
        #expect(abs(QualityModel.defaults.score(m).components[.eyes]! - component) < 1e-9)
    }

    /// Landmarks are kept beside the score but not encoded with it (reports give them once per face).
    @Test func landmarksAreNotEncodedWithTheScore() throws {
        let points = (0..<68).map { Point(x: Double($0 % 10) * 10, y: Double($0 / 10) * 10) }
        var q = QualityModel.defaults.score(Self.good)
        q.landmarks = FaceLandmarks2D(ibug68: points, faceBox: Rect(x: 0, y: 0, width: 100, height: 100))
        let json = String(decoding: try JSONEncoder().encode(q), as: UTF8.self)
        #expect(!json.contains("landmarks") && json.contains("eyeAspectRatio"))
        #expect(json.contains(#""sharpness":"#) && json.contains(#""confidence":"#), "components keyed by name: \(json)")
        #expect(try JSONDecoder().decode(CaptureQuality.self, from: Data(json.utf8)).landmarks == nil)
    }

    /// The score is a weighted geometric mean: one very bad component pulls it far down, to about
    /// floor^(weight / total weight), whatever the others are.
    @Test func oneBadComponentDominates() {
        let model = QualityModel.defaults
        var m = Self.good
        m.blur = 1
        let total = model.weights.total
        let expected = pow(model.floor, model.weights.sharpness / total)
        #expect(abs(model.score(m).score - expected) < 0.01 && expected < 0.6)
    }

    /// Pose from the 5 points (pixels, y down): a frontal face, then the same face turned 30 degrees clockwise.
    @Test func poseFromLandmarks() throws {
        let frontal = [Point(x: 40, y: 50), Point(x: 80, y: 50), Point(x: 60, y: 70), Point(x: 45, y: 85), Point(x: 75, y: 85)]
        let p = try #require(QualityModel.pose(frontal))
        #expect(abs(p.roll) < 1e-9 && abs(p.yaw) < 1e-9)
        #expect(abs(p.pitch - 20.0 / 35) < 1e-9)
        let a = 30.0 * Double.pi / 180
        let turned = frontal.map { q in
            Point(x: 60 + (q.x - 60) * cos(a) - (q.y - 65) * sin(a), y: 65 + (q.x - 60) * sin(a) + (q.y - 65) * cos(a))
        }
        let t = try #require(QualityModel.pose(turned))
        #expect(abs(t.roll - 30) < 1e-6)
        #expect(abs(t.yaw) < 1e-9 && abs(t.pitch - p.pitch) < 1e-9)
        let profile = [Point(x: 40, y: 50), Point(x: 80, y: 50), Point(x: 78, y: 70), Point(x: 65, y: 85), Point(x: 85, y: 85)]
        #expect(try #require(QualityModel.pose(profile)).yaw > 0.4)
    }
}

/// The share of a face inside the image, in a 1000×800 image (whole faces are 0.71…0.83 as wide as tall).
struct VisibleShareTests {
    @Test(arguments: [
        // box x, y, width, height → share
        (100.0, 100.0, 160.0, 200.0, 1.0),  // well inside
        (0.0, 100.0, 160.0, 200.0, 1.0),  // at the left border with a whole face's proportions (0.8)
        (0.0, 100.0, 142.0, 200.0, 1.0),  // at the border, exactly the narrowest whole face (0.71)
        (0.0, 100.0, 71.0, 200.0, 0.5),  // at the left border, half the narrowest face's width: half cut off
        (929.0, 100.0, 71.0, 200.0, 0.5),  // the same at the right border
        (9.0, 100.0, 106.5, 200.0, 0.75),  // within the tolerance (5 % of the height) of the border
        (11.0, 100.0, 106.5, 200.0, 1.0),  // just past it: away from the border
        (100.0, 100.0, 71.0, 200.0, 1.0),  // as narrow, but away from the border: a turned face, not a cut one
        (-80.0, 100.0, 160.0, 200.0, 0.5),  // reaching past the border: the share of the box inside
        (100.0, 0.0, 166.0, 100.0, 0.5),  // at the top, half the shortest whole face's height: half cut off
        (100.0, 700.0, 166.0, 100.0, 0.5),  // the same at the bottom
        (0.0, 0.0, 71.0, 200.0, 0.5),  // in a corner: the narrow side shows the cut (a box cannot be both too narrow and too short)
        (100.0, 100.0, 0.0, 200.0, 0.0),  // degenerate
    ])
    func share(_ x: Double, _ y: Double, _ width: Double, _ height: Double, _ expected: Double) {
        let share = QualityModel.defaults.visibleShare(
            of: Rect(x: x, y: y, width: width, height: height), in: ImageSize(width: 1000, height: 800), detector: .yunet)
        #expect(abs(share - expected) < 1e-9, "\(share)")
    }
}

/// `--explain`: a line per component measured, in the README's order, with its weight and measurements.
@Test func explanationNamesEveryComponentWithItsWeight() {
    var m = QualityTests.good
    m.blur = 0.6
    let q = QualityModel.defaults.score(m)
    let lines = q.explanation()
    #expect(lines.count == q.components.count)
    #expect(lines.map { String($0.prefix { $0 != " " }) } == QualityComponent.allCases.filter { q.components[$0] != nil }.map(\.rawValue))
    #expect(lines[0] == "sharpness   0.471  weight 4  blur 0.600 (0 sharp ... 1 flat)")
    #expect(lines.contains("noise       1.000  weight 1.5  noise 2.00 grey levels"))
    #expect(lines.contains("pose        1.000  weight 1.5  roll 0.0°, yaw 0.000, pitch 0.570"))
    var haar = m
    (haar.roll, haar.yaw, haar.pitch) = (nil, nil, nil)
    #expect(!QualityModel.defaults.score(haar).explanation().contains { $0.hasPrefix("pose") }, "a component not measured has no line")
}
