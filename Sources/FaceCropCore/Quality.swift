#if canImport(Glibc)
import Glibc  // log, exp, atan2 (libm); Foundation would add ICU to every process start
#endif

/// What is measured on one face for its capture quality.
public struct QualityMeasurements: Hashable, Sendable, Codable {
    /// Crete-Roffet re-blur metric on the face's edges: about 0.2 sharp, growing towards 1 as it blurs.
    public var blur: Double
    /// Noise estimate in grey levels (0...255).
    public var noise: Double
    /// Luminance of the face: mean and standard deviation (0...1), share of clipped pixels, and the
    /// difference between its left and right halves.
    public var brightness: Double
    /// Standard deviation of the face's luminance (0...1).
    public var contrast: Double
    /// Share of the face clipped dark or bright (0...1), counted on the face smoothed and on a soft threshold.
    public var clipped: Double
    /// Absolute difference between the mean luminance of the face's left and right halves (0...1).
    public var imbalance: Double
    /// Face height in pixels of the image measured (the original image; for a video, the analysed frame).
    public var faceHeight: Double
    /// Head pose from the 5 landmarks: roll in degrees; yaw as the nose's sideways offset from the eyes'
    /// midpoint over the eye distance; pitch as the nose's height between the eye and mouth lines
    /// (`QualityModel.levelPitch` level).
    public var roll: Double?
    /// The nose's offset along the eye line from the eyes' midpoint, over the eye distance: 0 frontal, positive
    /// towards the subject's left eye. Nil without the detector's 5 points (Haar) or when its eyes coincide.
    public var yaw: Double?
    /// The nose's distance below the eye line over the mouth's (0 at the eyes, 1 at the mouth; a level face
    /// measures about `QualityModel.levelPitch`); 0.5 when the mouth is not below the eye line. Nil as `yaw` is.
    public var pitch: Double?
    /// Expression probabilities: angry, disgust, fear, happy, sad, surprise, neutral.
    public var expression: [Double]?
    /// Share of the face inside the image (`QualityModel.visibleShare`; a face cut by the border scores lower).
    public var inside: Double
    /// JPEG blocking on the face at full resolution: boundary over inner luminance steps (about 1: none).
    public var blockiness: Double = 1
    /// The detector's confidence in the face.
    public var confidence: Double = 1
    /// Eye aspect ratio (mean of both eyes) and mouth openness from the 68 landmarks (`LandmarkMeasures`); nil
    /// without dlib's model.
    public var eyeAspectRatio: Double?
    /// Mouth openness from the 68 landmarks (`LandmarkMeasures.mouthOpenness`, 0 closed); nil without dlib's model.
    public var mouthOpenness: Double?

    /// Measurements as taken on the face; `blockiness` and `confidence` start at 1 and the eye and mouth
    /// measures at nil.
    public init(
        blur: Double, noise: Double, brightness: Double, contrast: Double, clipped: Double, imbalance: Double,
        faceHeight: Double, roll: Double? = nil, yaw: Double? = nil, pitch: Double? = nil, expression: [Double]? = nil,
        inside: Double
    ) {
        self.blur = blur
        self.noise = noise
        self.brightness = brightness
        self.contrast = contrast
        self.clipped = clipped
        self.imbalance = imbalance
        self.faceHeight = faceHeight
        self.roll = roll
        self.yaw = yaw
        self.pitch = pitch
        self.expression = expression
        self.inside = inside
    }
}

/// One component of the capture quality. The raw value is its key in JSON reports and its name in `--explain`;
/// the cases are in the order of the documentation's table, which `--explain` follows.
public enum QualityComponent: String, CaseIterable, Codable, CodingKeyRepresentable, Hashable, Sendable {
    /// The eleven components, each scored 0...1 (higher is better); `QualityModel` holds their ramps.
    case sharpness, noise, exposure, size, pose, eyes, mouth, expression, border, compression, confidence
}

