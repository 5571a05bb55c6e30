import Foundation
import Testing

// The three detectors on real pictures with known face positions (the golden inputs' truth.json: portraits
// placed at known boxes), through the real OpenCV and the built-in models.
@testable import FaceCrop

struct DetectorTests {
    struct Truth: Decodable {
        var width: Int
        var height: Int
        var faces: [[Double]]
    }

    /// Golden cases whose input has a truth.json: portraits, groups, rotated and border faces.
    static let truthCases: [String] = {
        let golden = Fixtures.root.appendingPathComponent("Golden")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: golden.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: golden.appendingPathComponent("\($0)/truth.json").path) }.sorted()
    }()

    static func input(_ name: String) -> String {
        let dir = Fixtures.path("Golden/\(name)")
        let file = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.first { $0.hasPrefix("input.") } ?? "input.jpg"
        return "\(dir)/\(file)"
    }

    static func truth(_ name: String) throws -> Truth {
        try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: Fixtures.path("Golden/\(name)/truth.json"))))
    }

    static let yunet = try! FaceDetector(kind: .yunet)

    @Test func thereArePicturesWithKnownFaces() {
        #expect(Self.truthCases.count >= 5, "\(Self.truthCases)")
    }

    /// CenterFace and YuNet find every placed face (IoU ≥ 0.3 with its box) and nothing far from one.
    @Test(arguments: [DetectorKind.centerface, .yunet])
    func findsEveryPlacedFace(_ kind: DetectorKind) throws {
        let cropper = FaceCropper(detector: kind == .centerface ? Fixtures.detector : Self.yunet)
        for name in Self.truthCases {
            let truth = try Self.truth(name)
            let analysis = try cropper.analyze(Self.input(name))
            let found = analysis.faceRects
            #expect(analysis.uprightOrientation == nil, "\(kind) \(name): faces tilted, not turned")
            for t in truth.faces {
                let box = Rect(x: t[0], y: t[1], width: t[2], height: t[3])
                let best = found.map { $0.iou(box) }.max() ?? 0
                #expect(best >= 0.3, "\(kind) \(name): the face at \(box) was not found (best IoU \(best))")
            }
            for f in found {
                let near = truth.faces.contains { t in f.iou(Rect(x: t[0], y: t[1], width: t[2], height: t[3])) > 0.1 }
                #expect(near, "\(kind) \(name): a face at \(f) where none was placed")
            }
        }
    }

    @Test func haarFindsTheFrontalPortrait() throws {
        let haar = FaceCropper(detector: try FaceDetector(kind: .haar))
        let truth = try Self.truth("haar-portrait")
        let found = try haar.analyze(Self.input("haar-portrait")).faceRects
        for t in truth.faces {
            #expect(found.contains { $0.iou(Rect(x: t[0], y: t[1], width: t[2], height: t[3])) >= 0.3 }, "\(found)")
        }
    }

    /// CenterFace's 5 points come decoded in facecrop's order (the eye on the image's left first, then the
    /// other eye, the nose, the mouth corner on the image's left, the other one) and sit where a face has them.
    @Test func centerfaceLandmarksAreDecodedInOrder() throws {
        let analysis = try FaceCropper(detector: Fixtures.detector).analyze(Self.input("group-three-16x9"))
        #expect(analysis.faces.count == 3)
        for face in analysis.faces {
            let box = face.boundingBox(in: analysis.size)
            let p = try #require(face.landmarks).points(in: analysis.size)
            let (eyeA, eyeB, nose, mouthA, mouthB) = (p[0], p[1], p[2], p[3], p[4])
            #expect(eyeA.x < nose.x && nose.x < eyeB.x, "eyes \(eyeA) \(eyeB) around the nose \(nose)")
            #expect(mouthA.x < mouthB.x)
            #expect(max(eyeA.y, eyeB.y) < nose.y && nose.y < min(mouthA.y, mouthB.y), "eyes above the nose above the mouth")
            for q in p { #expect(box.contains(Rect(x: q.x, y: q.y, width: 0, height: 0)), "\(q) outside \(box)") }
            // Eyes in the upper half of the box, the mouth in the lower third.
            #expect(max(eyeA.y, eyeB.y) < box.midY && min(mouthA.y, mouthB.y) > box.minY + box.height * 0.6)
        }
    }

    /// OpenCV's ONNX importer must not keep the shapes of the first input it saw: one detector used at several
    /// sizes in a row finds exactly what a fresh detector finds at each size, also when it keeps the net of the
    /// size before (`keepsNetsForTwoSizes`) and goes back to it, landscape and portrait in turn.
    @Test(arguments: [false, true])
    func aDetectorReusedAtOtherSizesMatchesAFreshOne(_ keepsTwo: Bool) throws {
        let runs = [
            (640, "group-three-16x9"), (320, "group-three-16x9"), (640, "group-three-16x9"), (640, "haar-portrait"),
            (640, "group-three-16x9"), (640, "haar-portrait"), (480, "group-three-16x9"), (200, "group-three-16x9"),
        ]
        let shared = try FaceDetector(kind: .centerface)
        shared.keepsNetsForTwoSizes(keepsTwo)
        for (size, name) in runs {
            let path = Self.input(name)
            let a = try FaceCropper(detector: shared, analysisSize: size).analyze(path)
            let b = try FaceCropper(detector: try FaceDetector(kind: .centerface), analysisSize: size).analyze(path)
            #expect(a.analysisSize == b.analysisSize)
            #expect(!a.faces.isEmpty && a.faces.map(\.boundingBox) == b.faces.map(\.boundingBox), "\(name) at \(size)")
            #expect(a.faces.map(\.confidence) == b.faces.map(\.confidence), "\(name) at \(size)")
        }
    }

    /// A detector that let go of its working memory reads its net again: the same faces as before, at the same
    /// size and at another, however often it lets go; so does one made to read its net on first use.
    @Test func aDetectorFindsTheSameFacesAfterReleasingItsMemory() throws {
        let detector = try FaceDetector(kind: .centerface)
        let path = Self.input("group-three-16x9")
        func faces(_ size: Int) throws -> [FaceObservation] { try FaceCropper(detector: detector, analysisSize: size).analyze(path).faces }
        let before = try faces(640)
        detector.releaseWorkingMemory()
        let after = try faces(640)
        #expect(!before.isEmpty && after.map(\.boundingBox) == before.map(\.boundingBox) && after.map(\.confidence) == before.map(\.confidence))
        detector.releaseWorkingMemory()
        detector.releaseWorkingMemory()
        let fresh = try FaceCropper(detector: try FaceDetector(kind: .centerface), analysisSize: 320).analyze(path).faces
        #expect(try faces(320).map(\.boundingBox) == fresh.map(\.boundingBox))
        let onFirstUse = try FaceDetector(kind: .centerface, readsNetOnFirstUse: true)
        let lazy = try FaceCropper(detector: onFirstUse, analysisSize: 640).analyze(path).faces
        #expect(lazy.map(\.boundingBox) == before.map(\.boundingBox) && lazy.map(\.confidence) == before.map(\.confidence))
        var releasing = FaceCropper(detector: detector)
        releasing.releasesDetectorMemory = true
        for _ in 0..<2 { #expect(try releasing.analyze(path).faces.map(\.boundingBox) == before.map(\.boundingBox)) }
        Self.yunet.releaseWorkingMemory()  // YuNet holds little: nothing to let go of, and it still detects
        #expect(try !FaceCropper(detector: Self.yunet).analyze(path).faces.isEmpty)
    }

    /// A group photo stored on its side or upside down without an EXIF orientation: CenterFace finds one or two
    /// of its four faces as it is, and all four once the picture is searched again turned the way those faces say
    /// (`FaceTurn`), in the stored picture's pixels: where the upright photo's faces land when it is turned.
    /// (YuNet finds none of them turned, so nothing tells it which way to look.)
    @Test func facesInAPictureStoredTurnedAreAllFound() throws {
        let cropper = FaceCropper(detector: Fixtures.detector)
        let upright = try cropper.analyze(Fixtures.path("Samples/group.jpg"))
        #expect(upright.faces.count == 4)
        let (w, h) = (Double(upright.size.width), Double(upright.size.height))
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // vips rot turns clockwise: where an upright point (x, y) lands, and the orientation that turns it back.
        let turns: [(String, (Double, Double) -> (Double, Double), Orientation)] = [
            ("d90", { x, y in (h - y, x) }, .left), ("d180", { x, y in (w - x, h - y) }, .down), ("d270", { x, y in (y, w - x) }, .right),
        ]
        #expect(upright.uprightOrientation == nil)
        for (angle, land, back) in turns {
            let path = dir.appendingPathComponent("group-\(angle).jpg").path
            try Fixtures.vips(["rot", Fixtures.path("Samples/group.jpg"), path, angle])
            let turned = try cropper.analyze(path)
            #expect(turned.orientation == .up && turned.uprightOrientation == back, "\(angle)")
            #expect(turned.faces.count == 4, "\(angle): \(turned.faceRects)")
            for box in upright.faceRects {
                let (a, b) = (land(box.minX, box.minY), land(box.maxX, box.maxY))
                let expected = Rect(x: min(a.0, b.0), y: min(a.1, b.1), width: abs(a.0 - b.0), height: abs(a.1 - b.1))
                let best = turned.faceRects.map { $0.iou(expected) }.max() ?? 0
                #expect(best > 0.6, "\(angle): no face at \(expected) (best IoU \(best))")
            }
        }
    }

    /// The pixels of `rgb` (packed RGB, `width` x `height`) as libvips shows them turned by `o`.
    static func shown(_ rgb: [UInt8], width: Int, height: Int, as o: Orientation) throws -> (pixels: [UInt8], width: Int) {
        try RGBImage(width: width, height: height, pixels: rgb).vipsImage.shown(as: o).withRGB8 { p, w, h in
            (Array(UnsafeBufferPointer(start: p, count: w * h * 3)), w)
        }
    }

    /// A 3x2 picture shown turned (the turned search's copy): every shown pixel is the stored pixel `storedPixel`
    /// names. Mirrored orientations are never searched, and `shown(as:)` does not take them.
    @Test(arguments: [Orientation.up, .right, .down, .left])
    func turnedPixelsComeFromWhereTheOrientationSays(_ o: Orientation) throws {
        let size = ImageSize(width: 3, height: 2)
        let stored: [UInt8] = (0..<18).map { UInt8($0) }
        let shown = try Self.shown(stored, width: 3, height: 2, as: o).pixels
        let shownSize = o.displaySize(storedSize: size)
        #expect(shown.count == 18)
        for y in 0..<shownSize.height {
            for x in 0..<shownSize.width {
                let s = o.storedPixel(x: x, y: y, storedSize: size)
                let from = (s.y * 3 + s.x) * 3
                #expect(Array(shown[((y * shownSize.width + x) * 3)...].prefix(3)) == Array(stored[from..<from + 3]), "\(o) at \(x),\(y)")
            }
        }
    }

    /// Quarter turns by hand: `.right` shows a W x H picture turned a quarter clockwise; stored pixels map back.
    @Test(arguments: [
        // (orientation, shown pixel, its stored pixel) in a stored 4x2 picture
        (Orientation.right, (0, 0), (0, 1)), (.right, (1, 3), (3, 0)),
        (.left, (0, 0), (3, 0)), (.left, (1, 3), (0, 1)),
        (.down, (0, 0), (3, 1)), (.down, (3, 1), (0, 0)),
    ])
    func quarterTurnsByHand(_ o: Orientation, _ shown: (Int, Int), _ stored: (Int, Int)) throws {
        let rgb: [UInt8] = (0..<24).map { UInt8($0) }
        let turned = try Self.shown(rgb, width: 4, height: 2, as: o)
        #expect(turned.width == o.displaySize(storedSize: ImageSize(width: 4, height: 2)).width)
        #expect(turned.pixels[(shown.1 * turned.width + shown.0) * 3] == rgb[(stored.1 * 4 + stored.0) * 3])
    }

    /// A lone portrait stored turned: found as it is too, but searched again upright it gets the upright
    /// search's box (the upright portrait's, turned). Beside two turned copies of the group, an upright part
    /// keeps its two faces, and every face is measured standing upright.
    @Test func turnedSearchesKeepWhatTheFirstFound() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let upright = try FaceCropper(detector: Fixtures.detector).analyze(Fixtures.path("Samples/portrait.png"))
        let box = try #require(upright.faceRects.first)
        let (w, h) = (Double(upright.size.width), Double(upright.size.height))
        let turns: [(String, Orientation, Rect)] = [
            ("d90", .left, Rect(x: h - box.maxY, y: box.minX, width: box.height, height: box.width)),
            ("d180", .down, Rect(x: w - box.maxX, y: h - box.maxY, width: box.width, height: box.height)),
            ("d270", .right, Rect(x: box.minY, y: w - box.maxX, width: box.height, height: box.width)),
        ]
        for (angle, back, landed) in turns {
            let path = dir.appendingPathComponent("portrait-\(angle).png").path
            try Fixtures.vips(["rot", Fixtures.path("Samples/portrait.png"), path, angle])
            let turned = try FaceCropper(detector: Fixtures.detector).analyze(path)
            #expect(turned.faces.count == 1 && turned.uprightOrientation == back, "\(angle): \(turned.faceRects)")
            #expect((turned.faceRects.first?.iou(landed) ?? 0) > 0.9, "\(angle): \(turned.faceRects) against \(landed)")
        }
        let side = dir.appendingPathComponent("side.jpg").path
        let part = dir.appendingPathComponent("part.jpg").path
        let mixed = dir.appendingPathComponent("mixed.jpg").path
        try Fixtures.vips(["rot", Fixtures.path("Samples/group.jpg"), side, "d90"])
        try Fixtures.vips(["crop", Fixtures.path("Samples/group.jpg"), part, "0", "0", "1350", "1350"])
        try Fixtures.vips(["arrayjoin", "\(side) \(side) \(part)", mixed, "--across", "3"])
        let found = try FaceCropper(detector: Fixtures.detector, analysisSize: 1024).analyze(mixed)
        #expect(found.uprightOrientation == .left)
        #expect(found.faceRects.filter { $0.minX >= 2700 }.count == 2, "\(found.faceRects)")
        #expect(found.faceRects.filter { $0.maxX <= 2700 }.count == 8, "\(found.faceRects)")
        #expect(found.faceTurns.map { $0 == nil } == found.faceRects.map { $0.minX >= 2700 }, "\(found.faceTurns)")
        for (rect, quality) in zip(found.faceRects, try QualityAnalyzer(landmarks: nil).assess(found)) {
            let roll = try #require(quality.measurements.roll)
            #expect(abs(roll) < 25, "the face at \(rect) measured with roll \(roll)")
        }
    }

    /// Scores are at or above the threshold, and raising it only removes faces.
    @Test(arguments: [DetectorKind.centerface, .yunet])
    func theThresholdFiltersByScore(_ kind: DetectorKind) throws {
        let detector = kind == .centerface ? Fixtures.detector : Self.yunet
        let path = Self.input("group-three-16x9")
        let low = try FaceCropper(detector: detector, threshold: 0.3).analyze(path).faces
        let scores = low.map(\.confidence)
        let cut = ((scores.min() ?? 0) + (scores.max() ?? 0)) / 2
        let high = try FaceCropper(detector: detector, threshold: cut).analyze(path).faces
        #expect(low.allSatisfy { $0.confidence >= 0.3 } && high.allSatisfy { $0.confidence >= cut })
        #expect(!high.isEmpty && high.count < low.count, "\(kind): scores \(scores)")
        for face in high { #expect(low.contains { $0.boundingBox == face.boundingBox }) }
        #expect(FaceCropper(detector: detector).threshold == kind.profile.threshold)
    }

    /// The built-in CenterFace (`Models/centerface-split.onnx`, its widest blocks split into channel groups by
    /// scripts/split-centerface.py) finds the faces the published model finds, given with `--model`: the same
    /// faces, boxes, points and scores to float rounding, on pictures of several sizes (each size reads the nets
    /// anew).
    @Test func theBuiltInNetIsThePublishedOne() throws {
        let published = FaceCropper(detector: try FaceDetector(kind: .centerface, modelPath: Fixtures.path("Models/centerface.onnx")))
        let builtIn = FaceCropper(detector: Fixtures.detector)
        let paths = Self.truthCases.map(Self.input) + ["Samples/group.jpg", "Samples/portrait.png"].map(Fixtures.path)
        var faces = 0
        for path in paths {
            let expected = try published.analyze(path).faces
            let found = try builtIn.analyze(path).faces
            #expect(found.count == expected.count, "\(path)")
            for (a, b) in zip(found, expected) {
                #expect(a.landmarks != nil && b.landmarks != nil)
                let box = max(
                    abs(a.boundingBox.minX - b.boundingBox.minX), abs(a.boundingBox.minY - b.boundingBox.minY),
                    abs(a.boundingBox.width - b.boundingBox.width), abs(a.boundingBox.height - b.boundingBox.height))
                let points = zip(a.landmarks?.allPoints ?? [], b.landmarks?.allPoints ?? []).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max() ?? 0
                #expect(box < 1e-4 && points < 1e-4 && abs(a.confidence - b.confidence) < 1e-4, "\(path): \(a) against \(b)")
            }
            faces += found.count
        }
        #expect(faces >= 20)
    }

    /// A blank strip (a panorama's detection copy can be a few pixels high) has no face, every time: padded to
    /// 32 rows, OpenCV 4.6 ran the built-in net non-deterministically, now and then finding dozens.
    @Test(arguments: [1, 4, 24, 40])
    func blankStripsHaveNoFaces(_ height: Int) throws {
        let pixels = [UInt8](repeating: 100, count: 640 * height * 3)
        for run in 0..<40 {
            let found = try pixels.withUnsafeBufferPointer { (p) throws(FaceCropError) in
                try Fixtures.detector.detect(rgb: p.baseAddress!, width: 640, height: height, maxSide: 0, threshold: 0.5)
            }
            #expect(found.isEmpty, "run \(run): \(found.count) faces")
        }
    }

    /// `--model` refuses another detector's model.
    @Test func modelFilesAreCheckedForTheirDetector() throws {
        let yunetModel = Fixtures.path("Models/face_detection_yunet_2023mar.onnx")
        for onFirstUse in [false, true] {  // a model file is checked when the detector is made, either way
            #expect(throws: FaceCropError.modelUnusable(yunetModel, reason: "it is not a CenterFace model (it has no output '537')")) {
                try FaceDetector(kind: .centerface, modelPath: yunetModel, readsNetOnFirstUse: onFirstUse)
            }
        }
        let centerFaceModel = Fixtures.path("Models/centerface.onnx")
        #expect(throws: FaceCropError.modelUnusable(centerFaceModel, reason: "it is not a YuNet model (it has no output 'cls_8')")) {
            try FaceDetector(kind: .yunet, modelPath: centerFaceModel)
        }
        // A file no detector can read is refused in its own words, not OpenCV's (exit status 65, as a damaged input).
        let notAModel = Fixtures.path("Golden/portrait-16x9/case.json")
        for (kind, reason) in [(DetectorKind.centerface, "an ONNX model"), (.yunet, "an ONNX model"), (.haar, "a Haar cascade")] {
            #expect(throws: FaceCropError.modelUnusable(notAModel, reason: "it is not \(reason) OpenCV can read")) {
                try FaceDetector(kind: kind, modelPath: notAModel)
            }
        }
        #expect(FaceCropError.modelUnusable(notAModel, reason: "").exitCode == 65)
        // OpenCV parses a cascade's nesting by recursion: 50,000 levels (350 kB) overflowed the stack.
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        func nested(_ open: String, _ close: String) -> String {
            String(repeating: open, count: 50_000) + "1" + String(repeating: close, count: 50_000)
        }
        for (name, text) in [
            ("deep.xml", "<?xml version=\"1.0\"?>\n<opencv_storage>" + nested("<a>", "</a>") + "</opencv_storage>\n"),
            ("deep.json", "{\"a\":" + nested("[", "]") + "}"),
        ] {
            let path = dir.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: FaceCropError.self, "\(name)") { try FaceDetector(kind: .haar, modelPath: path) }
        }
    }

    /// Every model file a caller can name (detector, expression, landmarks) is read whole: a FIFO or a device is
    /// refused before it is opened (a FIFO would never end), as is a file over `Limits.maxModelBytes`.
    @Test func modelFilesMustBeRegularAndBounded() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("model.onnx").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let large = dir.appendingPathComponent("large.onnx").path
        #expect(FileManager.default.createFile(atPath: large, contents: nil))
        #expect(truncate(large, off_t(Limits.maxModelBytes + 1)) == 0)
        for path in [fifo, "/dev/zero", large] {
            let reason = path == large ? "\(Limits.maxModelBytes + 1) bytes, over" : "is not a regular file"
            func refused(_ body: () throws -> Void) {
                do {
                    try body()
                    Issue.record("\(path) accepted")
                } catch {
                    #expect("\(error)".contains(reason), "\(path): \(error)")
                }
            }
            refused { _ = try FaceDetector(kind: .yunet, modelPath: path) }
            refused { _ = try QualityAnalyzer(expressionModelPath: path, landmarks: nil) }
            refused { _ = try LandmarkFitter(modelPath: path, cacheDirectory: nil) }
        }
    }
}
