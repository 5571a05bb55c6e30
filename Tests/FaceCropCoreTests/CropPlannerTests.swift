import FaceCropCore
import Testing

struct CropPlannerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let image: ImageSize
        let faces: [Rect]
        var strategy = CropStrategy.all
        let margin: Double
        let ratio: Double
        let rect: PixelRect
        var cut: [Int] = []
        var fits = true
        var testDescription: String { name }
    }

    static func box(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Rect { Rect(x: x, y: y, width: w, height: h) }

    static let rows: [Row] = [
        Row(
            name: "one face, square, fits", image: .init(width: 1000, height: 1000), faces: [box(400, 400, 200, 200)],
            margin: 100, ratio: 1, rect: .init(x: 300, y: 300, width: 400, height: 400)),
        Row(
            name: "one face, 16:9 grows the width around the centre", image: .init(width: 1000, height: 1000), faces: [box(400, 400, 200, 200)],
            margin: 100, ratio: 16.0 / 9, rect: .init(x: 145, y: 300, width: 711, height: 400)),
        Row(
            name: "face in the corner: region clipped, crop clamped", image: .init(width: 1000, height: 800), faces: [box(0, 0, 100, 100)],
            margin: 50, ratio: 1, rect: .init(x: 0, y: 0, width: 150, height: 150)),
        Row(
            name: "face touching the right border, margin larger than the room", image: .init(width: 1000, height: 700), faces: [box(900, 300, 100, 100)],
            margin: 200, ratio: 16.0 / 9, rect: .init(x: 111, y: 100, width: 889, height: 500)),
        Row(
            name: "tiny image smaller than the margin: largest 16:9, face kept and centred", image: .init(width: 96, height: 72), faces: [box(30, 20, 36, 40)],
            margin: 200, ratio: 16.0 / 9, rect: .init(x: 0, y: 13, width: 96, height: 54), fits: false),
        Row(
            name: "two equal faces too far apart for 9:16: one kept whole, not both halved", image: .init(width: 1600, height: 900),
            faces: [box(100, 400, 100, 100), box(1400, 400, 100, 100)],
            margin: 50, ratio: 9.0 / 16, rect: .init(x: 0, y: 0, width: 506, height: 900), cut: [1], fits: false),
        Row(
            name: "the larger face wins when only one fits", image: .init(width: 1600, height: 900),
            faces: [box(100, 400, 100, 100), box(1380, 380, 120, 120)],
            margin: 50, ratio: 9.0 / 16, rect: .init(x: 1094, y: 0, width: 506, height: 900), cut: [0], fits: false),
        Row(
            name: "two small faces outweigh nothing: the big one still wins", image: .init(width: 2000, height: 500),
            faces: [box(100, 200, 40, 40), box(200, 200, 40, 40), box(1700, 100, 200, 200)],
            margin: 20, ratio: 1, rect: .init(x: 1500, y: 0, width: 500, height: 500), cut: [0, 1], fits: false),
        Row(
            name: "three faces, two fit together and beat the third", image: .init(width: 1600, height: 900),
            faces: [box(100, 300, 150, 150), box(450, 300, 150, 150), box(1300, 300, 160, 160)],
            margin: 20, ratio: 1, rect: .init(x: 0, y: 0, width: 900, height: 900), cut: [2], fits: false),
        Row(
            name: "face larger than the image", image: .init(width: 100, height: 100), faces: [box(-20, -20, 140, 140)],
            margin: 0, ratio: 1, rect: .init(x: 0, y: 0, width: 100, height: 100)),
        Row(
            name: "original aspect of a 3:2 image", image: .init(width: 1200, height: 800), faces: [box(100, 100, 100, 100)],
            margin: 0, ratio: 1.5, rect: .init(x: 75, y: 100, width: 150, height: 100)),
        Row(
            name: "extreme 100:1: no face can be whole, stays centred", image: .init(width: 1000, height: 1000), faces: [box(450, 450, 100, 100)],
            margin: 0, ratio: 100, rect: .init(x: 0, y: 495, width: 1000, height: 10), cut: [0], fits: false),
        Row(
            name: "zero-size face", image: .init(width: 1000, height: 1000), faces: [box(500, 500, 0, 0)],
            margin: 0, ratio: 1, rect: .init(x: 500, y: 500, width: 1, height: 1)),
        Row(
            name: "1x1 image", image: .init(width: 1, height: 1), faces: [box(0, 0, 1, 1)],
            margin: 200, ratio: 16.0 / 9, rect: .init(x: 0, y: 0, width: 1, height: 1)),
        Row(
            name: "average: Ancestry's region, exactly", image: .init(width: 1000, height: 1000),
            faces: [box(100, 100, 50, 50), box(300, 120, 70, 70)], strategy: .average,
            margin: 10, ratio: 1, rect: .init(x: 90, y: 0, width: 280, height: 280)),
        Row(
            name: "largest: only the largest face framed, the other reported cut", image: .init(width: 1000, height: 1000),
            faces: [box(0, 0, 10, 10), box(500, 500, 100, 100)], strategy: .largest,
            margin: 0, ratio: 1, rect: .init(x: 500, y: 500, width: 100, height: 100), cut: [0]),
    ]

    @Test(arguments: rows)
    func plan(_ row: Row) throws {
        let plan = try #require(CropPlanner.plan(faces: row.faces, image: row.image, strategy: row.strategy, margin: row.margin, ratio: row.ratio))
        #expect(plan.rect == row.rect)
        #expect(plan.cutFaces == row.cut)
        #expect(plan.regionFits == row.fits)
    }

    @Test func noFacesNoPlan() {
        #expect(CropPlanner.plan(faces: [], image: .init(width: 10, height: 10), strategy: .all, margin: 0, ratio: 1) == nil)
        // The public helpers take no faces too: an empty region, not a trap.
        for strategy in CropStrategy.allCases {
            #expect(CropPlanner.region(faces: [], strategy: strategy, margin: 10) == Rect(x: 0, y: 0, width: 0, height: 0))
        }
    }

    @Test func pixelCountsSaturate() {
        #expect(ImageSize(width: 4000, height: 3000).pixels == 12_000_000)
        #expect(ImageSize(width: .max, height: 2).pixels == .max)
    }

    /// Ancestry's formula, term by term: offset = margin + (mean x − min x).
    @Test func averageRegionIsTheReferenceFormula() {
        let faces = [Self.box(100, 100, 50, 50), Self.box(300, 120, 70, 70), Self.box(200, 400, 60, 40)]
        let r = CropPlanner.averageRegion(faces: faces, margin: 25)
        // mean x 200, mean y 206.67, mean w 60, mean h 53.33, min x 100 -> offset 125
        expectClose(r, Rect(x: 75, y: 620.0 / 3 - 125, width: 310, height: 160.0 / 3 + 250), tolerance: 1e-9)
    }

    @Test(arguments: [
        (16.0 / 9, ImageSize(width: 4000, height: 3000), 4000, 2250),
        (1.0, ImageSize(width: 4000, height: 3000), 3000, 3000),
        (9.0 / 16, ImageSize(width: 4000, height: 3000), 1688, 3000),
        (1.91, ImageSize(width: 100, height: 100), 100, 52),
        (0.8, ImageSize(width: 7, height: 3), 2, 3),
        (1000.0, ImageSize(width: 10, height: 10), 10, 1),
    ])
    func largestSize(_ ratio: Double, _ image: ImageSize, _ w: Int, _ h: Int) {
        let s = CropPlanner.largestSize(ratio: ratio, in: image)
        #expect(s.width == w && s.height == h)
    }

    /// Invariants over many random layouts: inside the image, aspect within a pixel, and with `.all` no face
    /// cut whenever the faces fit together in the largest crop of that aspect.
    @Test func invariantsOverRandomLayouts() {
        var rng = SplitMix(seed: 42)
        for _ in 0..<3000 {
            let image = ImageSize(width: Int.random(in: 1...3000, using: &rng), height: Int.random(in: 1...3000, using: &rng))
            let faces = (0..<Int.random(in: 1...6, using: &rng)).map { _ in
                let w = Double.random(in: 0...Double(image.width) / 2, using: &rng)
                return Rect(
                    x: Double.random(in: -20...Double(image.width), using: &rng), y: Double.random(in: -20...Double(image.height), using: &rng),
                    width: w, height: w * Double.random(in: 0.8...1.4, using: &rng))
            }
            let ratio = [16.0 / 9, 1, 9.0 / 16, 4.0 / 5, 1.91, 3, 0.2].randomElement(using: &rng)!
            let strategy = CropStrategy.allCases.randomElement(using: &rng)!
            let margin = Double.random(in: 0...400, using: &rng)
            let plan = CropPlanner.plan(faces: faces, image: image, strategy: strategy, margin: margin, ratio: ratio)!
            let r = plan.rect
            #expect(r.x >= 0 && r.y >= 0 && r.width >= 1 && r.height >= 1 && r.x + r.width <= image.width && r.y + r.height <= image.height)
            let w = Double(r.width)
            let h = Double(r.height)
            #expect(min(abs(w - h * ratio), abs(h - w / ratio)) <= 0.5 + 1e-9 || r.width == 1 || r.height == 1, "aspect \(r) vs \(ratio)")
            if plan.regionFits && strategy == .all { #expect(plan.cutFaces.isEmpty) }
            if strategy == .all {
                let visible = faces.map { $0.intersection(image.bounds) }
                let union = visible.dropFirst().reduce(visible[0]) { $0.union($1) }
                let largest = CropPlanner.largestSize(ratio: ratio, in: image)
                if union.width <= Double(largest.width) - 1 && union.height <= Double(largest.height) - 1 {
                    #expect(plan.cutFaces.isEmpty, "faces \(faces) fit in \(largest) of \(image) but \(plan.cutFaces) were cut")
                }
            }
        }
    }
}

/// A small deterministic generator so the random layouts are the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Hostile values through the public API: any ratio and margin (zero, NaN, infinite, subnormal, huge) give a
/// crop inside the image, never a trap; float-to-int conversions clamp.
struct HostilePlanningTests {
    static let ratios: [Double] = [0, -1, .nan, .infinity, -.infinity, 1e308, 1e-308, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1, 16.0 / 9]
    static let margins: [Double] = [0, -1e308, .nan, .infinity, -.infinity, 1e308, .leastNonzeroMagnitude, 200]

    @Test(arguments: ratios)
    func anyRatioGivesACropInsideTheImage(_ ratio: Double) {
        let image = ImageSize(width: 640, height: 480)
        for margin in Self.margins {
            for faces in [[Rect(x: 100, y: 100, width: 50, height: 60)], [Rect(x: .nan, y: 0, width: .infinity, height: 1)]] {
                guard let plan = CropPlanner.plan(faces: faces, image: image, strategy: .all, margin: margin, ratio: ratio) else {
                    Issue.record("no plan for ratio \(ratio), margin \(margin)")
                    continue
                }
                let r = plan.rect
                #expect(r.width >= 1 && r.height >= 1 && r.x >= 0 && r.y >= 0, "ratio \(ratio), margin \(margin): \(r)")
                #expect(r.x + r.width <= 640 && r.y + r.height <= 480, "ratio \(ratio), margin \(margin): \(r)")
            }
            let largest = CropPlanner.largestSize(ratio: ratio, in: image)
            #expect((1...640).contains(largest.width) && (1...480).contains(largest.height), "ratio \(ratio): \(largest)")
        }
    }

    @Test(arguments: [
        (Double.nan, 1...10, 1), (.infinity, 1...10, 10), (-.infinity, 1...10, 1), (1e308, 0...Int.max, Int.max),
        (-1e308, Int.min...0, Int.min), (9.3e18, 0...Int.max, Int.max), (4.4, 0...10, 4), (4.5, 0...10, 5),
    ])
    func clampedIntNeverTraps(_ value: Double, _ range: ClosedRange<Int>, _ expected: Int) {
        #expect(clampedInt(value, in: range) == expected)
    }
}