/// The weight of each component in the score's (weighted geometric) mean: one stored value per component, so
/// none can be missing.
public struct QualityWeights: Hashable, Sendable {
    /// The sharpness component's weight.
    public var sharpness = 4.0
    /// The noise component's weight.
    public var noise = 1.5
    /// The exposure component's weight.
    public var exposure = 2.0
    /// The size component's weight.
    public var size = 1.0
    /// The pose component's weight.
    public var pose = 1.5
    /// The eyes component's weight.
    public var eyes = 2.0
    /// The mouth component's weight.
    public var mouth = 0.5
    /// The expression component's weight.
    public var expression = 1.0
    /// The border component's weight.
    public var border = 2.0
    /// The compression component's weight.
    public var compression = 2.0
    /// The confidence component's weight.
    public var confidence = 1.5

    /// The default weights: sharpness 4; exposure, eyes, border and compression 2; noise, pose and
    /// confidence 1.5; size and expression 1; mouth 0.5.
    public init() {}

    /// The weight of `component`, to read or set.
    public subscript(_ component: QualityComponent) -> Double {
        get {
            switch component {
            case .sharpness: sharpness
            case .noise: noise
            case .exposure: exposure
            case .size: size
            case .pose: pose
            case .eyes: eyes
            case .mouth: mouth
            case .expression: expression
            case .border: border
            case .compression: compression
            case .confidence: confidence
            }
        }
        set {
            switch component {
            case .sharpness: sharpness = newValue
            case .noise: noise = newValue
            case .exposure: exposure = newValue
            case .size: size = newValue
            case .pose: pose = newValue
            case .eyes: eyes = newValue
            case .mouth: mouth = newValue
            case .expression: expression = newValue
            case .border: border = newValue
            case .compression: compression = newValue
            case .confidence: confidence = newValue
            }
        }
    }

    /// The sum of all the weights.
    public var total: Double { QualityComponent.allCases.reduce(0) { $0 + self[$1] } }
}

/// A face's capture quality, 0...1 (higher is better), with the component scores it came from.
public struct CaptureQuality: Hashable, Sendable, Codable {
    /// 0...1, higher is better: from `QualityModel.score`, the weighted geometric mean of `components`, each
    /// floored at `QualityModel.floor`.
    public var score: Double
    /// Each component measured, 0...1 (encoded as an object keyed by the components' names).
    public var components: [QualityComponent: Double]
    /// What the components were computed from.
    public var measurements: QualityMeasurements
    /// The landmarks measured on the way (68 points, or the detector's 5 without dlib's model). Not encoded
    /// here: reports give them once per face, beside the quality.
    public var landmarks: FaceLandmarks2D?

    /// A quality from its parts, as given (nothing is computed).
    public init(score: Double, components: [QualityComponent: Double], measurements: QualityMeasurements, landmarks: FaceLandmarks2D? = nil) {
        self.score = score
        self.components = components
        self.measurements = measurements
        self.landmarks = landmarks
    }

    private enum CodingKeys: String, CodingKey { case score, components, measurements }
}

