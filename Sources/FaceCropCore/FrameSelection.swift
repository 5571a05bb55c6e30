// Choosing the best frame of a video: where to sample, when the scene is stable, which frame wins and why.
// Pure logic: the decoding, registration and scoring that feed it live in FaceCrop.

/// Times at which to analyse a video.
public enum FrameSampling {
    /// `count` times evenly spaced over `duration`: the centres of `count` equal slices, so neither the first
    /// frame (often still moving as the shot starts) nor a time past the end is asked for.
    public static func times(duration: Double, count: Int) -> [Double] {
        guard count > 0, duration > 0, duration.isFinite else { return count > 0 ? [0] : [] }
        return (0..<count).map { (Double($0) + 0.5) * duration / Double(count) }
    }
}

/// A translation between two frames, in pixels of the analysed frames (positive: right, down).
public struct Shift: Hashable, Sendable, Codable {
    /// Horizontal, in pixels; positive to the right.
    public var x: Double
    /// Vertical, in pixels; positive downwards.
    public var y: Double
    /// The shift (`x`, `y`), in pixels.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    /// |x| + |y|.
    public var manhattan: Double { abs(x) + abs(y) }
}

/// Scene stability as Apple's Vision sample decides it (VNTranslationalImageRegistrationRequest between
/// consecutive frames, a history of 15 translations, stable under a Manhattan length of 20): keep the translations between consecutive analysed
/// frames, the last `historyLength` of them, and call the scene stable when the Manhattan length of their sum
/// (the net drift over that window) is under `threshold`. Shake that goes back and forth cancels out; a pan or
/// a camera still settling does not.
///
/// As in the sample, nothing is stable before the history is full: the first 15 frames of a video never are.
///
/// A shift may span several frames (frames between two registered ones were not decoded): it counts for as many.
/// The window then holds the latest shifts that span `historyLength` frames, or more when the frame that many
/// back was not registered; its drift is still the net movement over it.
///
/// The caller may also register the window's first frame with its last in one step (`measure(_:)`): the drift is
/// then the longer of the two, so the scene is stable only when both are under `threshold`.
public struct StabilityTracker: Hashable, Sendable {
    /// How many frames the window spans, and how many it needs before the scene can be stable.
    public var historyLength: Int
    /// The Manhattan length, in pixels, under which the window's drift is stable.
    public var threshold: Double
    /// The shifts in the window, oldest first.
    public private(set) var history: [Shift] = []
    /// How many frames each shift of `history` spans.
    private var spans: [Int] = []
    /// The frames the window spans.
    private var frames: Int { spans.reduce(0, +) }

    /// An empty window; the defaults are the Vision sample's (15 shifts, 20 pixels).
    public init(historyLength: Int = 15, threshold: Double = 20) {
        self.historyLength = historyLength
        self.threshold = threshold
    }

    /// The sum of the shifts in the window.
    public var summedDrift: Shift {
        history.reduce(Shift(x: 0, y: 0)) { Shift(x: $0.x + $1.x, y: $0.y + $1.y) }
    }

    /// The most frames one shift counts for: a longer span counts as this many (the window's count of frames
    /// cannot overflow).
    public static let longestSpan = 1 << 20

    /// The window's drift registered in one step, from the frame its first shift starts at to its last frame
    /// (`measure(_:)`); nil until then, and again after each `add`.
    public private(set) var measuredDrift: Shift?

    /// The window's drift: the longer (by Manhattan length) of the summed and the measured one. Phase correlation
    /// shortens small shifts a little (about a fifth under half a pixel of its frames), so a sum of many falls
    /// short of a movement that one step across the window measures whole.
    public var drift: Shift {
        guard let measuredDrift, measuredDrift.manhattan > summedDrift.manhattan else { return summedDrift }
        return measuredDrift
    }

    /// Whether the window is full and its drift's Manhattan length is under `threshold`.
    public var isStable: Bool { isFull && drift.manhattan < threshold }

    /// Whether the window spans `historyLength` frames: the scene can be stable.
    public var isFull: Bool { frames >= historyLength }

