import Foundation
import Testing

// The library's entry points given hostile values directly (the command checks its arguments first; a
// program using the library may not): every call returns a result or throws a FaceCropError, never traps.
@testable import FaceCrop

struct HostileOptionsTests {
    static let image = try! [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("Golden/portrait-16x9/input.jpg"))))
    static let extremes: [Double] = [0, -1, .nan, .infinity, -.infinity, 1e308, .leastNonzeroMagnitude, Double(Int.max), -Double(Int.max)]
    static let counts: [Int] = [0, -1, 1, Int.max, Int.min, 1 << 31, 1 << 32]

    /// Runs the whole in-memory job; a trap would end the test process.
    func crop(_ cropper: FaceCropper = FaceCropper(detector: Fixtures.detector), options change: (inout CropOptions) -> Void = { _ in }) -> Result<
        Int, FaceCropError
    > {
        var options = CropOptions()
        change(&options)
        do throws(FaceCropError) {
            return .success(try cropper.run(bytes: Self.image, name: "portrait.jpg", format: .jpeg, options: options).bytes.count)
        } catch {
            return .failure(error)
        }
    }

    /// Success when the value is in range, else the setting's own error (64), and never anything else.
    func expect(_ result: Result<Int, FaceCropError>, valid: Bool, _ what: String) {
        switch result {
        case .success(let bytes): #expect(valid && bytes > 0, "\(what) was accepted")
        case .failure(let error):
            #expect(!valid, "\(what): \(error)")
            if case .invalidSetting = error {} else { Issue.record("\(what): \(error)") }
        }
    }

    @Test(arguments: extremes)
    func marginsAndRatios(_ value: Double) {
        let margin = value >= 0 && value <= 10_000
        let ratio = value >= 1e-4 && value <= 1e4
        expect(crop(options: { $0.margin = .pixels(value) }), valid: margin, "margin \(value) px")
        expect(crop(options: { $0.margin = .percentOfFaceHeight(value) }), valid: margin, "margin \(value) %")
        expect(crop(options: { $0.aspect = .ratio(width: value, height: 1) }), valid: ratio, "aspect \(value):1")
        expect(crop(options: { $0.aspect = .ratio(width: 1, height: value) }), valid: ratio, "aspect 1:\(value)")
        expect(crop(options: { $0.minQuality = value }), valid: false, "a minimum quality without a quality analyzer")
    }

    @Test(arguments: counts)
    func sizesAndQualities(_ value: Int) {
        let side = value >= 1 && value <= 4096  // larger sides are refused as outputs (64), not as settings
        if side {
            expect(crop(options: { $0.size = .width(value) }), valid: true, "width \(value)")
            expect(crop(options: { $0.size = .exact(width: value, height: 100) }), valid: true, "size \(value)x100")
        } else if value < 1 {
            expect(crop(options: { $0.size = .width(value) }), valid: false, "width \(value)")
            expect(crop(options: { $0.size = .exact(width: 100, height: value) }), valid: false, "size 100x\(value)")
        } else if case .failure(let error) = crop(options: { $0.size = .exact(width: 100, height: value) }) {
            #expect(error.exitCode == 64, "size 100x\(value): \(error)")
        } else {
            Issue.record("size 100x\(value) was accepted")
        }
        expect(crop(options: { $0.quality = value }), valid: (1...100).contains(value), "quality \(value)")
        let limited = crop(options: { $0.maxOutputPixels = value })  // the 512x512 crop, under and over this limit
        if (1..<512 * 512).contains(value), case .failure(.outputTooLarge) = limited {
        } else {
            expect(limited, valid: value >= 512 * 512 && value <= 1_000_000_000_000, "maxOutputPixels \(value)")
        }
    }

    @Test(arguments: extremes)
    func thresholds(_ value: Double) {
        expect(crop(FaceCropper(detector: Fixtures.detector, threshold: value)), valid: (0...1).contains(value), "threshold \(value)")
    }

    /// Limits a file or its decode can be refused by (65) are judged; no value may trap.
    @Test(arguments: counts)
    func analysisSizesAndLimits(_ value: Int) {
        expect(crop(FaceCropper(detector: Fixtures.detector, analysisSize: value)), valid: false, "analysisSize \(value)")
        var croppers = [FaceCropper(detector: Fixtures.detector, maxPixels: value)]
        for setting: WritableKeyPath<FaceCropper, Int> in [\.maxFileSize, \.maxDecodeMemory, \.singlePassBytes] {
            var cropper = FaceCropper(detector: Fixtures.detector)
            cropper[keyPath: setting] = value
            croppers.append(cropper)
        }
        for cropper in croppers {
            if case .failure(let error) = crop(cropper) { #expect([64, 65].contains(error.exitCode), "\(error)") }
        }
    }

    @Test func anOutputOverTheLimitIsRefused() {
        guard case .failure(let error) = crop(options: { $0.size = .exact(width: 1 << 20, height: 1 << 20) }) else {
            Issue.record("a terabyte-sized output was accepted")
            return
        }
        #expect(error.exitCode == 64, "\(error)")
    }
}

