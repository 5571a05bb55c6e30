import Foundation
import Testing

// The adapters and the pipeline on real files, with the real libvips and OpenCV.
@testable import FaceCrop

enum Fixtures {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
        return dir
    }()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    static let detector = try! FaceDetector()

    /// Runs the `vips` command (libvips-tools) and records a failure when it fails.
    static func vips(_ arguments: [String]) throws { try tool("/usr/bin/vips", arguments) }

    /// Runs a command-line tool and records a failure when it fails.
    static func tool(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(path) \(arguments.joined(separator: " "))")
    }

    /// A fresh temporary folder, removed by the caller.
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

struct PipelineTests {
    let cropper = FaceCropper(detector: Fixtures.detector)

    @Test func findsTheFaceInAPortraitWithLandmarksInside() throws {
        let analysis = try cropper.analyze(Fixtures.path("Golden/portrait-16x9/input.jpg"))
        #expect(analysis.size == ImageSize(width: 512, height: 512))
        #expect(analysis.faces.count == 1)
        let face = try #require(analysis.faces.first)
        #expect(face.confidence > 0.8)
        let box = face.boundingBox(in: analysis.size)
        for p in try #require(face.landmarks).points(in: analysis.size) {
            #expect(box.contains(Rect(x: p.x, y: p.y, width: 0, height: 0)), "landmark \(p) outside \(box)")
        }
        // Vision-style: the eyes are above the mouth, so their normalized y is larger.
        let l = try #require(face.landmarks)
        #expect(l.rightEye.y > l.mouthRight.y && l.leftEye.y > l.mouthLeft.y)
        #expect(l.rightEye.x < l.leftEye.x, "the subject's right eye is on the image's left")
    }

    /// The same picture stored in the 8 EXIF orientations is seen upright every time.
    @Test func exifOrientationsAllGiveTheSameUprightFaces() throws {
        let reference = try cropper.analyze(Fixtures.path("Golden/exif-1/input.jpg"))
        let refBox = try #require(reference.faces.first).boundingBox
        for o in 2...8 {
            let a = try cropper.analyze(Fixtures.path("Golden/exif-\(o)/input.jpg"))
            #expect(a.orientation.rawValue == o)
            #expect(a.size == reference.size)
            let box = try #require(a.faces.first, "orientation \(o)").boundingBox
            #expect(abs(box.midX - refBox.midX) < 0.02 && abs(box.midY - refBox.midY) < 0.02, "orientation \(o): \(box) vs \(refBox)")
        }
    }

    /// The 68 landmarks measured with the quality land on the same upright pixels whatever the stored
    /// orientation, and an open-eyed portrait measures open eyes.
    @Test func landmarksAreFittedUprightInEveryOrientation() throws {
        let analyzer = try QualityAnalyzer(landmarks: LandmarkFixtures.fitter)
        func points(_ o: Int) throws -> (points: [Point], quality: CaptureQuality, width: Double) {
            let a = try cropper.analyze(Fixtures.path("Golden/exif-\(o)/input.jpg"))
            let face = try #require(a.faces.first)
            let q = try #require(try analyzer.assess(a).first)
            let landmarks = try #require(q.landmarks)
            #expect(landmarks.source == .dlib68 && landmarks.allPoints.count == 68)
            let all = LandmarkRegion(name: .faceContour, normalizedPoints: landmarks.allPoints, isClosed: false)
            return (all.pointsInImage(faceBoundingBox: face.boundingBox, imageSize: a.size), q, face.boundingBox(in: a.size).width)
        }
        let reference = try points(1)
        let m = reference.quality.measurements
        #expect(try #require(m.eyeAspectRatio) > 0.2 && reference.quality.components[.eyes] == 1, "\(m)")
        #expect(try #require(m.mouthOpenness) < 0.5 && reference.quality.components[.mouth] == 1)
        for o in 2...8 {
            let other = try points(o)
            let mean = zip(other.points, reference.points).map { LandmarksFitTests.distance($0, $1) }.reduce(0, +) / 68
            #expect(mean < 0.03 * reference.width, "orientation \(o): points \(mean) px apart on average")
        }
    }

    /// A portrait stored turned without an EXIF orientation (its face found with the picture turned back): its
    /// capture quality is measured upright, as the upright portrait's (roll, score), and its 68 landmarks land
    /// where the upright portrait's land when it is turned.
    @Test func facesFoundTurnedAreMeasuredUpright() throws {
        let analyzer = try QualityAnalyzer(landmarks: LandmarkFixtures.fitter)
        func measured(_ path: String) throws -> (points: [Point], quality: CaptureQuality, analysis: Analysis) {
            let a = try cropper.analyze(path)
            let face = try #require(a.faces.first)
            let q = try #require(try analyzer.assess(a).first)
            let landmarks = try #require(q.landmarks)
            #expect(landmarks.source == .dlib68 && landmarks.allPoints.count == 68)
            let all = LandmarkRegion(name: .faceContour, normalizedPoints: landmarks.allPoints, isClosed: false)
            return (all.pointsInImage(faceBoundingBox: face.boundingBox, imageSize: a.size), q, a)
        }
        let reference = try measured(Fixtures.path("Samples/portrait.png"))
        let (w, h) = (Double(reference.analysis.size.width), Double(reference.analysis.size.height))
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let turns: [(String, (Point) -> Point)] = [
            ("d90", { Point(x: h - $0.y, y: $0.x) }), ("d180", { Point(x: w - $0.x, y: h - $0.y) }), ("d270", { Point(x: $0.y, y: w - $0.x) }),
        ]
        for (angle, land) in turns {
            let path = dir.appendingPathComponent("portrait-\(angle).png").path
            try Fixtures.vips(["rot", Fixtures.path("Samples/portrait.png"), path, angle])
            let turned = try measured(path)
            #expect(turned.analysis.faceTurns == [turned.analysis.uprightOrientation])
            #expect(turned.analysis.uprightOrientation != nil, "\(angle)")
            #expect(abs(turned.quality.score - reference.quality.score) < 0.01, "\(angle): \(turned.quality.score) against \(reference.quality.score)")
            let roll = try #require(turned.quality.measurements.roll)
            #expect(abs(roll - (reference.quality.measurements.roll ?? 0)) < 5, "\(angle): roll \(roll)")
            let mean = zip(turned.points, reference.points.map(land)).map { LandmarksFitTests.distance($0, $1) }.reduce(0, +) / 68
            #expect(mean < 0.03 * reference.analysis.faceRects[0].width, "\(angle): points \(mean) px from where they land")
        }
        // A file stored for EXIF orientation 6 whose pixels were turned again (the tag kept): measured upright too.
        let exif = try measured(Fixtures.path("Golden/exif-1/input.jpg"))
        let path = dir.appendingPathComponent("exif-6-d90.jpg").path
        try Fixtures.vips(["rot", Fixtures.path("Golden/exif-6/input.jpg"), path, "d90"])
        let both = try measured(path)
        #expect(both.analysis.orientation == .right && both.analysis.uprightOrientation != nil)
        #expect(abs(both.quality.score - exif.quality.score) < 0.01, "\(both.quality.score) against \(exif.quality.score)")
        #expect(abs((both.quality.measurements.roll ?? 90) - (exif.quality.measurements.roll ?? 0)) < 5)
    }

    /// Loaded on first use, dlib's model is not there until a face is assessed, and then scores exactly as a
    /// model loaded up front.
    @Test func landmarksLoadedOnFirstUseScoreAsLandmarksLoadedUpFront() throws {
        let analysis = try cropper.analyze(Fixtures.path("Golden/exif-1/input.jpg"))
        let lazy = try QualityAnalyzer.loadingLandmarksOnFirstUse(cacheDirectory: LandmarkFixtures.cacheDirectory)
        #expect(lazy.landmarkFitter == nil)
        let scored = try lazy.assess(analysis)
        #expect(lazy.landmarkFitter?.pointCount == 68)
        #expect(scored.first?.landmarks?.source == .dlib68)
        #expect(try scored == QualityAnalyzer(landmarks: LandmarkFixtures.fitter).assess(analysis))
    }

    /// Without dlib's model, quality keeps the detector's 5 points and leaves eyes and mouth out.
    @Test func withoutTheLandmarkModelQualityUsesTheDetectorsPoints() throws {
        let analysis = try cropper.analyze(Fixtures.path("Golden/exif-1/input.jpg"))
        let q = try #require(try QualityAnalyzer(landmarks: nil).assess(analysis).first)
        #expect(q.landmarks?.source == .detector5 && q.landmarks?.allPoints.count == 5)
        #expect(q.components[.eyes] == nil && q.components[.mouth] == nil && q.measurements.eyeAspectRatio == nil)
        #expect(q.components[.pose] != nil)
    }

    @Test func haarFindsTheFrontalFaceWithoutLandmarks() throws {
        let haar = FaceCropper(detector: try FaceDetector(kind: .haar))
        let analysis = try haar.analyze(Fixtures.path("Golden/haar-portrait/input.jpg"))
        #expect(analysis.faces.count >= 1)
        #expect(analysis.faces.allSatisfy { $0.landmarks == nil })
    }

    @Test func aBadModelPathIsADetectorError() {
        #expect(throws: FaceCropError.self) { try FaceDetector(kind: .yunet, modelPath: "/nonexistent/model.onnx") }
        #expect(throws: FaceCropError.self) { try FaceDetector(kind: .haar, modelPath: "/nonexistent/cascade.xml") }
    }

    @Test func badInputsGetTheirOwnErrors() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("notes.jpg").path
        try Data("hello, this is not a JPEG\n".utf8).write(to: URL(fileURLWithPath: text))
        let empty = dir.appendingPathComponent("empty.png").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("Samples/group.jpg")))
        let truncated = dir.appendingPathComponent("truncated.jpg").path
        try jpeg.prefix(jpeg.count / 2).write(to: URL(fileURLWithPath: truncated))
        let fifo = dir.appendingPathComponent("pipe.jpg").path
        #expect(mkfifo(fifo, 0o600) == 0)

        #expect(throws: FaceCropError.notAnImage(text)) { try cropper.analyze(text) }
        #expect(throws: FaceCropError.inputEmpty(empty)) { try cropper.analyze(empty) }
        #expect(throws: FaceCropError.inputNotFound(dir.path + "/missing.jpg")) { try cropper.analyze(dir.path + "/missing.jpg") }
        #expect(throws: FaceCropError.inputIsDirectory(dir.path)) { try cropper.analyze(dir.path) }
        #expect(throws: FaceCropError.inputNotRegularFile(fifo)) { try cropper.analyze(fifo) }
        do {
            _ = try cropper.analyze(truncated)
            Issue.record("a truncated JPEG was accepted")
        } catch {
            guard case .corruptImage(truncated, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        var small = cropper
        small.maxPixels = 1000
        #expect(throws: FaceCropError.tooManyPixels(Fixtures.path("Samples/group.jpg"), width: 2400, height: 1350, limit: 1000)) {
            try small.analyze(Fixtures.path("Samples/group.jpg"))
        }
    }

    /// libvips' untrusted loaders are blocked unless allowed: a PGM (ppmload is untrusted in libvips 8.14).
    @Test func untrustedLoadersAreBlockedUnlessAllowed() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pgm = dir.appendingPathComponent("tiny.pgm").path
        try Data("P2\n2 2\n255\n0 255 255 0\n".utf8).write(to: URL(fileURLWithPath: pgm))
        FaceCropper.allowUntrustedLoaders(false)
        #expect(throws: FaceCropError.blockedLoader(pgm)) { try cropper.analyze(pgm) }
        FaceCropper.allowUntrustedLoaders(true)
        defer { FaceCropper.allowUntrustedLoaders(false) }
        #expect(try cropper.analyze(pgm).size == ImageSize(width: 2, height: 2))
    }

    @Test func outputProblemsAreFoundBeforeAnyWork() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.path("Samples/group.jpg")
        let options = CropOptions()
        #expect(throws: FaceCropError.unsupportedOutputFormat(dir.path + "/out.gif")) {
            try cropper.run(input, output: dir.path + "/out.gif", options: options)
        }
        #expect(throws: FaceCropError.outputSameAsInput(input)) { try cropper.run(input, output: input, options: options) }
        #expect(throws: FaceCropError.outputDirectoryMissing(dir.path + "/no/such")) {
            try cropper.run(input, output: dir.path + "/no/such/out.jpg", options: options)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Capture quality falls as the portrait degrades: three fixed levels of each of the nine families of
    /// scripts/quality-validation.py (which sweeps six levels and reports Spearman's rho), made with the `vips`
    /// command. Each level is a list of vips commands from {in} to {out} ({t1}, {t2}: scratch files; {line9},
    /// {line23}: motion blur masks); the score is that of the best face, which is the degraded one (the portrait
    /// has one face).
    @Test(arguments: [
        ("gaussian blur", [[["gaussblur", "{in}", "{out}", "0.01"]], [["gaussblur", "{in}", "{out}", "3"]], [["gaussblur", "{in}", "{out}", "8"]]]),
        (
            "motion blur",
            [
                [["copy", "{in}", "{out}"]], [["conv", "{in}", "{out}", "{line9}", "--precision", "float"]],
                [["conv", "{in}", "{out}", "{line23}", "--precision", "float"]],
            ]
        ),
        (
            "under-exposure",
            [[["copy", "{in}", "{out}"]], [["linear", "{in}", "{out}", "0.5", "0", "--uchar"]], [["linear", "{in}", "{out}", "0.2", "0", "--uchar"]]]
        ),
        (
            "over-exposure",
            [[["copy", "{in}", "{out}"]], [["linear", "{in}", "{out}", "1.6", "0", "--uchar"]], [["linear", "{in}", "{out}", "2.5", "0", "--uchar"]]]
        ),
        ("noise", [[["copy", "{in}", "{out}"]], Self.noise(12), Self.noise(40)]),
        ("jpeg compression", [[["copy", "{in}", "{out}[Q=95]"]], [["copy", "{in}", "{out}[Q=20]"]], [["copy", "{in}", "{out}[Q=3]"]]]),
        ("downscaling", [[["copy", "{in}", "{out}"]], [["resize", "{in}", "{out}", "0.2"]], [["resize", "{in}", "{out}", "0.08"]]]),
        ("in-plane rotation", [[["rotate", "{in}", "{out}", "0.01"]], [["rotate", "{in}", "{out}", "30"]], [["rotate", "{in}", "{out}", "50"]]]),
        // The face is x 134...354 of 480: cut at its left edge, a third into it, two thirds into it.
        (
            "border crop",
            [
                [["extract_area", "{in}", "{out}", "134", "0", "346", "600"]], [["extract_area", "{in}", "{out}", "207", "0", "273", "600"]],
                [["extract_area", "{in}", "{out}", "280", "0", "200", "600"]],
            ]
        ),
    ])
    func qualityFallsAsThePortraitDegrades(_ family: String, _ levels: [[[String]]]) throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for length in [9, 23] {  // horizontal line masks for motion blur
            try ("\(length) 1 \(length) 0\n" + Array(repeating: "1", count: length).joined(separator: " ") + "\n")
                .write(to: dir.appendingPathComponent("line\(length).mat"), atomically: true, encoding: .utf8)
        }
        let analyzer = try QualityAnalyzer(landmarks: LandmarkFixtures.fitter)
        var scores = [Double]()
        for (i, commands) in levels.enumerated() {
            let out = dir.appendingPathComponent("d\(i).\(family == "jpeg compression" ? "jpg" : "png")").path
            for command in commands {
                let args = command.map {
                    $0.replacingOccurrences(of: "{in}", with: Fixtures.path("Golden/exif-1/input.jpg"))
                        .replacingOccurrences(of: "{out}", with: out)
                        .replacingOccurrences(of: "{t1}", with: dir.appendingPathComponent("t1.v").path)
                        .replacingOccurrences(of: "{t2}", with: dir.appendingPathComponent("t2.v").path)
                        .replacingOccurrences(of: "{line9}", with: dir.appendingPathComponent("line9.mat").path)
                        .replacingOccurrences(of: "{line23}", with: dir.appendingPathComponent("line23.mat").path)
                }
                try Fixtures.vips(args)
            }
            let analysis = try cropper.analyze(out)
            scores.append(try analyzer.assess(analysis).map(\.score).max() ?? 0)
        }
        #expect(scores == scores.sorted(by: >) && Set(scores).count == scores.count, "\(family): \(scores)")
    }

    /// A mild blur lowers the score, strictly, at every step from σ 0.5 to 3 (a soft frame must never beat the
    /// sharp one in best-frame), and best-frame's screen too. True Gaussian kernels in float, rounded back to 8 bits (libvips' default kernel
    /// cuts σ 0.5 down to nothing, and its integer kernels shift the brightness by a few grey levels); every
    /// level, the sharp one included, written as PNG so that only the blur differs. The repository's copies of
    /// the three public-domain portraits (Golden/SOURCES.md).
    @Test(arguments: ["Golden/portrait-16x9/input.jpg", "Golden/haar-portrait/input.jpg", "Samples/portrait.png"])
    func mildBlurLowersTheScore(_ input: String) throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let analyzer = try QualityAnalyzer(landmarks: LandmarkFixtures.fitter)
        let source = Fixtures.path(input)
        var scores = [Double]()
        var screened = [Double]()
        for sigma in [0, 0.5, 1, 1.5, 2, 3] {
            let out = dir.appendingPathComponent("blur\(sigma).png").path
            let blurred = dir.appendingPathComponent("blur\(sigma).v").path
            let rounded = dir.appendingPathComponent("round\(sigma).v").path
            let steps =
                sigma == 0
                ? [["copy", source, out]]
                : [
                    ["gaussblur", source, blurred, "\(sigma)", "--min-ampl", "0.005", "--precision", "float"],
                    ["round", blurred, rounded, "rint"], ["cast", rounded, out, "uchar"],
                ]
            for arguments in steps { try Fixtures.vips(arguments) }
            let analysis = try cropper.analyze(out)
            scores.append(try analyzer.assess(analysis).map(\.score).max() ?? 0)
            // best-frame's screen, on the analysis-size copy as on a video frame.
            let frame = try withVipsErrors({ try RGBImage(analysis.preview) }, vips: { .imageProcessing($0.message) })
            screened.append(try analyzer.screen(frame, faces: analysis.faces, detector: analysis.detector).map(\.score).max() ?? 0)
        }
        #expect(zip(scores, scores.dropFirst()).allSatisfy { $1 < $0 }, "\(input): \(scores)")
        #expect(zip(screened, screened.dropFirst()).allSatisfy { $1 < $0 }, "\(input), screened: \(screened)")
    }

    /// An image too large to decode whole is read again, sequentially, for its faces' quality: each face is cut
    /// from one read (a second cut from the same read is an out-of-order read libvips refuses), and scores as
    /// it does decoded whole. The portrait's face is over 128 px, so sharpness has a cut of its own size.
    @Test func qualityOfAnImageReadAgainSequentially() throws {
        var streamed = cropper
        streamed.singlePassBytes = 0
        let analyzer = try QualityAnalyzer(landmarks: LandmarkFixtures.fitter)
        let path = Fixtures.path("Golden/exif-1/input.jpg")
        let whole = try analyzer.assess(cropper.analyze(path)).map(\.score)
        let sequential = try analyzer.assess(streamed.analyze(path)).map(\.score)
        #expect(whole.count == 1 && sequential.count == 1)
        #expect(zip(whole, sequential).allSatisfy { abs($0 - $1) < 0.01 }, "\(whole) vs \(sequential)")
    }

    /// Seeded Gaussian noise of `sigma` grey levels added to the portrait.
    static func noise(_ sigma: Int) -> [[String]] {
        [
            ["gaussnoise", "{t1}", "480", "600", "--sigma", "\(sigma)", "--mean", "0", "--seed", "42"], ["add", "{in}", "{t1}", "{t2}"],
            ["cast", "{t2}", "{out}", "uchar"],
        ]
    }

    /// Root may write anywhere `access()` can see, but not into sysfs: the temporary file fails first.
    @Test func anUnwritableFolderIsReportedAsSuch() throws {
        let out = "/sys/facecrop-test-\(getpid()).jpg"
        do {
            _ = try cropper.run(Fixtures.path("Samples/group.jpg"), output: out, options: CropOptions())
            Issue.record("wrote to \(out)")
        } catch {
            guard case .outputNotWritable(out, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.exitCode == 73)
        }
    }

    /// The ICC profile is kept by default and dropped with `strip`.
    /// A small image, and one decoded into pages of its own (group.jpg, 9.7 MB of pixels), keep their metadata.
    @Test(arguments: ["Golden/portrait-16x9/input.jpg", "Samples/group.jpg"])
    func iccProfileKeptUnlessStripped(_ source: String) throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("icc.jpg").path
        try Fixtures.vips(["copy", Fixtures.path(source), input + "[profile=srgb]"])
        #expect(try VipsImage.open(input, sequential: false).hasICCProfile)
        for strip in [false, true] {
            var options = CropOptions()
            options.strip = strip
            let out = dir.appendingPathComponent("out-\(strip).jpg").path
            _ = try cropper.run(input, output: out, options: options)
            #expect(try VipsImage.open(out, sequential: false).hasICCProfile == !strip, "strip \(strip)")
        }
    }

    /// `strip` leaves no EXIF (a camera's make, a GPS position) and no ICC profile in any format, WebP included
    /// (libvips 8.14's WebP saver ignores its own strip); without it, EXIF is kept.
    @Test func stripLeavesNoMetadataInAnyFormat() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The portrait with an ICC profile and an EXIF block whose Make is a marker (APP1 after the JPEG's SOI).
        let marker = "FACECROP-LEAK-TEST"
        let icc = dir.appendingPathComponent("icc.jpg").path
        try Fixtures.vips(["copy", Fixtures.path("Golden/portrait-16x9/input.jpg"), icc + "[profile=srgb]"])
        var tiff: [UInt8] = Array("II".utf8) + [0x2A, 0, 8, 0, 0, 0, 1, 0]  // header, IFD0 of one entry
        tiff += [0x0F, 0x01, 2, 0] + le32(UInt32(marker.utf8.count + 1)) + le32(26) + le32(0)  // Make: ASCII at 26
        tiff += Array(marker.utf8) + [0]
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: icc)))
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1, at: 2)
        let input = dir.appendingPathComponent("exif.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: input))
        #expect(try VipsImage.open(input, sequential: false).hasICCProfile)
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }

        for ext in ["jpg", "png", "webp", "tif", "heic", "avif"] {
            for strip in [false, true] {
                var options = CropOptions()
                options.strip = strip
                let out = dir.appendingPathComponent("out-\(strip).\(ext)").path
                _ = try cropper.run(input, output: out, options: options)
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
                let leaks = bytes.firstRange(of: Array(marker.utf8)) != nil
                if strip {
                    #expect(!leaks, "\(ext): EXIF kept")
                    #expect(try !VipsImage.open(out, sequential: false).hasICCProfile, "\(ext): ICC profile kept")
                } else if ext == "jpg" || ext == "webp" {
                    #expect(leaks, "\(ext): EXIF dropped without strip")
                }
            }
        }
        // In memory too, as facecrop-serve encodes (always stripped): a WebP of the same bytes as the file's.
        var options = CropOptions()
        options.strip = true
        let encoded = try cropper.run(bytes: jpeg, format: .webp, options: options).bytes
        #expect(encoded.firstRange(of: Array(marker.utf8)) == nil)
        #expect(encoded == [UInt8](try Data(contentsOf: dir.appendingPathComponent("out-true.webp"))))
    }

    /// A failed save leaves neither the output nor a temporary file behind, and keeps an existing output.
    @Test func aFailedWriteLeavesNothingBehind() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.jpg").path
        try Data("previous output".utf8).write(to: URL(fileURLWithPath: out))
        #expect(throws: VipsError.self) {
            try AtomicFile.write(to: out) { (tmp: String) throws in
                try Data("partial".utf8).write(to: URL(fileURLWithPath: tmp))
                throw VipsError(message: "simulated failure")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.jpg"])
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "previous output")
    }

    /// Each input format facecrop reads by default, made from the portrait with the `vips` command
    /// (libvips-tools). (JPEG 2000 and others are untrusted loaders: see untrustedLoadersAreBlockedUnlessAllowed.)
    @Test(arguments: [
        ("webp", ["copy"]), ("tif", ["copy"]), ("gif", ["copy"]), ("heic", ["copy"]), ("avif", ["copy"]),
        ("png", ["colourspace", "rgb16"]),
    ])
    func readsEachInputFormat(_ ext: String, _ operation: [String]) throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("portrait.\(ext)").path
        try Fixtures.vips([operation[0], Fixtures.path("Golden/portrait-16x9/input.jpg"), input] + operation.dropFirst())
        let out = dir.appendingPathComponent("out.jpg").path
        let report = try cropper.run(input, output: out, options: CropOptions())
        #expect(report.faces.count == 1, "\(ext): \(report.faces.count) faces")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// Grey with alpha, and palette PNGs.
    @Test func readsGreyAlphaAndPalettePNG() throws {
        for (name, path) in [("palette", "Samples/portrait.png"), ("grey-alpha", "Golden/png-alpha/input.png")] {
            let dir = try Fixtures.tempDir()
            defer { try? FileManager.default.removeItem(at: dir) }
            var input = Fixtures.path(path)
            if name == "grey-alpha" {
                input = dir.appendingPathComponent("ga.png").path
                try Fixtures.vips(["colourspace", Fixtures.path(path), input, "b-w"])
                #expect(try VipsImage.open(input, sequential: false).bands == 2)
            }
            let report = try cropper.run(input, output: dir.appendingPathComponent("out.png").path, options: CropOptions())
            #expect(report.faces.count == 1, "\(name)")
        }
    }

    @Test(arguments: ["jpg", "png", "webp", "tif", "heic", "avif"])
    func writesEachFormatAtTheExactSize(_ ext: String) throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = CropOptions()
        options.aspect = .ratio(width: 16, height: 9)
        options.size = .exact(width: 320, height: 180)
        let out = dir.appendingPathComponent("out.\(ext)").path
        let report = try cropper.run(Fixtures.path("Samples/group.jpg"), output: out, options: options)
        let written = try VipsImage.open(out, sequential: false)
        #expect(written.size == ImageSize(width: 320, height: 180))
        #expect(report.output?.format == ImageFormat(pathExtension: ext))
        #expect(written.orientation == .up)
    }

    /// JPEG shrink-on-load for the crop gives the same picture as decoding at full size (within resampling noise).
    /// Over the single-pass budget the crop is read again from the file, shrunk on load when the output is small
    /// enough: the same pixels as a full decode, cropped and resized.
    /// Within the single-pass budget the crop is cut from the pixels decoded once, never read again or shrunk.
    /// Those pixels (9.7 MB here: in pages of their own, which may be huge) are the file's.
    @Test func decodedPixelsAreCutAsTheyAre() throws {
        let analysis = try cropper.analyze(Fixtures.path("Samples/group.jpg"))
        guard case .decoded(let image) = analysis.pixels else {
            Issue.record("a JPEG within the single-pass budget is read again: \(analysis.pixels)")
            return
        }
        #expect(image.size == analysis.storedSize)
        let decoded = try image.compare(with: VipsImage.open(Fixtures.path("Samples/group.jpg"), sequential: false), threshold: 0)
        #expect(decoded.maxDelta == 0, "\(decoded)")
        var options = CropOptions()
        options.size = .exact(width: 100, height: 100)
        let crop = PixelRect(x: 0, y: 0, width: 1200, height: 1200)
        let source = try FaceCropper.source(analysis, crop: crop, size: ImageSize(width: 100, height: 100), options: options)
        #expect(source.shrink == 1 && source.image.size == analysis.storedSize)
    }

    @Test func shrinkOnLoadMatchesAFullDecode() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.path("Samples/group.jpg")
        var cropper = cropper
        cropper.singlePassBytes = 0  // read twice: the path that shrinks on load
        let analysis = try cropper.analyze(input)
        guard case .encoded = analysis.pixels, analysis.loader.isJPEG else {
            Issue.record("the crop would not be read again from the JPEG: \(analysis.pixels)")
            return
        }
        var options = CropOptions()
        options.aspect = .ratio(width: 16, height: 9)
        let crop = try cropper.plan(analysis, options: options)
        options.size = .exact(width: 400, height: 225)
        #expect(
            ShrinkOnLoad.factor(
                from: ImageSize(width: crop.rect.width, height: crop.rect.height), to: ImageSize(width: 400, height: 225), headroom: ShrinkOnLoad.outputHeadroom
            ) == 2)
        // The loader itself shrank by 2: the image the crop is cut from is half the stored size (rounded up).
        let source = try FaceCropper.source(analysis, crop: crop.rect, size: ImageSize(width: 400, height: 225), options: options)
        #expect(source.shrink == 2)
        let stored = analysis.storedSize
        #expect(source.image.size == ImageSize(width: (stored.width + 1) / 2, height: (stored.height + 1) / 2))
        let fast = dir.appendingPathComponent("fast.png").path
        _ = try cropper.write(analysis, crop: crop.rect, to: fast, options: options)
        let full = try VipsImage.open(input, sequential: false).extract(crop.rect).resized(width: 400, height: 225)
        let diff = try VipsImage.open(fast, sequential: false).compare(with: full, threshold: 40)
        #expect(diff.mismatch < 0.02, "\(diff)")
    }
}

/// The fuzzer's fixed crashers (Fuzz/regressions/) through the library, in both decode paths: pixels kept in
/// memory, and the two-pass path that reads the file again for the crop. Only FaceCropError may come out.
struct FuzzRegressionPipelineTests {
    static let files: [String] = {
        let dir = Fixtures.root.appendingPathComponent("Fuzz/regressions")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }()

    @Test(arguments: files, [64 << 20, 0])
    func replays(_ name: String, singlePassBytes: Int) throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var cropper = FaceCropper(detector: Fixtures.detector, analysisSize: 128)
        cropper.singlePassBytes = singlePassBytes
        var options = CropOptions()
        options.noFace = .center
        do {
            let analysis = try cropper.analyze(Fixtures.path("Fuzz/regressions/" + name))
            let crop = try cropper.plan(analysis, options: options)
            for ext in ["jpg", "png"] {
                let output = dir.appendingPathComponent("out." + ext).path
                _ = try cropper.write(analysis, crop: crop.rect, to: output, options: options)
                #expect(FileManager.default.fileExists(atPath: output))
            }
        } catch {
            #expect(error.exitCode == 65, "\(name): \(error)")
        }
    }
}