    /// Records the shift measured from the previous analysed frame to this one, `span` frames later (at least
    /// 1); returns whether the scene is now stable.
    @discardableResult
    public mutating func add(_ shift: Shift, span: Int = 1) -> Bool {
        history.append(shift)
        spans.append(min(max(1, span), Self.longestSpan))
        measuredDrift = nil
        // The oldest shift leaves once the others span the window without it.
        while spans.count > 1, frames - spans[0] >= historyLength {
            spans.removeFirst()
            history.removeFirst()
        }
        return isStable
    }

    /// Records the drift registered in one step across the window as it now is (see `measuredDrift`); returns
    /// whether the scene is stable.
    @discardableResult
    public mutating func measure(_ drift: Shift) -> Bool {
        measuredDrift = drift
        return isStable
    }
}

/// One analysed frame, as the choice sees it.
public struct FrameCandidate: Hashable, Sendable {
    /// Capture quality (0...1) of each face found.
    public var faceScores: [Double]
    /// Whether the scene was stable at this frame (nil: not measured, e.g. a Live Photo's still).
    public var stable: Bool?
    /// The Live Photo's still image rather than a video frame.
    public var isStill: Bool
    /// Scored in full (a finalist, or every frame when nothing was screened); false: screened only, and not a
    /// candidate for the choice.
    public var finalist: Bool

    /// A candidate; by default a video frame, scored in full.
    public init(faceScores: [Double], stable: Bool?, isStill: Bool = false, finalist: Bool = true) {
        self.faceScores = faceScores
        self.stable = stable
        self.isStill = isStill
        self.finalist = finalist
    }
}

/// The outcome of choosing a frame.
public enum FrameChoice: Hashable, Sendable {
    /// `index` into the candidates, with a sentence saying why.
    case chosen(index: Int, reason: String)
    /// No candidate has a face.
    case noFace
    /// Faces were found, but only in frames that were not stable (with `stableOnly`).
    case noStableFace
}

/// The best-frame choice as pure functions: which frames to sample, whether the picture is steady over a
/// window of frames, each frame's score from its faces, and the winner with the reason it won.
public enum FrameSelection {
    /// Frame scores: the sum of the face scores over the largest number of faces any candidate has. A frame
    /// where everyone is found scores the mean quality of their faces (as Apple's selfie sample ranks images);
    /// a frame where someone was missed (turned away, blurred beyond detection) counts that face as 0.
    /// nil for frames without a face. Finalists and frames screened only are counted apart (their faces come
    /// from different detectors).
    public static func scores(_ candidates: [FrameCandidate]) -> [Double?] {
        let most = [true, false].map { finalist in candidates.filter { $0.finalist == finalist }.map(\.faceScores.count).max() ?? 0 }
        return candidates.map { c in c.faceScores.isEmpty ? nil : c.faceScores.reduce(0, +) / Double(most[c.finalist ? 0 : 1]) }
    }

    /// The frames to score in full after a screen: the `count` best by screened frame score (ties to a stable
    /// frame, then the earlier), picked at least `spacing` seconds apart while there are enough of them, so
    /// that frames a blink spoils cannot take every place; with `stableOnly`, stable frames only. When no
    /// frame that may be chosen has a screened face (faces the screen's detector misses), `count` of them
    /// spread evenly over the video. Indices in time order; none when `times` does not give one time per candidate.
    public static func finalists(_ candidates: [FrameCandidate], times: [Double], count: Int, spacing: Double, stableOnly: Bool) -> [Int] {
        guard times.count == candidates.count else { return [] }
        let eligible = candidates.indices.filter { !stableOnly || candidates[$0].stable == true }
        guard count > 0, !eligible.isEmpty else { return [] }
        let scores = scores(candidates)
        let withFaces = eligible.filter { scores[$0] != nil }
        guard !withFaces.isEmpty else {
            let k = min(count, eligible.count)
            return (0..<k).map { eligible[(2 * $0 + 1) * eligible.count / (2 * k)] }
        }
        let ranked = withFaces.sorted { a, b in
            if scores[a]! != scores[b]! { return scores[a]! > scores[b]! }
            if (candidates[a].stable == true) != (candidates[b].stable == true) { return candidates[a].stable == true }
            return a < b
        }
        var picked: [Int] = []
        for i in ranked where picked.count < count && picked.allSatisfy({ abs(times[$0] - times[i]) >= spacing }) { picked.append(i) }
        for i in ranked where picked.count < count && !picked.contains(i) { picked.append(i) }
        return picked.sorted()
    }

