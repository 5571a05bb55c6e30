import FaceCropCore
import Testing

struct FrameSamplingTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var duration: Double
        var count: Int
        var expected: [Double]
        var testDescription: String { "\(count) over \(duration) s" }
    }

    @Test(arguments: [
        Row(duration: 3, count: 12, expected: (0..<12).map { (Double($0) + 0.5) * 0.25 }),
        Row(duration: 2, count: 1, expected: [1]),
        Row(duration: 1, count: 4, expected: [0.125, 0.375, 0.625, 0.875]),
        Row(duration: 0, count: 3, expected: [0]),  // unknown duration: the first frame
        Row(duration: .infinity, count: 3, expected: [0]),
        Row(duration: 5, count: 0, expected: []),
    ])
    func evenlySpacedSlotCentres(_ row: Row) {
        let times = FrameSampling.times(duration: row.duration, count: row.count)
        #expect(times.count == row.expected.count)
        for (a, b) in zip(times, row.expected) { #expect(abs(a - b) < 1e-12) }
    }
}

struct StabilityTrackerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var shifts: [Shift]
        var history = 15
        var threshold = 20.0
        /// Stability after each shift.
        var expected: [Bool]
        var testDescription: String { name }
    }

    static let still = Shift(x: 0, y: 0)

    @Test(arguments: [
        Row(
            name: "not stable before the history is full", shifts: Array(repeating: still, count: 15),
            expected: Array(repeating: false, count: 14) + [true]),
        Row(
            name: "shake that cancels out is stable", shifts: (0..<16).map { Shift(x: $0 % 2 == 0 ? 9 : -9, y: $0 % 2 == 0 ? -6 : 6) },
            expected: Array(repeating: false, count: 14) + [true, true]),
        Row(
            name: "a slow pan adds up", shifts: Array(repeating: Shift(x: 1, y: 0.5), count: 16),
            expected: Array(repeating: false, count: 16)),  // 15 x 1.5 = 22.5
        Row(
            name: "a pan just under the threshold", shifts: Array(repeating: Shift(x: 1, y: -0.3), count: 15),
            expected: Array(repeating: false, count: 14) + [true]),  // 15 x 1.3 = 19.5
        Row(
            name: "Manhattan length of the sum, not of each", shifts: [Shift(x: 12, y: 0), Shift(x: 0, y: 12)], history: 2,
            expected: [false, false]),
        Row(
            name: "the old shifts leave the window", shifts: [Shift(x: 50, y: 0), still, still, still], history: 3,
            expected: [false, false, false, true]),
        Row(
            name: "threshold is exclusive", shifts: [Shift(x: 10, y: 0), Shift(x: 0, y: -10)], history: 2, threshold: 20,
            expected: [false, false]),
        Row(
            name: "settable threshold", shifts: [Shift(x: 10, y: 0), Shift(x: 0, y: -10)], history: 2, threshold: 20.5,
            expected: [false, true]),
    ])
    func gating(_ row: Row) {
        var tracker = StabilityTracker(historyLength: row.history, threshold: row.threshold)
        let stable = row.shifts.map { tracker.add($0) }
        #expect(stable == row.expected)
        #expect(tracker.history.count == min(row.history, row.shifts.count))
    }

    /// Shifts that span several frames (the frames between were not decoded) count for as many: the window spans
    /// `historyLength` frames, or the fewest shifts spanning more when the frame that many back was not registered.
    @Test func shiftsSpanningSeveralFrames() {
        var tracker = StabilityTracker(historyLength: 15)
        let spans = [2, 1, 3, 1, 1, 2, 1, 3, 1]  // 15 frames
        let stable = spans.map { tracker.add(Shift(x: 1, y: 0), span: $0) }
        #expect(stable == Array(repeating: false, count: 8) + [true])
        #expect(tracker.drift == Shift(x: 9, y: 0))
        tracker.add(Shift(x: 1, y: 0), span: 2)  // the first (2 frames) leaves: 15 again
        #expect(tracker.history.count == 9 && tracker.drift == Shift(x: 9, y: 0))
        tracker.add(Shift(x: 2, y: 0), span: 3)  // the oldest (1 frame) leaves; without the next, 14: 17 frames
        #expect(tracker.history.count == 9 && tracker.drift == Shift(x: 10, y: 0) && tracker.isStable)
        tracker.add(Shift(x: 30, y: 0), span: 0)  // at least one frame
        #expect(!tracker.isStable && tracker.drift.x == 39)
    }

    /// The drift registered in one step across the window counts as well as the sum: the longer is the drift, so
    /// the scene is stable only when both are under the threshold; until the next shift.
    @Test(arguments: [
        (summed: 0.9, measured: 1.4, stable: false),  // small shifts summed fall short; one step does not
        (summed: 0.9, measured: 1.0, stable: true),
        (summed: 5.0, measured: 0.5, stable: false),  // too far for one step to register; the sum shows it
        (summed: 0.5, measured: 0.5, stable: true),
    ])
    func driftMeasuredInOneStep(_ row: (summed: Double, measured: Double, stable: Bool)) {
        var tracker = StabilityTracker(historyLength: 15)
        for _ in 0..<15 { tracker.add(Shift(x: row.summed, y: 0)) }
        #expect(tracker.measuredDrift == nil && tracker.drift == tracker.summedDrift)
        #expect(tracker.measure(Shift(x: 15 * row.measured, y: 0)) == row.stable)
        #expect(abs(tracker.drift.x - 15 * max(row.summed, row.measured)) < 1e-9 && tracker.drift.y == 0)
        tracker.add(Shift(x: row.summed, y: 0))
        #expect(tracker.measuredDrift == nil && tracker.isStable == (15 * row.summed < 20))
    }

    /// A caller's window of no frames, or spans past counting, keep one shift at least and never overflow.
    @Test func hostileWindowsAndSpans() {
        for history in [0, -1, Int.min] {
            var tracker = StabilityTracker(historyLength: history)
            #expect(tracker.add(Shift(x: 1, y: 0)) && tracker.add(Shift(x: 30, y: 0)) == false)
            #expect(tracker.history == [Shift(x: 30, y: 0)])
        }
        var tracker = StabilityTracker(historyLength: Int.max)
        for _ in 0..<3 { tracker.add(Shift(x: 0, y: 0), span: .max) }
        #expect(!tracker.isFull && tracker.history.count == 3)
        #expect(FrameSelection.finalists([FrameCandidate(faceScores: [0.5], stable: true)], times: [], count: 3, spacing: 0, stableOnly: false) == [])
    }

    @Test func driftIsTheSumOfTheWindow() {
        var tracker = StabilityTracker(historyLength: 2)
        tracker.add(Shift(x: 100, y: 100))
        tracker.add(Shift(x: 3, y: -4))
        tracker.add(Shift(x: -1, y: 1))
        #expect(tracker.drift == Shift(x: 2, y: -3))
        #expect(tracker.drift.manhattan == 5)
    }
}

