import Foundation
import Testing

// best-frame's stages on a real clip (made with ffmpeg), with the real decoder and detectors.
@testable import FaceCrop

struct BestFrameTests {
    /// Every frame of a still clip screens about alike, so the best few by score may be neighbours, while
    /// the finalists are picked 0.25 s apart. Each finalist's decoded picture is held through the screen, so
    /// none is decoded again to be scored, nor the choice to be written.
    @Test func everyFinalistKeepsItsDecodedFrame() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("still.mp4").path
        try Fixtures.tool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-loop", "1", "-framerate", "30", "-t", "1", "-i", Fixtures.path("Golden/portrait-16x9/input.jpg"),
                "-vf", "scale=256:256", "-c:v", "libx264", "-preset", "veryfast", "-threads", "1", "-pix_fmt", "yuv420p", clip,
            ])
        var options = VideoOptions()
        options.everyFrame = true
        let finder = BestFrameFinder(cropper: FaceCropper(detector: Fixtures.detector), quality: try QualityAnalyzer(landmarks: nil), options: options)
        let screened = try finder.screen(clip)
        #expect(screened.frames.count == 30)
        let finalists = BestFrameFinder.finalists(of: screened.frames, count: options.finalists, stableOnly: false)
        #expect(finalists.count == 3)
        for i in finalists { #expect(screened.frames[i].kept != nil, "finalist at \(screened.frames[i].time ?? -1) s") }
    }
}
