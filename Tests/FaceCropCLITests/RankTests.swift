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
            for (name, args) in [("blurred.jpg", ["gaussblur", sharp.path, "", "4"]), ("dark.jpg", ["linear", sharp.path, "", "0.35", "0", "--uchar"])] {
                var arguments = args
                arguments[2] = input.appendingPathComponent(name).path
                let vips = Process()
                vips.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
                vips.arguments = arguments
                try vips.run()
                vips.waitUntilExit()
                #expect(vips.terminationStatus == 0)
            }

            let run = try runFaceCrop(["rank", "in", "--json", "--top", "2", "--copy-to", "best"], in: dir)
            #expect(run.status == 3, "\(run)")
            #expect(run.stderrLines == ["Error: Input 'in/broken.jpg' is not an image format facecrop can read."])
            let json = try parseJSONObject(run.stdout)
            let ranked = try #require(json["ranked"] as? [[String: Any]])
            #expect(ranked.compactMap { $0["path"] as? String } == ["in/sharp.jpg", "in/blurred.jpg", "in/dark.jpg"])
            let scores = ranked.compactMap { number($0["score"]) }
            #expect(scores == scores.sorted(by: >) && scores.allSatisfy { (0...1).contains($0) })
            #expect(json["noFace"] as? [String] == ["in/landscape.jpg"])
            #expect((json["failed"] as? [[String: Any]])?.count == 1)
            #expect(listing(dir.appendingPathComponent("best")) == ["01-sharp.jpg", "02-blurred.jpg"])
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
