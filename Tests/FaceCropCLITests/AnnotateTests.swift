import Foundation
import Testing

/// `facecrop annotate`, `rank --sheet` and `--min-quality` through the built binary.
struct AnnotateTests {
    @Test func annotateWritesAPictureOfTheInputWithItsReport() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "group.jpg")
            let run = try runFaceCrop(["annotate", "group.jpg", "-o", "out.png", "--crop", "--aspect", "16:9", "--json"], in: dir)
            #expect(run.status == 0, "\(run)")
            let report = try parseJSONObject(run.stdout)
            let faces = try #require(report["faces"] as? [JSONObject])
            #expect(faces.count == 4)
            #expect(faces.allSatisfy { $0.object("quality")?.num("score") != nil }, "each face carries its score")
            #expect(report.object("crop")?.string("aspect") == "16:9")
            // 2400x1350, drawn at most 2048 px wide by default.
            #expect(imageKind(of: dir.appendingPathComponent("out.png")) == .png)
            let back = try readBack("out.png", in: dir)
            #expect((back.width, back.height) == (2048, 1152))
            #expect(report.object("output")?.num("width") == 2048)

            let small = try runFaceCrop(["annotate", "group.jpg", "-o", "small.jpg", "--max-side", "600", "--no-quality"], in: dir)
            #expect(small.status == 0, "\(small)")
            let smallBack = try readBack("small.jpg", in: dir)
            #expect((smallBack.width, smallBack.height) == (600, 338))
            #expect(leftoverTempFiles(dir).isEmpty)
        }
    }

    @Test func annotateFailuresLeaveNothing() throws {
        try withScratch { dir in
            try Data("plain text".utf8).write(to: dir.appendingPathComponent("text.jpg"))
            try copySample("Samples/portrait.png", to: dir, as: "portrait.png")
            let cases: [([String], Int32, String)] = [
                (["annotate", "missing.jpg", "-o", "a.png"], 66, "Error: Input 'missing.jpg' does not exist."),
                (["annotate", "text.jpg", "-o", "a.png"], 65, "Error: Input 'text.jpg' is not an image format facecrop can read."),
                (["annotate", "portrait.png", "-o", "nowhere/a.png"], 73, "Error: Output folder 'nowhere' does not exist."),
                (
                    ["annotate", "portrait.png", "-o", "a.gif"], 64,
                    "Error: Unsupported output extension '.gif' in 'a.gif'; use .jpg, .png, .webp, .tif, .heic or .avif."
                ),
                (
                    ["annotate", "portrait.png", "-o", "-"], 64,
                    "Error: -o writes a file, not standard output; give it a name ending in .jpg, .png, .webp, .tif, .heic or .avif."
                ),
                (["annotate", "portrait.png", "-o", "a.png", "--max-side", "10"], 64, ""),
            ]
            for (args, status, line) in cases {
                let run = try runFaceCrop(args, in: dir)
                #expect(run.status == status, "\(args): \(run)")
                if !line.isEmpty { #expect(run.stderrLines == [line], "\(args)") }
            }
            #expect(listing(dir) == ["text.jpg", "portrait.png"])
        }
    }

    /// --no-face fail holds for annotate as for crop, with or without --crop: no face, exit 2, nothing written.
    @Test func noFaceFailsWithoutCropToo() throws {
        try withScratch { dir in
            try copySample("Samples/landscape-no-face.jpg", to: dir, as: "in.jpg")
            for extra in [[], ["--crop"], ["--no-quality"]] {
                let run = try runFaceCrop(["annotate", "in.jpg", "-o", "a.png", "--no-face", "fail"] + extra, in: dir)
                #expect(run.status == 2, "\(extra): \(run)")
                #expect(run.stderrLines == ["Error: No face found in 'in.jpg'."], "\(extra)")
                #expect(run.stdout.isEmpty && listing(dir) == ["in.jpg"], "\(extra)")
            }
            let drawn = try runFaceCrop(["annotate", "in.jpg", "-o", "a.png"], in: dir)
            #expect(drawn.status == 0, "\(drawn)")
            #expect(listing(dir) == ["in.jpg", "a.png"])
        }
    }

    @Test func rankSheetShowsEveryImageBestFirst() throws {
        try withScratch { dir in
            let input = dir.appendingPathComponent("in")
            try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
            try copySample("Samples/portrait.png", to: input, as: "a.png")
            try copySample("Samples/group.jpg", to: input, as: "b.jpg")
            try copySample("Samples/landscape-no-face.jpg", to: input, as: "c.jpg")
            let run = try runFaceCrop(["rank", "in", "--sheet", "sheet.png"], in: dir)
            #expect(run.status == 0, "\(run)")
            // Three tiles: 2 columns x 2 rows of 240 px thumbnails with their captions.
            let sheet = try readBack("sheet.png", in: dir)
            #expect(sheet.width == 2 * (240 + 20) + 10)
            #expect(sheet.height > 2 * (240 + 20) && sheet.height < 2 * (240 + 80))

            // Every input unreadable: no blank sheet, and the earlier one stays.
            let before = try FileSnapshot(dir.appendingPathComponent("sheet.png"))
            try Data("not an image".utf8).write(to: dir.appendingPathComponent("broken.jpg"))
            let none = try runFaceCrop(["rank", "broken.jpg", "--sheet", "sheet.png"], in: dir)
            #expect(none.status == 3 && none.stderrLines.last == "Note: no sheet written to 'sheet.png': no image could be read.", "\(none)")
            #expect(try FileSnapshot(dir.appendingPathComponent("sheet.png")) == before)
            for (sheet, line) in [
                ("sheet.gif", "Error: Unsupported output extension '.gif' in 'sheet.gif'; use .jpg, .png, .webp, .tif, .heic or .avif."),
                ("-", "Error: --sheet writes a file, not standard output; give it a name ending in .jpg, .png, .webp, .tif, .heic or .avif."),
            ] {
                let bad = try runFaceCrop(["rank", "in", "--sheet", sheet], in: dir)
                #expect(bad.status == 64 && bad.stderrLines == [line], "\(bad)")
            }
        }
    }

    /// Thumbnails for a sheet are kept at its tile size: a sheet of more inputs than fit is refused first.
    @Test func rankSheetOfTooManyInputsIsRefusedFirst() throws {
        try withScratch { dir in
            let input = dir.appendingPathComponent("in")
            try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
            for i in 0..<10_000 { _ = FileManager.default.createFile(atPath: input.appendingPathComponent("\(i).jpg").path, contents: nil) }
            let run = try runFaceCrop(["rank", "in", "--sheet", "sheet.png"], in: dir)
            #expect(run.status == 64 && run.stderrLines.count == 1, "\(run.status) \(run.stderr.prefix(500))")
            #expect(run.stderr.contains("Output 'sheet.png' would be"), "\(run.stderr.prefix(500))")
            #expect(run.stdout.isEmpty && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("sheet.png").path))
        }
    }

    @Test func minQualityTreatsPoorFacesAsAbsent() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "group.jpg")
            let all = try parseJSONObject(try runFaceCrop(["group.jpg", "--dry-run", "--json", "--min-quality", "0"], in: dir).stdout)
            #expect((all["faces"] as? [JSONObject])?.count == 4)
            #expect(all["ignoredFaces"] == nil)
            let scores = ((all["faces"] as? [JSONObject]) ?? []).compactMap { $0.object("quality")?.num("score") }.sorted()
            #expect(scores.count == 4)

            // Between the lowest and the next score: exactly one face is set aside, and the crop ignores it.
            let cut = (scores[0] + scores[1]) / 2
            let run = try runFaceCrop(["group.jpg", "--dry-run", "--json", "--min-quality", String(cut)], in: dir)
            #expect(run.status == 0, "\(run)")
            let some = try parseJSONObject(run.stdout)
            #expect((some["faces"] as? [JSONObject])?.count == 3)
            #expect((some["ignoredFaces"] as? [JSONObject])?.count == 1)

            // annotate: the same face drawn as ignored; no crop drawn unless --crop asks for it.
            let picture = try parseJSONObject(
                try runFaceCrop(["annotate", "group.jpg", "-o", "seen.png", "--json", "--min-quality", String(cut)], in: dir).stdout)
            #expect((picture["faces"] as? [JSONObject])?.count == 3 && (picture["ignoredFaces"] as? [JSONObject])?.count == 1)
            #expect(picture["crop"] == nil, "\(picture["crop"] ?? "")")
            let withCrop = try parseJSONObject(
                try runFaceCrop(["annotate", "group.jpg", "-o", "seen.png", "--json", "--crop", "--min-quality", String(cut)], in: dir).stdout)
            #expect(withCrop["crop"] != nil)
            try FileManager.default.removeItem(at: dir.appendingPathComponent("seen.png"))

            let none = try runFaceCrop(["group.jpg", "-o", "out.jpg", "--min-quality", "1", "--no-face", "fail"], in: dir)
            #expect(none.status == 2, "\(none)")
            #expect(none.stderrLines == ["Error: No face found in 'group.jpg'."])
            #expect(listing(dir) == ["group.jpg"])

            let bad = try runFaceCrop(["group.jpg", "-o", "out.jpg", "--min-quality", "1.5"], in: dir)
            #expect(bad.status == 64, "\(bad)")
            #expect(bad.stderrLines.first == "Error: Expected a number from 0 to 1 for --min-quality but received '1.5'.")
        }
    }
}