extension CaptureQuality {
    /// `x` with exactly `digits` decimals (this module does without Foundation's formatting).
    static func fixed(_ x: Double, digits: Int) -> String {
        let scale = (0..<digits).reduce(1) { a, _ in a * 10 }
        let n = clampedInt(abs(x) * Double(scale), in: 0...Int.max)
        let sign = x < 0 && n != 0 ? "-" : ""
        guard digits > 0 else { return sign + String(n) }
        let fraction = String(n % scale)
        return sign + String(n / scale) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// One line per component measured: its value, its weight in the mean, and the measurements it came from.
    public func explanation(weights: QualityWeights = QualityModel.defaults.weights) -> [String] {
        let m = measurements
        func f(_ x: Double, _ digits: Int = 3) -> String { Self.fixed(x, digits: digits) }
        func detail(_ component: QualityComponent) -> String {
            switch component {
            case .sharpness: return "blur \(f(m.blur)) (0 sharp ... 1 flat)"
            case .noise: return "noise \(f(m.noise, 2)) grey levels"
            case .exposure:
                return "brightness \(f(m.brightness)), contrast \(f(m.contrast)), clipped \(f(m.clipped)), left/right imbalance \(f(m.imbalance))"
            case .size: return "face height \(f(m.faceHeight, 0)) px"
            case .pose: return "roll \(f(m.roll ?? 0, 1))°, yaw \(f(m.yaw ?? 0)), pitch \(f(m.pitch ?? 0))"
            case .eyes: return "eye aspect ratio \(f(m.eyeAspectRatio ?? 0))"
            case .mouth: return "mouth openness \(f(m.mouthOpenness ?? 0))"
            case .expression:
                let e = m.expression ?? []
                return e.count == 7 ? "angry \(f(e[0], 2)), disgusted \(f(e[1], 2)), afraid \(f(e[2], 2)), sad \(f(e[4], 2))" : ""
            case .border: return "share inside the image \(f(m.inside))"
            case .compression: return "blockiness \(f(m.blockiness, 2))"
            case .confidence: return "detector confidence \(f(m.confidence))"
            }
        }
        let width = QualityComponent.allCases.map(\.rawValue.count).max() ?? 0
        return QualityComponent.allCases.compactMap { component in
            guard let value = components[component] else { return nil }
            let name = component.rawValue
            let padded = name + String(repeating: " ", count: width - name.count)
            let weight = weights[component]
            return "\(padded) \(f(value))  weight \(weight == weight.rounded() ? f(weight, 0) : f(weight, 1))  \(detail(component))"
        }
    }
}

/// Capture quality: every constant and weight in one table of defaults.
public struct QualityModel: Hashable, Sendable {
    /// Relative weight of each component in the (weighted geometric) mean.
    public var weights = QualityWeights()
    /// blur → sharpness: 1 at or below `sharpBlur`, 0 at or above `blurredBlur`. `sharpBlur` lies below the
    /// sharpest faces measured (0.26–0.29 on the public-domain portraits) and `blurredBlur` is the metric's maximum, so the
    /// ramp is flat nowhere real faces are: every bit of blur costs, and a face blurred further always scores
    /// lower.
    public var sharpBlur = 0.15
    /// Blur at or above which sharpness is 0 (the metric's maximum).
    public var blurredBlur = 1.0
    /// noise (grey levels) → 1 at or below `cleanNoise`, 0 at or above `noisyNoise`. Immerkær's estimate reads a
    /// clean face's own fine texture as a few grey levels at the measuring size (2.7–3.3 on the public-domain
    /// portraits, 5.7 on the film grain of Grace Hopper's); a mild blur removes that reading with the detail, so
    /// readings under `cleanNoise` do not count, while noise of 12 grey levels added to a portrait still does.
    public var cleanNoise = 4.5
    /// Noise (grey levels) at or above which the noise component is 0.
    public var noisyNoise = 15.0
    /// Brightness within `brightnessTolerance` of 0.5 is fine, 0 at `brightnessTolerance + brightnessFalloff` away.
    public var brightnessTolerance = 0.12
    /// How much further from 0.5 than `brightnessTolerance` the brightness factor reaches 0.
    public var brightnessFalloff = 0.30
    /// Contrast (luminance sd) at or above this is fine; below it the score falls linearly to 0.
    public var goodContrast = 0.12
    /// Clipped share at which exposure reaches 0.
    public var maxClipped = 0.30
    /// Left/right imbalance tolerated, and the falloff after it.
    public var imbalanceTolerance = 0.10
    /// How much further than `imbalanceTolerance` the balance factor reaches 0.
    public var imbalanceFalloff = 0.30
    /// Face height (pixels) → size: 0 at or below `tinyFace`, 1 at or above `goodFace`.
    public var tinyFace = 24.0
    /// Face height (pixels) at or above which size is 1.
    public var goodFace = 96.0
    /// Pose limits at which each factor reaches 0: roll in degrees, yaw and pitch offsets as measured.
    public var maxRoll = 45.0
    /// |yaw| at which the pose's yaw factor reaches 0.
    public var maxYaw = 0.6
    /// The pitch of a level head; the pose's pitch factor falls with the distance from it.
    public var levelPitch = 0.57  // frontal faces measure 0.54...0.61 with YuNet's landmarks
    /// Distance of the pitch from `levelPitch` at which the pose's pitch factor reaches 0.
    public var maxPitchOffset = 0.45
    /// Eye aspect ratio → eyes: 0 at or below `closedEyes`, 1 at or above `openEyes` (open eyes measure about
    /// 0.25–0.35, closed ones under 0.2: Soukupová & Čech 2016).
    public var closedEyes = 0.12
    /// Eye aspect ratio at or above which eyes is 1.
    public var openEyes = 0.20
    /// Mouth openness → mouth: 1 at or below `openMouth` (speaking, smiling), 0 at or above `yawn`.
    public var openMouth = 0.5
    /// Mouth openness at or above which mouth is 0.
    public var yawn = 1.0
    /// Blockiness → compression: 1 at or below `cleanBlocking`, 0 at or above `heavyBlocking`.
    public var cleanBlocking = 1.15
    /// Blockiness at or above which compression is 0.
    public var heavyBlocking = 5.0
    /// Share of the face inside the image at which border reaches 0 (1 when wholly inside).
    public var minInside = 0.5
    /// Floor for components in the geometric mean (so one zero does not hide every other difference).
    public var floor = 0.02