extension HostileOptionsTests {
    @Test func videoOptionsAreCheckedBeforeTheVideoIsOpened() throws {
        let finder = try BestFrameFinder(cropper: FaceCropper(detector: Fixtures.detector), quality: QualityAnalyzer(landmarks: nil))
        for change: (inout VideoOptions) -> Void in [
            { $0.frames = 0 }, { $0.frames = .max }, { $0.maxFrames = -1 }, { $0.historyLength = 0 },
            { $0.stabilityThreshold = .nan }, { $0.maxDuration = .infinity }, { $0.maxDuration = 0 },
        ] {
            var hostile = finder
            change(&hostile.options)
            Self.expectInvalidSetting { () throws(VideoError) in _ = try hostile.analyze("no-such-clip.mp4") }
            Self.expectInvalidSetting { () throws(VideoError) in _ = try BestFrameFinder.stability("no-such-clip.mp4", options: hostile.options) }
        }
        // The cropper's own settings too (an analysis size sizes every frame), and stability's.
        for size in [0, Int.max] {
            let hostile = try BestFrameFinder(cropper: FaceCropper(detector: Fixtures.detector, analysisSize: size), quality: QualityAnalyzer(landmarks: nil))
            Self.expectInvalidSetting { () throws(VideoError) in _ = try hostile.analyze("no-such-clip.mp4") }
            Self.expectInvalidSetting { () throws(VideoError) in
                _ = try BestFrameFinder.stability("no-such-clip.mp4", options: VideoOptions(), analysisSize: size)
            }
        }
        Self.expectInvalidSetting { () throws(VideoError) in
            _ = try BestFrameFinder.stability("no-such-clip.mp4", options: VideoOptions(), maxPixels: 0)
        }
    }

    static func expectInvalidSetting(_ body: () throws(VideoError) -> Void) {
        do throws(VideoError) {
            try body()
            Issue.record("hostile settings were accepted")
        } catch {
            if case .image(.invalidSetting) = error { return }
            Issue.record("\(error)")
        }
    }

    /// Pixels and faces a caller hands over are checked, never trusted to agree.
    @Test func callerPixelsAndFacesAreChecked() throws {
        #expect(throws: FaceCropError.self) { try RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 11)) }
        for (w, h) in [(0, 2), (-1, -1), (Int.max, 2), (1 << 40, 1 << 40)] {
            #expect(throws: FaceCropError.self, "\(w)x\(h)") { try RGBImage(width: w, height: h, pixels: [0, 0, 0]) }
            #expect(throws: FaceCropError.self, "\(w)x\(h)") { try RGBImage(width: w, height: h, fill: .white) }
        }
        let frame = try RGBImage(width: 64, height: 48, fill: .white)
        let analyzer = try QualityAnalyzer(landmarks: nil)
        let hostile = [
            Rect(x: .nan, y: 0.4, width: 0.2, height: 0.2), Rect(x: 1e17, y: 0, width: 1e18, height: .infinity), Rect(x: -5, y: -5, width: 0, height: 0),
        ]
        let scores = try analyzer.screen(frame, faces: hostile.map { FaceObservation(boundingBox: $0, confidence: 0.9) }, detector: .yunet)
        #expect(scores.count == hostile.count)
    }
}

extension HostileOptionsTests {
    /// A sheet's size is checked from the count alone (before any thumbnail is made), and its tiles and
    /// columns are range-checked: about 8,000 tiles fit at the smallest tile size, no more.
    @Test func contactSheetsAreBounded() throws {
        let memory = FaceCropper.defaultMaxEncodeMemory
        try ContactSheet.check(count: 8_000, path: "s.jpg", maxEncodeMemory: memory)
        for count in [10_000, 1 << 31, Int.max] {
            #expect(throws: FaceCropError.self, "\(count) tiles") { try ContactSheet.check(count: count, path: "s.jpg", maxEncodeMemory: memory) }
        }
        // In a format encoded whole, the encoder's memory too: 32 Mpx of AVIF is about 3 GB.
        try ContactSheet.check(count: 100, path: "s.avif", maxEncodeMemory: memory)
        #expect(throws: FaceCropError.self) { try ContactSheet.check(count: 8_000, path: "s.avif", maxEncodeMemory: memory) }
        let tile = ContactSheet.Tile(image: try RGBImage(width: 4, height: 4, fill: .white), caption: ["x"])
        for size in [0, -1, 31, 1025, Int.max, Int.min] {
            #expect(throws: FaceCropError.self, "tile size \(size)") { try ContactSheet.render([tile], tileSize: size) }
        }
        for columns in [0, -1, Int.min] {
            #expect(throws: FaceCropError.self, "\(columns) columns") { try ContactSheet.render([tile], columns: columns) }
        }
        #expect(try ContactSheet.render([tile], columns: Int.max).width == ContactSheet.defaultTileSize + 30)
    }
}

extension HostileOptionsTests {
    /// What each encoder is counted to hold (docs/security.md): nothing for the formats written in strips, a
    /// fixed part and bytes per pixel for those encoded whole; never an overflow.
    @Test(
        arguments: [
            (ImageFormat.jpeg, 1_000_000_000_000, 0), (.png, 1 << 40, 0), (.tiff, 1_000_000, 0), (.webp, 1_000_000, 6_000_000),
            (.heif, 1_000_000, 20_000_000 + (32 << 20)), (.avif, 1_000_000, 120_000_000 + (48 << 20)), (.avif, 0, 48 << 20), (.avif, -5, 48 << 20),
            (.avif, Int.max, Int.max), (.webp, Int.max / 2, Int.max),
        ] as [(ImageFormat, Int, Int)])
    func encoderMemory(_ row: (ImageFormat, Int, Int)) {
        #expect(row.0.encoderMemory(pixels: row.1) == row.2)
    }

    /// Samples over 8 bits (16-bit PNG and TIFF, floats) are counted higher where the encoder takes more.
    @Test(arguments: [(ImageFormat.webp, 8_000_000), (.heif, 36_000_000 + (32 << 20)), (.avif, 144_000_000 + (48 << 20)), (.jpeg, 0)])
    func encoderMemoryOfDeepSamples(_ row: (ImageFormat, Int)) {
        #expect(row.0.encoderMemory(pixels: 1_000_000, highDepth: true) == row.1)
    }
}
