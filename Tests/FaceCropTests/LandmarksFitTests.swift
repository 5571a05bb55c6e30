import FaceCropCore
import Foundation
import Testing

// dlib's 68-point predictor on real portraits: the Debian model, real pixels, the real cache.
@testable import FaceCrop

/// One fitter for the tests that only fit, loaded through a cache that outlives the test run (a fresh machine
/// pays dlib's slow load once).
enum LandmarkFixtures {
    static let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-tests-landmark-cache").path
    static let fitter = try! LandmarkFitter(cacheDirectory: cacheDirectory)

    /// A face of an analysed image: its RGB pixels at the analysis size, and its box in those pixels.
    struct Face {
        let observation: FaceObservation
        let box: Rect
    }

    /// Runs `body` on the analysis-size pixels of `path` and its faces.
    static func withFaces<R>(_ path: String, _ body: (UnsafePointer<UInt8>, Int, Int, [Face]) throws -> R) throws -> R {
        let analysis = try FaceCropper(detector: Fixtures.detector).analyze(Fixtures.path(path))
        let faces = analysis.faces.map { Face(observation: $0, box: $0.boundingBox(in: analysis.analysisSize)) }
        return try analysis.preview.withRGB8 { rgb, w, h in try body(rgb, w, h, faces) }
    }
}

struct LandmarksFitTests {
    static func distance(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
    static func mean(_ points: ArraySlice<Point>) -> Point {
        Point(x: points.map(\.x).reduce(0, +) / Double(points.count), y: points.map(\.y).reduce(0, +) / Double(points.count))
    }

    @Test func fitsAPortraitWithOpenEyes() throws {
        let fitter = LandmarkFixtures.fitter
        #expect(fitter.pointCount == 68)
        try LandmarkFixtures.withFaces("Golden/portrait-16x9/input.jpg") { rgb, w, h, faces in
            let face = try #require(faces.first)
            let points = try fitter.fit(rgb: rgb, width: w, height: h, faceBox: face.box)
            #expect(points.count == 68)
            let box = face.box.outsetBy(0.05 * face.box.width)
            for (i, p) in points.enumerated() {
                #expect(box.contains(Rect(x: p.x, y: p.y, width: 0, height: 0)), "point \(i) \(p) outside \(face.box)")
            }
            // Pixels, origin top-left: brows above eyes above the nose tip above the mouth above the chin.
            let rightEye = Self.mean(points[36...41])
            let leftEye = Self.mean(points[42...47])
            let mouth = Self.mean(points[48...59])
            #expect(Self.mean(points[17...26]).y < rightEye.y && rightEye.y < points[30].y && points[30].y < mouth.y && mouth.y < points[8].y)
            // The subject's right eye and brow are on the image's left.
            #expect(rightEye.x < leftEye.x && Self.mean(points[17...21]).x < Self.mean(points[22...26]).x)
            #expect(points[0].x < points[16].x && points[48].x < points[54].x)
            // dlib's pupils agree with YuNet's eye points to within 8 % of the face width.
            let five = try #require(face.observation.landmarks).allPoints.map {
                Coordinates.pixelPoint(forNormalized: $0, imageSize: ImageSize(width: w, height: h))
            }
            #expect(Self.distance(rightEye, five[0]) < 0.08 * face.box.width, "\(rightEye) vs YuNet \(five[0])")
            #expect(Self.distance(leftEye, five[1]) < 0.08 * face.box.width, "\(leftEye) vs YuNet \(five[1])")

            let landmarks = try #require(FaceLandmarks2D(ibug68: points, faceBox: face.box))
            let measures = try #require(landmarks.measures)
            #expect((0.18...0.45).contains(measures.rightEyeAspectRatio), "\(measures)")
            #expect((0.18...0.45).contains(measures.leftEyeAspectRatio), "\(measures)")
            #expect((0...0.6).contains(measures.mouthOpenness), "\(measures)")
            // Vision's conventions on the region model: the eyes' normalized y is larger than the mouth's.
            let eyeY = try #require(landmarks.rightPupil?.normalizedPoints.first?.y)
            #expect(eyeY > Self.mean(try #require(landmarks.outerLips?.normalizedPoints)[...]).y)
        }
    }

