import Foundation
import Testing

// Golden tests for pictures and rankings:
// - Golden/<case>/annotate.json: `facecrop annotate` on the case's input with its args; the picture is compared
//   with expected.png (pixels within a tolerance) and the faces, scores and crop with expected.json.
// - Golden/rank/rank.json: `facecrop rank` over other cases' inputs; order, scores and face counts compared
//   with expected.json.
// Recorded like the crop cases: FACECROP_RECORD=1 swift test --filter GoldenTests
@testable import FaceCrop
@testable import facecrop

struct AnnotateSpec: Codable {
    var args: [String]
    var note: String?
}

/// The part of an annotate report a golden case pins down.
struct AnnotateResult: Codable, Equatable {
    var faces: Int
    var ignoredFaces: Int
    /// Scores of the faces, then of the ignored ones, to two decimals.
    var scores: [Double]
    var crop: PixelRect?
    var output: ImageSize
}

struct RankSpec: Codable {
    /// Inputs relative to Golden/.
    var inputs: [String]
    var note: String?
}

extension Golden {
    static func cases(with file: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent("\($0)/\(file)").path) }.sorted()
    }

    /// Pixels of each annotation colour (within 12 per channel: lines are antialiased), in a picture.
    static func annotationPixels(_ image: VipsImage) throws -> [String: Int] {
        let colors: [(String, Color)] = [("landmarks", .landmarks), ("crop", .crop), ("good", .good), ("fair", .fair), ("poor", .poor)]
        return try image.withRGB8 { rgb, width, height in
            var counts = [String: Int]()
            for i in stride(from: 0, to: 3 * width * height, by: 3) {
                for (name, c) in colors
                where abs(Int(rgb[i]) - Int(c.r)) <= 12 && abs(Int(rgb[i + 1]) - Int(c.g)) <= 12 && abs(Int(rgb[i + 2]) - Int(c.b)) <= 12 {
                    counts[name, default: 0] += 1
                }
            }
            return counts
        }
    }

    /// Capture quality scores may move this much (detector and resampling arithmetic across CPUs).
    static let scoreTolerance = 0.02

    static func record<T: Encodable>(_ value: T, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(value).write(to: url)
    }
}

@Suite(.serialized) struct PictureGoldenTests {
    @Test func thereArePictureCases() {
        #expect(Golden.cases(with: "annotate.json").count >= 3)
        #expect(Golden.cases(with: "rank.json").count >= 1)
    }

