import Foundation
import Testing

/// best-frame's and stability's options and printed numbers on the test videos (TestVideos, VideoTests.swift).
struct BestFrameOptionTests {
    @Test func everyFrameWithFramesIsOneLine() throws {
        let run = try runFaceCrop(["best-frame", "best.mp4", "--every-frame", "--frames", "5"], in: try TestVideos.dir())
        #expect(run.status == 64, "\(run)")
        #expect(run.stderrLines == ["Error: --frames is for the sampled mode; --every-frame analyses every frame instead."])
    }
}
