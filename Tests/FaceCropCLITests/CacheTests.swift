// The landmark model's cache: the run that writes it says so once on standard error, where FACECROP_CACHE_DIR
// puts it; later runs read it without a word. Needs Debian's libdlib-data (set up by scripts/setup.sh).
import Foundation
import Testing

struct LandmarkCacheTests {
    @Test func theRunThatWritesTheCacheSaysSoOnce() throws {
        try withScratch { dir in
            try copySample("Samples/portrait.png", to: dir, as: "in.png")
            let cache = dir.appendingPathComponent("my cache").path
            let file = cache + "/shape_predictor_68_face_landmarks.dat.facecrop-raw"
            let first = try runFaceCrop(["detect", "--landmarks", "in.png"], in: dir, environment: ["FACECROP_CACHE_DIR": cache])
            #expect(first.status == 0, "\(first)")
            let notes = first.stderr.split(separator: "\n").filter { $0.hasPrefix("Note: saved a ") }
            #expect(notes.count == 1, "\(first.stderr)")
            #expect(notes.first?.contains("MB copy of dlib's landmark model as '\(file)'") == true, "\(first.stderr)")
            #expect(notes.first?.contains("FACECROP_CACHE_DIR") == true)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size > 30_000_000, "the cache of the 68-point model holds \(size) bytes")
            #expect(notes.first?.contains("a \((size + 500_000) / 1_000_000) MB copy") == true, "\(first.stderr)")

            let second = try runFaceCrop(["detect", "--landmarks", "in.png"], in: dir, environment: ["FACECROP_CACHE_DIR": cache])
            #expect(second.status == 0 && second.stdout == first.stdout, "\(second)")
            #expect(second.stderr.isEmpty, "a run that reads the cache says nothing: \(second.stderr)")

            // Removed, it is written again (and said again).
            try FileManager.default.removeItem(atPath: file)
            let third = try runFaceCrop(["detect", "--landmarks", "in.png"], in: dir, environment: ["FACECROP_CACHE_DIR": cache])
            #expect(third.status == 0 && third.stderr.contains("Note: saved a "), "\(third)")
            #expect(FileManager.default.fileExists(atPath: file))
        }
    }
}

extension LandmarkCacheTests {
    /// best-frame loads the landmark model only for its finalists, after decoding: the note still comes once, on
    /// a run that succeeds, and a run that reads the cache says nothing.
    @Test func bestFrameLoadsTheModelLateAndSaysSoOnce() throws {
        let videos = try TestVideos.dir()
        try withScratch { dir in
            let cache = dir.appendingPathComponent("cache").path
            let clip = videos.appendingPathComponent("best.mp4").path
            let first = try runFaceCrop(["best-frame", clip, "-o", "a.jpg"], in: dir, environment: ["FACECROP_CACHE_DIR": cache])
            #expect(first.status == 0 && first.stderrLines.count == 1 && first.stderr.hasPrefix("Note: saved a "), "\(first)")
            #expect(FileManager.default.fileExists(atPath: cache + "/shape_predictor_68_face_landmarks.dat.facecrop-raw"))
            let second = try runFaceCrop(["best-frame", clip, "-o", "b.jpg"], in: dir, environment: ["FACECROP_CACHE_DIR": cache])
            #expect(second.status == 0 && second.stderr.isEmpty && second.stdout == first.stdout.replacingOccurrences(of: "a.jpg", with: "b.jpg"), "\(second)")
        }
    }
}
