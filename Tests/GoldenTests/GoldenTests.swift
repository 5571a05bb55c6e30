import Foundation
import Testing

// Golden tests: every folder in Golden/ with a case.json is one case. The input is cropped with the case's
// arguments through the real argument parser and pipeline, and compared with the recorded expected.json
// (face boxes within a tolerance, crop exact) and expected.<ext>, the output recorded then (pixels within a
// tolerance).
//
// Record: FACECROP_RECORD=1 swift test --filter GoldenTests   (refused when CI is set)
// On failure the actual output lands in .artifacts/golden/<case>/ with the command to compare it.
@testable import FaceCrop
@testable import facecrop

/// The part of a report a golden case pins down.
struct GoldenResult: Codable, Equatable {
    struct Face: Codable, Equatable {
        var boundingBox: Rect
        var confidence: Double
    }
    var width: Int
    var height: Int
    var orientation: Int
    var faces: [Face]
    var crop: PixelRect
    var cutFaces: [Int]
    var regionFits: Bool
    var fallback: NoFacePolicy?
    var marginPixels: Double
    var output: ImageSize
    var format: ImageFormat
}

struct CaseSpec: Codable {
    var args: [String]
    var output: String
    var note: String?
}

struct Truth: Codable {
    var width: Int
    var height: Int
    var faces: [[Double]]
}

enum Golden {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir.deleteLastPathComponent()
        }
        return dir
    }()
    static let folder = root.appendingPathComponent("Golden")

    static let cases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent("\($0)/case.json").path) }.sorted()
    }()

    static let recording = ProcessInfo.processInfo.environment["FACECROP_RECORD"] == "1"

    /// Normalized face boxes may move this much (detector arithmetic may differ across CPUs).
    static let faceTolerance = 0.01
    /// Pixels differing by more than `pixelThreshold` in some channel may be at most `mismatchLimit` of the image.
    static let pixelThreshold = 24.0
    static let mismatchLimit = 0.01
}

@Suite(.serialized) struct GoldenTests {
    @Test func thereAreGoldenCases() {
        #expect(Golden.cases.count >= 20, "expected the golden cases in \(Golden.folder.path)")
        #expect(!(Golden.recording && ProcessInfo.processInfo.environment["CI"] != nil), "never record golden results in CI")
    }

    @Test(arguments: Golden.cases)
    func golden(_ name: String) throws {
        let dir = Golden.folder.appendingPathComponent(name)
        let spec = try JSONDecoder().decode(CaseSpec.self, from: Data(contentsOf: dir.appendingPathComponent("case.json")))
        let input = try #require(
            FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("input.") }, "no input.* in \(name)")
        let inputPath = dir.appendingPathComponent(input).path
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-golden-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let actualPath = work.appendingPathComponent("actual.\(spec.output)").path

        let command = try Crop.parse(spec.args + [inputPath, "-o", actualPath])
        let cropper = try command.detection.makeCropper()
        let report = try cropper.run(inputPath, output: actualPath, options: command.cropOptions())
        let crop = try #require(report.crop)
        let output = try #require(report.output)
        let result = GoldenResult(
            width: report.input.width, height: report.input.height, orientation: report.input.orientation,
            faces: report.faces.map { .init(boundingBox: $0.boundingBox, confidence: ($0.confidence * 100).rounded() / 100) },
            crop: crop.rect, cutFaces: crop.cutFaces, regionFits: crop.regionFits, fallback: crop.fallback,
            marginPixels: (crop.marginPixels * 10).rounded() / 10, output: ImageSize(width: output.width, height: output.height), format: output.format)
        let actualImage = try VipsImage.open(actualPath, sequential: false)
        #expect(actualImage.size == result.output, "the written file is \(actualImage.size), the report says \(result.output)")

        let expectedJSON = dir.appendingPathComponent("expected.json")
        let expectedImage = dir.appendingPathComponent("expected.\(spec.output)")
        if Golden.recording {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(result).write(to: expectedJSON)
            try? FileManager.default.removeItem(at: expectedImage)
            try FileManager.default.copyItem(atPath: actualPath, toPath: expectedImage.path)
            return
        }

        let expected = try JSONDecoder().decode(GoldenResult.self, from: Data(contentsOf: expectedJSON))
        var failed = false
        func check(_ ok: Bool, _ message: @autoclosure () -> String) {
            if !ok { failed = true }
            #expect(ok, "\(name): \(message())")
        }
        check(
            result.width == expected.width && result.height == expected.height,
            "input size \(result.width)x\(result.height), expected \(expected.width)x\(expected.height)")
        check(result.orientation == expected.orientation, "orientation \(result.orientation), expected \(expected.orientation)")
        check(result.faces.count == expected.faces.count, "\(result.faces.count) faces, expected \(expected.faces.count)")
        for (a, e) in zip(result.faces, expected.faces) {
            let d = [
                a.boundingBox.x - e.boundingBox.x, a.boundingBox.y - e.boundingBox.y, a.boundingBox.width - e.boundingBox.width,
                a.boundingBox.height - e.boundingBox.height,
            ]
            check(d.allSatisfy { abs($0) <= Golden.faceTolerance }, "face \(a.boundingBox) differs from \(e.boundingBox) by more than \(Golden.faceTolerance)")
        }
        check(result.crop == expected.crop, "crop \(result.crop), expected \(expected.crop)")
        check(result.cutFaces == expected.cutFaces, "cut faces \(result.cutFaces), expected \(expected.cutFaces)")
        check(result.regionFits == expected.regionFits && result.fallback == expected.fallback, "regionFits/fallback differ")
        check(
            result.output == expected.output && result.format == expected.format,
            "output \(result.output) \(result.format), expected \(expected.output) \(expected.format)")

        let reference = try VipsImage.open(expectedImage.path, sequential: false)
        if reference.size == actualImage.size && reference.bands == actualImage.bands {
            let diff = try actualImage.compare(with: reference, threshold: Golden.pixelThreshold)
            check(
                diff.mismatch <= Golden.mismatchLimit,
                "\(Int(diff.mismatch * 1000) / 10)% of pixels differ by more than \(Int(Golden.pixelThreshold)) (max \(diff.maxDelta))")
        } else {
            check(
                false,
                "image is \(actualImage.size.width)x\(actualImage.size.height)x\(actualImage.bands), expected \(reference.size.width)x\(reference.size.height)x\(reference.bands)"
            )
        }

        // The detector must find the faces that were placed in the picture.
        if command.detection.detector != .haar, let truthData = try? Data(contentsOf: dir.appendingPathComponent("truth.json")) {
            let truth = try JSONDecoder().decode(Truth.self, from: truthData)
            let found = report.faces.map(\.rect)
            for t in truth.faces {
                let box = Rect(x: t[0], y: t[1], width: t[2], height: t[3])
                let best = found.map { $0.iou(box) }.max() ?? 0
                check(best >= 0.3, "the placed face \(box) was not found (best IoU \(best))")
            }
        }

        if failed {
            let artifacts = Golden.root.appendingPathComponent(".artifacts/golden/\(name)")
            try? FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
            let kept = artifacts.appendingPathComponent("actual.\(spec.output)")
            try? FileManager.default.removeItem(at: kept)
            try? FileManager.default.copyItem(atPath: actualPath, toPath: kept.path)
            Issue.record("\(name): actual output kept at \(kept.path); compare with: vips subtract \(kept.path) \(expectedImage.path) /tmp/diff.v")
        }
    }
}
