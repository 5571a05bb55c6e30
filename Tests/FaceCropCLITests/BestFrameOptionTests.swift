import Foundation
import Testing

/// best-frame's and stability's options and printed numbers on the test videos (TestVideos, VideoTests.swift).
struct BestFrameOptionTests {
    /// --no-still leaves the still out when the still itself is the input, as when the video is.
    @Test func noStillGivenTheStill() throws {
        let still = try TestVideos.liveStill()
        let (report, _) = try bestFrame([still, "--no-still"])
        #expect(report.object("input")?.string("video") == "live/IMG_0001.mov")
        #expect(report.object("input")?.string("still") == nil)
        #expect(report.frames.count == 12)
        #expect(report.frames.allSatisfy { $0.string("source") == "video" })
        #expect(report.object("chosen")?.string("source") == "video")
    }

    /// Numbers that round to zero are printed 0, never -0 (focus.mp4's still picture registers shifts of
    /// -0.0001 and the like), in the text and in JSON.
    @Test(arguments: [["stability", "focus.mp4"], ["stability", "focus.mp4", "--json"], ["best-frame", "best.mp4", "--json"]])
    func noNegativeZero(_ args: [String]) throws {
        let run = try runFaceCrop(args, in: try TestVideos.dir(), timeout: 120)
        #expect(run.status == 0, "\(run)")
        let tokens = run.stdout.split(whereSeparator: { " ,:\n".contains($0) })
        #expect(tokens.count > 100)
        #expect(!tokens.contains { $0 == "-0" || $0 == "-0.0" }, "\(run.stdout)")
    }

    @Test func everyFrameWithFramesIsOneLine() throws {
        let run = try runFaceCrop(["best-frame", "best.mp4", "--every-frame", "--frames", "5"], in: try TestVideos.dir())
        #expect(run.status == 64, "\(run)")
        #expect(run.stderrLines == ["Error: --frames is for the sampled mode; --every-frame analyses every frame instead."])
    }
}