    @Test(arguments: Golden.cases(with: "annotate.json"))
    func annotate(_ name: String) throws {
        let dir = Golden.folder.appendingPathComponent(name)
        let spec = try JSONDecoder().decode(AnnotateSpec.self, from: Data(contentsOf: dir.appendingPathComponent("annotate.json")))
        let input = try #require(FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("input.") })
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-golden-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let actualPath = work.appendingPathComponent("actual.png").path

        let report = try Annotate.parse(spec.args + [dir.appendingPathComponent(input).path, "-o", actualPath]).perform()
        let ignored = report.ignoredFaces ?? []
        let result = AnnotateResult(
            faces: report.faces.count, ignoredFaces: ignored.count,
            scores: (report.faces + ignored).compactMap { $0.quality.map { ($0.score * 100).rounded() / 100 } },
            crop: report.crop?.rect, output: ImageSize(width: report.output?.width ?? 0, height: report.output?.height ?? 0))
        let expectedJSON = dir.appendingPathComponent("expected.json")
        let expectedImage = dir.appendingPathComponent("expected.png")
        if Golden.recording {
            try Golden.record(result, to: expectedJSON)
            try? FileManager.default.removeItem(at: expectedImage)
            try FileManager.default.copyItem(atPath: actualPath, toPath: expectedImage.path)
            return
        }
        let expected = try JSONDecoder().decode(AnnotateResult.self, from: Data(contentsOf: expectedJSON))
        #expect(
            result.faces == expected.faces && result.ignoredFaces == expected.ignoredFaces,
            "\(name): faces \(result.faces)+\(result.ignoredFaces), expected \(expected.faces)+\(expected.ignoredFaces)")
        #expect(
            result.scores.count == expected.scores.count && zip(result.scores, expected.scores).allSatisfy { abs($0 - $1) <= Golden.scoreTolerance },
            "\(name): scores \(result.scores), expected \(expected.scores)")
        #expect(
            result.crop == expected.crop && result.output == expected.output,
            "\(name): crop \(String(describing: result.crop)) size \(result.output), expected \(String(describing: expected.crop)) \(expected.output)")

        let actual = try VipsImage.open(actualPath, sequential: false)
        let reference = try VipsImage.open(expectedImage.path, sequential: false)
        #expect(actual.size == reference.size, "\(name): picture \(actual.size), expected \(reference.size)")
        if actual.size == reference.size {
            // Each kind of annotation is there, about as much of it as recorded: the landmark outlines and the
            // crop are each under 1 % of the picture, which the mismatch limit below alone would let go missing.
            let drawn = try Golden.annotationPixels(actual)
            let recorded = try Golden.annotationPixels(reference)
            for (kind, count) in recorded where count >= 50 {
                let got = drawn[kind] ?? 0
                #expect(abs(got - count) <= count / 5, "\(name): \(got) pixels of the \(kind) color, recorded \(count)")
            }
            #expect(recorded["landmarks", default: 0] >= 50, "\(name): the recorded picture shows no landmarks")
            let diff = try actual.compare(with: reference, threshold: Golden.pixelThreshold)
            let ok = diff.mismatch <= Golden.mismatchLimit
            #expect(ok, "\(name): \(Int(diff.mismatch * 1000) / 10)% of pixels differ by more than \(Int(Golden.pixelThreshold)) (max \(diff.maxDelta))")
            if !ok {
                let kept = Golden.root.appendingPathComponent(".artifacts/golden/\(name)")
                try? FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
                try? FileManager.default.removeItem(at: kept.appendingPathComponent("actual.png"))
                try? FileManager.default.copyItem(atPath: actualPath, toPath: kept.appendingPathComponent("actual.png").path)
            }
        }
    }

    @Test(arguments: Golden.cases(with: "rank.json"))
    func rank(_ name: String) throws {
        let dir = Golden.folder.appendingPathComponent(name)
        let spec = try JSONDecoder().decode(RankSpec.self, from: Data(contentsOf: dir.appendingPathComponent("rank.json")))
        let paths = spec.inputs.map { Golden.folder.appendingPathComponent($0).path }
        let cropper = try Rank.parse(paths).detection.makeCropper(quality: true)
        var ranking = cropper.rank(paths, jobs: 2).ranking
        // Paths relative to Golden/, scores to three decimals: what is recorded.
        let prefix = Golden.folder.path + "/"
        for i in ranking.ranked.indices {
            ranking.ranked[i].path = String(ranking.ranked[i].path.dropFirst(prefix.count))
            for k in [\Ranking.Ranked.score, \.min, \.max] { ranking.ranked[i][keyPath: k] = (ranking.ranked[i][keyPath: k] * 1000).rounded() / 1000 }
        }
        ranking.noFace = ranking.noFace.map { String($0.dropFirst(prefix.count)) }
        let expectedJSON = dir.appendingPathComponent("expected.json")
        if Golden.recording {
            try Golden.record(ranking, to: expectedJSON)
            return
        }
        let expected = try JSONDecoder().decode(Ranking.self, from: Data(contentsOf: expectedJSON))
        #expect(ranking.failed.isEmpty, "\(ranking.failed)")
        #expect(ranking.noFace == expected.noFace)
        #expect(Set(ranking.ranked.map(\.path)) == Set(expected.ranked.map(\.path)))
        let byPath = Dictionary(uniqueKeysWithValues: ranking.ranked.map { ($0.path, $0) })
        for e in expected.ranked {
            guard let a = byPath[e.path] else { continue }
            #expect(a.faces == e.faces, "\(e.path): \(a.faces) faces, expected \(e.faces)")
            #expect(abs(a.score - e.score) <= Golden.scoreTolerance, "\(e.path): score \(a.score), expected \(e.score)")
        }
        // The order is pinned wherever the recorded scores are clearly apart.
        let position = Dictionary(uniqueKeysWithValues: ranking.ranked.enumerated().map { ($1.path, $0) })
        for (i, x) in expected.ranked.enumerated() {
            for y in expected.ranked[(i + 1)...] where x.score - y.score > 2 * Golden.scoreTolerance {
                #expect((position[x.path] ?? 0) < (position[y.path] ?? 0), "\(x.path) (\(x.score)) should rank above \(y.path) (\(y.score))")
            }
        }
    }
}
