import FaceCrop
import Foundation
import Testing

/// `facecrop rank`: best first, images without a face apart, unreadable ones reported, the best copied by rank.
struct RankTests {
    @Test func ranksBestFirstAndCopiesTheTop() throws {
        try withScratch { dir in
            let input = dir.appendingPathComponent("in")
            try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
            let sharp = try copySample("Golden/exif-1/input.jpg", to: input, as: "sharp.jpg")
            try copySample("Samples/landscape-no-face.jpg", to: input, as: "landscape.jpg")
            try Data("not an image".utf8).write(to: input.appendingPathComponent("broken.jpg"))
            try vips(["gaussblur", sharp.path, input.appendingPathComponent("blurred.jpg").path, "4"])
            try vips(["linear", sharp.path, input.appendingPathComponent("dark.jpg").path, "0.35", "0", "--uchar"])

            let run = try runFaceCrop(["rank", "in", "--json", "--top", "2", "--copy-to", "best"], in: dir)
            #expect(run.status == 3, "\(run)")
            #expect(run.stderrLines == ["Error: Input 'in/broken.jpg' is not an image format facecrop can read."])
            let json = try parseJSONObject(run.stdout)
            let ranked = try #require(json["ranked"] as? [[String: Any]])
            // The untouched photo first; how a heavy blur and a dark exposure compare is the weights' business.
            let paths = ranked.compactMap { $0["path"] as? String }
            #expect(paths.first == "in/sharp.jpg" && Set(paths.dropFirst()) == ["in/blurred.jpg", "in/dark.jpg"], "\(paths)")
            let scores = ranked.compactMap { number($0["score"]) }
            #expect(scores.count == 3 && scores == scores.sorted(by: >), "\(scores)")
            let second = String(try #require(paths.dropFirst().first).dropFirst("in/".count))
            // Each image's score, min, max and face count are those `detect --quality` gives it on its own.
            for entry in ranked {
                let path = try #require(entry["path"] as? String)
                let alone = try parseJSONObject(try runFaceCrop(["detect", "--quality", "--json", path], in: dir).stdout).object("quality")
                for key in ["score", "min", "max", "faces"] {
                    let own = alone?.num(key == "score" ? "mean" : key)
                    #expect(own != nil && abs((number(entry[key]) ?? -1) - own!) < 1e-3, "\(path) \(key): \(entry[key] ?? "nil") vs \(own ?? -1)")
                }
            }
            #expect(json["noFace"] as? [String] == ["in/landscape.jpg"])
            #expect(json["version"] as? String == FaceCropper.version)
            #expect((json["failed"] as? [[String: Any]])?.count == 1)
            #expect(listing(dir.appendingPathComponent("best")) == ["01-sharp.jpg", "02-\(second)"])
            for (copy, original) in [("01-sharp.jpg", "sharp.jpg"), ("02-\(second)", second)] {
                let a = try Data(contentsOf: dir.appendingPathComponent("best/\(copy)"))
                let b = try Data(contentsOf: input.appendingPathComponent(original))
                #expect(a == b, "\(copy) is not a copy of \(original)")
            }
        }
    }

    /// An image that cannot be listed (its name is not UTF-8) is a failed input in the JSON too, not only in the
    /// exit status and on standard error.
    @Test func unlistedImagesAreFailedInTheJSON() throws {
        try withScratch { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("in"), withIntermediateDirectories: true)
            try copySample("Golden/tiny/input.jpg", to: dir, as: "in/ok.jpg")
            #expect(try runShell("cp in/ok.jpg \"in/$(printf 'caf\\351.jpg')\"", in: dir).status == 0)
            let run = try runFaceCrop(["rank", "in", "--json"], in: dir)
            #expect(run.status == 3, "\(run)")
            let failed = try #require(try parseJSONObject(run.stdout)["failed"] as? [[String: Any]])
            #expect(failed.count == 1 && (failed[0]["path"] as? String)?.hasPrefix("in/caf") == true && failed[0]["exitCode"] as? Int == 66, "\(failed)")
            #expect(run.errorLines.count == 1, "\(run)")
        }
    }

    @Test(arguments: [["rank"], ["rank", "x.jpg", "--top", "0", "--copy-to", "d"], ["rank", "x.jpg", "--top", "3"]])
    func badArgumentsExit64(_ args: [String]) throws {
        try withScratch { dir in
            let run = try runFaceCrop(args, in: dir)
            #expect(run.status == 64, "\(run)")
        }
    }
}