struct FrameSelectionTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var candidates: [FrameCandidate]
        var stableOnly = false
        var expected: FrameChoice
        /// Words the reason must contain.
        var reason: [String] = []
        var testDescription: String { name }
    }

    static func frame(_ scores: [Double], stable: Bool? = true, still: Bool = false, finalist: Bool = true) -> FrameCandidate {
        FrameCandidate(faceScores: scores, stable: stable, isStill: still, finalist: finalist)
    }

    @Test(arguments: [
        Row(
            name: "highest score wins", candidates: [frame([0.5]), frame([0.9]), frame([0.7])],
            expected: .chosen(index: 1, reason: ""), reason: ["0.9", "3 frames with faces"]),
        Row(
            name: "frames without faces are skipped", candidates: [frame([]), frame([0.4]), frame([])],
            expected: .chosen(index: 1, reason: ""), reason: ["1 frame with faces"]),
        Row(name: "no face anywhere", candidates: [frame([]), frame([])], expected: .noFace),
        Row(name: "no frames", candidates: [], expected: .noFace),
        Row(
            name: "a missed face counts as zero", candidates: [frame([0.95]), frame([0.8, 0.8])],
            expected: .chosen(index: 1, reason: "")),
        Row(
            name: "the reason says when someone is missing", candidates: [frame([0.99]), frame([0.3, 0.3])],
            expected: .chosen(index: 0, reason: ""), reason: ["1 of 2 faces"]),
        Row(
            name: "stable-only leaves unstable frames out", candidates: [frame([0.9], stable: false), frame([0.6]), frame([0.5], stable: nil)],
            stableOnly: true, expected: .chosen(index: 1, reason: ""), reason: ["1 stable frame with faces"]),
        Row(
            name: "stable-only with no stable face", candidates: [frame([0.9], stable: false), frame([], stable: true)],
            stableOnly: true, expected: .noStableFace),
        Row(
            name: "the still counts with stable-only", candidates: [frame([0.9], stable: false), frame([0.6], stable: nil, still: true)],
            stableOnly: true, expected: .chosen(index: 1, reason: "")),
        Row(
            name: "ties go to the still", candidates: [frame([0.8]), frame([0.8], stable: nil, still: true)],
            expected: .chosen(index: 1, reason: ""), reason: ["the still wins"]),
        Row(
            name: "ties go to a stable frame", candidates: [frame([0.8], stable: false), frame([0.8005], stable: true)],
            expected: .chosen(index: 1, reason: ""), reason: ["stable frame wins"]),
        Row(
            name: "ties go to the earliest", candidates: [frame([0.8]), frame([0.8])],
            expected: .chosen(index: 0, reason: ""), reason: ["earliest"]),
        Row(
            name: "a clear lead is not a tie", candidates: [frame([0.8], stable: false), frame([0.79], stable: true)],
            expected: .chosen(index: 0, reason: "")),
        Row(
            name: "frames screened only are not chosen", candidates: [frame([0.99], finalist: false), frame([0.6]), frame([0.5])],
            expected: .chosen(index: 1, reason: ""), reason: ["2 frames with faces scored in full"]),
        Row(
            name: "faces screened only, none in the finalists", candidates: [frame([0.9], finalist: false), frame([])], expected: .noFace),
        Row(
            name: "stable-only, faces screened only in unstable frames", candidates: [frame([0.9], stable: false, finalist: false), frame([])],
            stableOnly: true, expected: .noStableFace),
    ])
    func choice(_ row: Row) {
        let choice = FrameSelection.choose(row.candidates, stableOnly: row.stableOnly)
        switch (choice, row.expected) {
        case (.chosen(let index, let reason), .chosen(let expected, _)):
            #expect(index == expected)
            for word in row.reason { #expect(reason.contains(word), "\(reason)") }
        default:
            #expect(choice == row.expected)
        }
    }

    @Test func frameScoresAreOverTheMostFaces() {
        let scores = FrameSelection.scores([Self.frame([0.8, 0.6]), Self.frame([0.9]), Self.frame([])])
        #expect(scores.count == 3)
        #expect(abs(scores[0]! - 0.7) < 1e-12)
        #expect(abs(scores[1]! - 0.45) < 1e-12)
        #expect(scores[2] == nil)
    }

    /// Finalists and frames screened only count their faces apart: their faces come from different detectors.
    @Test func screenedFramesAreScoredAmongThemselves() {
        let scores = FrameSelection.scores([Self.frame([0.8, 0.6, 0.4], finalist: false), Self.frame([0.9]), Self.frame([0.5], finalist: false)])
        #expect(abs(scores[0]! - 0.6) < 1e-12)
        #expect(abs(scores[1]! - 0.9) < 1e-12)
        #expect(abs(scores[2]! - 0.5 / 3) < 1e-12)
    }
}