    /// The best finalist: the highest frame score; ties (within 0.001) go to the still, then to a stable
    /// frame, then to the earlier frame. With `stableOnly`, frames not known to be stable are left out (the
    /// still, which the camera took as the photo, stays in).
    public static func choose(_ candidates: [FrameCandidate], stableOnly: Bool) -> FrameChoice {
        let scores = scores(candidates)
        let withFaces = candidates.indices.filter { candidates[$0].finalist && scores[$0] != nil }
        // Faces screened only in frames left out as unstable: no stable face, rather than none at all.
        guard !withFaces.isEmpty else { return stableOnly && scores.contains { $0 != nil } ? .noStableFace : .noFace }
        let eligible = stableOnly ? withFaces.filter { candidates[$0].isStill || candidates[$0].stable == true } : withFaces
        guard !eligible.isEmpty else { return .noStableFace }
        func better(_ a: Int, _ b: Int) -> Bool {
            let sa = scores[a]!
            let sb = scores[b]!
            if abs(sa - sb) > 0.001 { return sa > sb }
            if candidates[a].isStill != candidates[b].isStill { return candidates[a].isStill }
            let stableA = candidates[a].stable == true
            let stableB = candidates[b].stable == true
            if stableA != stableB { return stableA }
            return a < b
        }
        let best = eligible.reduce(eligible[0]) { better($1, $0) ? $1 : $0 }
        let score = String((scores[best]! * 1000).rounded() / 1000)
        let pool =
            stableOnly
            ? "\(eligible.count) stable frame\(eligible.count == 1 ? "" : "s") with faces"
            : "\(withFaces.count) frame\(withFaces.count == 1 ? "" : "s") with faces"
        var reason = "highest frame score (\(score)) of the \(pool)" + (candidates.allSatisfy(\.finalist) ? "" : " scored in full")
        let tied = eligible.filter { $0 != best && abs(scores[$0]! - scores[best]!) <= 0.001 }
        if !tied.isEmpty {
            reason +=
                candidates[best].isStill
                ? "; tied, the still wins"
                : candidates[best].stable == true && tied.contains { candidates[$0].stable != true }
                    ? "; tied, the stable frame wins" : "; tied, the earliest wins"
        }
        let faces = candidates[best].faceScores.count
        let most = candidates.filter(\.finalist).map(\.faceScores.count).max() ?? 0
        if faces < most { reason += "; \(faces) of \(most) faces found in it" }
        return .chosen(index: best, reason: reason)
    }
}

/// Best-frame keeps the decoded pictures of only the few best frames analysed so far, for writing the choice
/// without decoding it again.
package enum KeptFrames {
    /// A frame that holds its decoded picture: the sum of its face scores (the frame score's order: that score
    /// divides the sum by the same number for every frame), whether it is stable, and its time.
    package struct Held: Hashable, Sendable {
        package var index: Int
        package var sum: Double
        package var stable: Bool
        package var time: Double

        package init(index: Int, sum: Double, stable: Bool, time: Double) {
            (self.index, self.sum, self.stable, self.time) = (index, sum, stable, time)
        }
    }

    /// The frames that let go of their pictures: all but the `count` best (by sum, then stable ones, then the
    /// earliest, as the choice breaks ties), those without a face score, and with `stableOnly` unstable ones.
    package static func released(_ held: [Held], keeping count: Int, stableOnly: Bool) -> Set<Int> {
        guard held.count > count || stableOnly else { return [] }
        let ranked = held.sorted { a, b in
            if a.sum != b.sum { return a.sum > b.sum }
            if a.stable != b.stable { return a.stable }
            return a.time < b.time
        }
        return Set(ranked.enumerated().filter { $0.offset >= count || (stableOnly && !$0.element.stable) || $0.element.sum == 0 }.map(\.element.index))
    }
}