    /// Every face of a group photo: pupils where YuNet put the eyes, eyes above the mouth.
    @Test func fitsEveryFaceOfAGroup() throws {
        try LandmarkFixtures.withFaces("Samples/group.jpg") { rgb, w, h, faces in
            #expect(faces.count >= 2)
            for face in faces {
                let points = try LandmarkFixtures.fitter.fit(rgb: rgb, width: w, height: h, faceBox: face.box)
                let rightEye = Self.mean(points[36...41])
                let leftEye = Self.mean(points[42...47])
                let five = try #require(face.observation.landmarks).allPoints.map {
                    Coordinates.pixelPoint(forNormalized: $0, imageSize: ImageSize(width: w, height: h))
                }
                #expect(Self.distance(rightEye, five[0]) < 0.1 * face.box.width, "face \(face.box): \(rightEye) vs \(five[0])")
                #expect(Self.distance(leftEye, five[1]) < 0.1 * face.box.width, "face \(face.box): \(leftEye) vs \(five[1])")
                #expect(max(rightEye.y, leftEye.y) < Self.mean(points[48...59]).y)
            }
        }
    }

    /// clm_fit re-runs dlib's operator() to keep sub-pixel points: rounded, they are dlib's own, except on a face
    /// where the compact model's 16-bit leaves flip one of the trees' splits (then points move by up to 1.6 % of the
    /// face's width, docs/how-it-works.md): every point within 0.5 px plus 2 % of the width, most faces exact.
    @Test func subPixelPointsRoundToDlibsOwn() throws {
        try LandmarkFixtures.withFaces("Samples/group.jpg") { rgb, w, h, faces in
            var exact = 0
            for face in faces {
                let points = try LandmarkFixtures.fitter.fit(rgb: rgb, width: w, height: h, faceBox: face.box)
                let reference = try LandmarkFixtures.fitter.fitReference(rgb: rgb, width: w, height: h, faceBox: face.box)
                #expect(reference.allSatisfy { $0.x == $0.x.rounded() && $0.y == $0.y.rounded() })
                let moves = zip(points, reference).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }
                #expect(moves.allSatisfy { $0 <= 0.5 + 0.02 * face.box.width }, "face \(face.box): \(moves.max() ?? 0) px from dlib's")
                if moves.allSatisfy({ $0 <= 0.5 + 1e-4 }) { exact += 1 }
                #expect(points != reference, "sub-pixel points should not all be whole numbers")
            }
            #expect(faces.count >= 4 && exact * 2 > faces.count, "\(exact) of \(faces.count) faces round to dlib's points")
        }
    }

    @Test func fitsFromSeveralThreadsAtOnceAlike() async throws {
        let (rgb, w, h, box) = try LandmarkFixtures.withFaces("Golden/portrait-16x9/input.jpg") { rgb, w, h, faces in
            (Array(UnsafeBufferPointer(start: rgb, count: w * h * 3)), w, h, try #require(faces.first).box)
        }
        let expected = try rgb.withUnsafeBufferPointer { try LandmarkFixtures.fitter.fit(rgb: $0.baseAddress!, width: w, height: h, faceBox: box) }
        let results = try await withThrowingTaskGroup(of: [Point].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try rgb.withUnsafeBufferPointer { try LandmarkFixtures.fitter.fit(rgb: $0.baseAddress!, width: w, height: h, faceBox: box) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8 && results.allSatisfy { $0 == expected })
    }

    /// First load parses dlib's file and writes the cache; the next reads it. Same points, bit for bit.
    @Test func cacheGivesTheSamePointsAsDlibsOwnLoad() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cacheDir = dir.appendingPathComponent("nested/cache").path
        let slow = try LandmarkFitter(cacheDirectory: cacheDir)
        #expect(!slow.loadedFromCache)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cacheDir) == ["shape_predictor_68_face_landmarks.dat.facecrop-raw"])
        let fast = try LandmarkFitter(cacheDirectory: cacheDir)
        #expect(fast.loadedFromCache)
        try LandmarkFixtures.withFaces("Samples/group.jpg") { rgb, w, h, faces in
            for face in faces {
                let a = try slow.fit(rgb: rgb, width: w, height: h, faceBox: face.box)
                let b = try fast.fit(rgb: rgb, width: w, height: h, faceBox: face.box)
                #expect(a == b)
            }
        }
    }

    /// The cache's failure modes on a 3-point model (Tests/Fixtures, made by scripts/make-tiny-landmark-model.cpp)
    /// that loads in microseconds: a damaged or stale cache is ignored and rewritten, and gives the same points.
    @Test func aDamagedOrStaleCacheIsReplaced() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = dir.appendingPathComponent("tiny.dat").path
        try FileManager.default.copyItem(atPath: Fixtures.path("Tests/Fixtures/tiny-shape-predictor.dat"), toPath: model)
        let cacheDir = dir.appendingPathComponent("cache").path
        let cacheFile = cacheDir + "/tiny.dat.facecrop-raw"
        func load() throws -> LandmarkFitter { try LandmarkFitter(modelPath: model, cacheDirectory: cacheDir) }
        func overwrite(at offset: UInt64, with bytes: [UInt8]) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cacheFile))
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: Data(bytes))
            try handle.close()
        }
        var rgb = [UInt8](repeating: 0, count: 64 * 64 * 3)
        for i in rgb.indices { rgb[i] = UInt8(truncatingIfNeeded: i * 37 / 5) }
        let box = Rect(x: 8, y: 8, width: 48, height: 48)
        let parsed = try load()
        #expect(!parsed.loadedFromCache && parsed.pointCount == 3)
        let expected = try parsed.fit(rgb: &rgb, width: 64, height: 64, faceBox: box)

        let damages: [(String, () throws -> Void)] = [
            ("truncated", { try FileHandle(forWritingTo: URL(fileURLWithPath: cacheFile)).truncate(atOffset: 100) }),
            ("wrong magic", { try overwrite(at: 0, with: Array("NOTACACH".utf8)) }),
            // The shape length (offset 40) claims more floats than the file holds.
            ("huge count", { try overwrite(at: 40, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) }),
            // The first split's feature-pixel index, past the cascade's 4 pixels. Offset: header 40, shape length 8,
            // 6 floats, cascade count 8, pixel count 8, 4 anchors, 4 deltas (x, y), tree count 8, split count 8.
            ("bad index", { try overwrite(at: 40 + 8 + 6 * 4 + 8 + 8 + 4 * 4 + 4 * 8 + 8 + 8, with: [9, 0, 0, 0]) }),
            (
                "model touched",
                {
                    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: model)
                }
            ),
        ]
        for (label, damage) in damages {
            let cached = try load()
            #expect(cached.loadedFromCache, "before \(label)")
            #expect(try cached.fit(rgb: &rgb, width: 64, height: 64, faceBox: box) == expected, "before \(label)")
            try damage()
            let reparsed = try load()
            #expect(!reparsed.loadedFromCache, "\(label)")
            #expect(try reparsed.fit(rgb: &rgb, width: 64, height: 64, faceBox: box) == expected, "\(label)")
        }
        #expect(try load().loadedFromCache)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cacheDir) == ["tiny.dat.facecrop-raw"], "no temporary files left")
    }

    /// The load that writes the cache says where (for the one-time note); loads that read it, or cannot write it,
    /// say nothing.
    @Test func theLoadThatWritesTheCacheSaysSo() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = Fixtures.path("Tests/Fixtures/tiny-shape-predictor.dat")
        let cacheDir = dir.appendingPathComponent("cache").path
        let first = try LandmarkFitter(modelPath: model, cacheDirectory: cacheDir)
        #expect(first.writtenCachePath == cacheDir + "/tiny-shape-predictor.dat.facecrop-raw")
        #expect(FileManager.default.fileExists(atPath: cacheDir + "/tiny-shape-predictor.dat.facecrop-raw"))
        let note = try #require(first.cacheWrittenNote)
        #expect(note.hasPrefix("Note: saved a 0 MB copy of dlib's landmark model as '\(cacheDir)/tiny-shape-predictor.dat.facecrop-raw'"))
        #expect(note.contains("FACECROP_CACHE_DIR") && !note.contains("\n"))
        let second = try LandmarkFitter(modelPath: model, cacheDirectory: cacheDir)
        #expect(second.loadedFromCache && second.writtenCachePath == nil && second.cacheWrittenNote == nil)
        let none = try LandmarkFitter(modelPath: model, cacheDirectory: nil)
        #expect(none.writtenCachePath == nil && none.cacheWrittenNote == nil)
        let file = dir.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        let unwritable = try LandmarkFitter(modelPath: model, cacheDirectory: file.path + "/cache")
        #expect(unwritable.writtenCachePath == nil && unwritable.cacheWrittenNote == nil)
    }

    /// Only a regular file is read as the cache: a FIFO under its name (which would block the open forever) and
    /// a symbolic link (which could point anywhere) are passed over, and the model is loaded from itself, then
    /// cached in their place.
    @Test(arguments: ["fifo", "link"])
    func aCacheThatIsNotARegularFileIsPassedOver(_ kind: String) throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = Fixtures.path("Tests/Fixtures/tiny-shape-predictor.dat")
        let cacheDir = dir.appendingPathComponent("cache").path
        let cache = cacheDir + "/tiny-shape-predictor.dat.facecrop-raw"
        // A good cache, moved aside: the link points at it.
        _ = try LandmarkFitter(modelPath: model, cacheDirectory: cacheDir)
        try FileManager.default.moveItem(atPath: cache, toPath: dir.appendingPathComponent("elsewhere").path)
        if kind == "fifo" {
            #expect(mkfifo(cache, 0o600) == 0)
        } else {
            try FileManager.default.createSymbolicLink(atPath: cache, withDestinationPath: dir.appendingPathComponent("elsewhere").path)
        }
        let fitter = try LandmarkFitter(modelPath: model, cacheDirectory: cacheDir)
        #expect(!fitter.loadedFromCache && fitter.pointCount == 3)
        #expect(try LandmarkFitter(modelPath: model, cacheDirectory: cacheDir).loadedFromCache, "a regular cache written in its place")
    }

    @Test func anUnwritableCacheFolderIsIgnored() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        // A cache "folder" below a regular file cannot exist: the model still loads, twice.
        for _ in 0..<2 {
            let fitter = try LandmarkFitter(modelPath: Fixtures.path("Tests/Fixtures/tiny-shape-predictor.dat"), cacheDirectory: file.path + "/cache")
            #expect(!fitter.loadedFromCache && fitter.pointCount == 3)
        }
    }

    struct BadModel: Sendable, CustomTestStringConvertible {
        let path: String, message: String
        var testDescription: String { path }
    }

    static let badModels: [BadModel] = [
        BadModel(path: "/nonexistent/shape_predictor.dat", message: "it cannot be read: no such file or directory"),
        BadModel(path: Fixtures.path("Golden"), message: "is not a regular file"),
        BadModel(path: Fixtures.path("Golden/portrait-16x9/case.json"), message: "it is not a dlib shape predictor model"),
    ]

    @Test(arguments: badModels)
    func aBadModelPathIsAClearError(_ row: BadModel) {
        #expect {
            _ = try LandmarkFitter(modelPath: row.path, cacheDirectory: nil)
        } throws: { error in
            let text = "\(error)"
            return text.contains("'\(row.path)'") && text.contains(row.message) && (error as? FaceCropError)?.exitCode == 65
        }
    }

    @Test func aFaceBoxWithNoPixelsIsAnError() throws {
        var rgb = [UInt8](repeating: 128, count: 64 * 64 * 3)
        #expect(throws: FaceCropError.self) {
            _ = try LandmarkFixtures.fitter.fit(rgb: &rgb, width: 64, height: 64, faceBox: Rect(x: 10, y: 10, width: 0, height: 20))
        }
        // A box partly outside the image is fine: dlib reads outside pixels as black.
        let points = try LandmarkFixtures.fitter.fit(rgb: &rgb, width: 64, height: 64, faceBox: Rect(x: -20, y: 40, width: 60, height: 60))
        #expect(points.count == 68 && points.allSatisfy { $0.x.isFinite && $0.y.isFinite })
    }

    @Test func defaultModelIsWhereDebianPutsIt() {
        #expect(LandmarkFitter.defaultModelPath == "/usr/share/dlib/shape_predictor_68_face_landmarks.dat")
        #expect(FileManager.default.fileExists(atPath: LandmarkFitter.defaultModelPath), "scripts/setup.sh installs libdlib-data")
        #expect(LandmarkFitter.missingModelNote.contains("libdlib-data"))
    }
}