struct FinalistTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// Screened face scores and stability of frames one `step` of seconds apart.
        var frames: [(scores: [Double], stable: Bool)]
        var step = 0.1
        var count = 3
        var spacing = 0.25
        var stableOnly = false
        var expected: [Int]
        var testDescription: String { name }
    }

    static func frames(_ scores: [Double?], stable: Bool = true) -> [(scores: [Double], stable: Bool)] {
        scores.map { ($0.map { [$0] } ?? [], stable) }
    }

    @Test(arguments: [
        Row(name: "the best three, far enough apart", frames: frames([0.5, 0.9, 0.4, 0.3, 0.8, 0.2, 0.1, 0.7]), step: 0.25, expected: [1, 4, 7]),
        Row(
            name: "neighbours a blink could spoil give way to frames further off", frames: frames([0.1, 0.9, 0.89, 0.88, 0.87, 0.2, 0.5, 0.4]),
            expected: [1, 4, 7]),
        Row(name: "too short to spread: the best ones", frames: frames([0.5, 0.9, 0.8, 0.7]), expected: [1, 2, 3]),
        Row(name: "fewer frames than finalists", frames: frames([0.5, 0.9]), expected: [0, 1]),
        Row(name: "frames without a screened face are left out", frames: frames([nil, 0.5, nil, nil, nil, nil, 0.4]), expected: [1, 6]),
        Row(name: "no screened face: spread evenly", frames: frames([nil, nil, nil, nil, nil, nil, nil, nil, nil]), expected: [1, 4, 7]),
        Row(
            name: "stable only: unstable frames are left out",
            frames: [([0.9], false), ([0.8], true), ([0.7], false), ([0.6], true), ([0.5], true), ([0.4], true)], step: 0.5, stableOnly: true,
            expected: [1, 3, 4]),
        Row(name: "stable only, nothing stable", frames: frames([0.9, 0.8], stable: false), stableOnly: true, expected: []),
        Row(name: "equal scores: stable first", frames: [([0.8], false), ([0.8], true)], step: 1, count: 1, expected: [1]),
        Row(name: "one finalist", frames: frames([0.2, 0.3, 0.9, 0.1]), count: 1, expected: [2]),
    ])
    func finalists(_ row: Row) {
        let candidates = row.frames.map { FrameCandidate(faceScores: $0.scores, stable: $0.stable, finalist: false) }
        let times = row.frames.indices.map { Double($0) * row.step }
        let picked = FrameSelection.finalists(candidates, times: times, count: row.count, spacing: row.spacing, stableOnly: row.stableOnly)
        #expect(picked == row.expected)
    }
}