    /// Every constant and weight at its default.
    public init() {}
    /// The default model (what `QualityAnalyzer` scores with unless given another).
    public static let defaults = QualityModel()

    /// The score of a face `detector` found (its confidence is read on that detector's scale).
    public func score(_ m: QualityMeasurements, detector: DetectorProfile = .centerface) -> CaptureQuality {
        var c: [QualityComponent: Double] = [:]
        c[.sharpness] = ramp(m.blur, zeroAt: blurredBlur, oneAt: sharpBlur)
        c[.noise] = ramp(m.noise, zeroAt: noisyNoise, oneAt: cleanNoise)
        let brightness = ramp(abs(m.brightness - 0.5), zeroAt: brightnessTolerance + brightnessFalloff, oneAt: brightnessTolerance)
        let contrast = ramp(m.contrast, zeroAt: 0, oneAt: goodContrast)
        let clipping = ramp(m.clipped, zeroAt: maxClipped, oneAt: 0)
        let balance = ramp(m.imbalance, zeroAt: imbalanceTolerance + imbalanceFalloff, oneAt: imbalanceTolerance)
        c[.exposure] = brightness * contrast * clipping * balance
        c[.size] = ramp(m.faceHeight, zeroAt: tinyFace, oneAt: goodFace)
        if let roll = m.roll, let yaw = m.yaw, let pitch = m.pitch {
            c[.pose] =
                ramp(abs(roll), zeroAt: maxRoll, oneAt: 0) * ramp(abs(yaw), zeroAt: maxYaw, oneAt: 0)
                * ramp(abs(pitch - levelPitch), zeroAt: maxPitchOffset, oneAt: 0)
        }
        if let ear = m.eyeAspectRatio { c[.eyes] = ramp(ear, zeroAt: closedEyes, oneAt: openEyes) }
        if let mouth = m.mouthOpenness { c[.mouth] = ramp(mouth, zeroAt: yawn, oneAt: openMouth) }
        if let e = m.expression, e.count == 7 {
            c[.expression] = max(0, 1 - (e[0] + e[1] + e[2] + e[4]))  // angry, disgust, fear, sad
        }
        c[.border] = ramp(m.inside, zeroAt: minInside, oneAt: 1)
        c[.compression] = ramp(m.blockiness, zeroAt: heavyBlocking, oneAt: cleanBlocking)
        c[.confidence] = ramp(m.confidence, zeroAt: detector.unsureFace, oneAt: detector.sureFace)
        // Weighted geometric mean over the components measured: a blurred face is not rescued by good light.
        var logSum = 0.0
        var weightSum = 0.0
        for (component, value) in c {
            let w = weights[component]
            logSum += w * log(max(value, floor))
            weightSum += w
        }
        let score = weightSum > 0 ? exp(logSum / weightSum) : 0
        return CaptureQuality(score: score, components: c, measurements: m)
    }