struct KeptFramesTests {
    typealias Held = KeptFrames.Held
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var held: [Held]
        var count: Int
        var stableOnly: Bool
        var released: Set<Int>
        var testDescription: String { name }
    }

    @Test(arguments: [
        Row(name: "as many as kept: nothing released", held: [Held(index: 0, sum: 1, stable: true, time: 0)], count: 3, stableOnly: false, released: []),
        Row(
            name: "the lowest sums go",
            held: [
                Held(index: 0, sum: 0.5, stable: true, time: 0), Held(index: 1, sum: 0.9, stable: true, time: 1),
                Held(index: 2, sum: 0.7, stable: true, time: 2), Held(index: 3, sum: 0.8, stable: true, time: 3),
            ], count: 3, stableOnly: false, released: [0]),
        Row(
            name: "equal sums: the stable one stays",
            held: [Held(index: 0, sum: 0.8, stable: false, time: 0), Held(index: 1, sum: 0.8, stable: true, time: 1)], count: 1,
            stableOnly: false, released: [0]),
        Row(
            name: "equal sums and stability: the earliest stays",
            held: [Held(index: 4, sum: 0.8, stable: true, time: 2), Held(index: 5, sum: 0.8, stable: true, time: 1)], count: 1,
            stableOnly: false, released: [4]),
        Row(
            name: "stable only: unstable frames keep nothing, even among the best",
            held: [Held(index: 0, sum: 0.9, stable: false, time: 0), Held(index: 1, sum: 0.5, stable: true, time: 1)], count: 3,
            stableOnly: true, released: [0]),
        Row(
            name: "no face score: released once over the count",
            held: [
                Held(index: 0, sum: 0, stable: true, time: 0), Held(index: 1, sum: 0.5, stable: true, time: 1),
                Held(index: 2, sum: 0.6, stable: true, time: 2),
            ], count: 2, stableOnly: false, released: [0]),
        Row(name: "nothing held", held: [], count: 3, stableOnly: true, released: []),
    ])
    func theBestFewKeepTheirPictures(_ row: Row) {
        #expect(KeptFrames.released(row.held, keeping: row.count, stableOnly: row.stableOnly) == row.released)
    }
}