    /// The share of the face in `box` (pixels, drawn by `detector`) that is inside an image of `size`: the box's
    /// share inside it, and, for a box at the left or right border, its width over the narrowest whole face's
    /// for its height (at the top or bottom, its height over the shortest whole face's for its width), whichever
    /// is less.
    public func visibleShare(of box: Rect, in size: ImageSize, detector: DetectorProfile = .centerface) -> Double {
        guard box.width > 0, box.height > 0 else { return 0 }
        var share = box.intersection(size.bounds).area / box.area
        let tolerance = detector.borderTolerance * box.height
        if box.minX <= tolerance || box.maxX >= Double(size.width) - tolerance {
            share = min(share, box.width / (box.height * detector.narrowestFace))
        }
        if box.minY <= tolerance || box.maxY >= Double(size.height) - tolerance {
            share = min(share, box.height * detector.widestFace / box.width)
        }
        return min(1, share)
    }

    /// Linear from 0 at `zeroAt` to 1 at `oneAt` (either order), clamped.
    func ramp(_ x: Double, zeroAt: Double, oneAt: Double) -> Double {
        guard zeroAt != oneAt else { return x == oneAt ? 1 : 0 }
        return min(1, max(0, (x - zeroAt) / (oneAt - zeroAt)))
    }

    /// Roll (degrees), yaw and pitch from YuNet's 5 points in pixels of the upright image
    /// (right eye = the one on the image's left, left eye, nose, right and left mouth corners).
    public static func pose(_ p: [Point]) -> (roll: Double, yaw: Double, pitch: Double)? {
        guard p.count == 5 else { return nil }
        let (re, le, nose, rm, lm) = (p[0], p[1], p[2], p[3], p[4])
        let dx = le.x - re.x
        let dy = le.y - re.y
        let eyeDistance = (dx * dx + dy * dy).squareRoot()
        guard eyeDistance > 0 else { return nil }
        let eyeRoll = atan2(dy, dx) * 180 / .pi
        // Express the nose and mouth in a frame where the eye line is horizontal, eyes' midpoint at 0.
        let (c, s) = (dx / eyeDistance, dy / eyeDistance)
        let mid = Point(x: (re.x + le.x) / 2, y: (re.y + le.y) / 2)
        func local(_ q: Point) -> Point {
            let x = q.x - mid.x
            let y = q.y - mid.y
            return Point(x: x * c + y * s, y: -x * s + y * c)
        }
        let n = local(nose)
        // YuNet's eye line understates rotations past about 30 degrees; the eyes-to-mouth axis holds up
        // longer. Take whichever turns more.
        let mouthMid = Point(x: (rm.x + lm.x) / 2, y: (rm.y + lm.y) / 2)
        let axisRoll = atan2(-(mouthMid.x - mid.x), mouthMid.y - mid.y) * 180 / .pi
        let roll = abs(axisRoll) > abs(eyeRoll) ? axisRoll : eyeRoll
        let mouth = local(mouthMid)
        let yaw = n.x / eyeDistance
        let pitch = mouth.y > 0 ? n.y / mouth.y : 0.5
        return (roll, yaw, pitch)
    }
}
