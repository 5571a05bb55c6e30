import Foundation
import Testing

// best-frame's stages on a real clip (made with ffmpeg), with the real decoder and detectors.
@testable import FaceCrop

struct BestFrameTests {
    /// An H.264 clip at 30 fps (libx264's default B-frames) of the repository's picture `source` through `filter`.
    static func clip(in dir: URL, from source: String, seconds: Int, filter: String) throws -> String {
        let clip = dir.appendingPathComponent("clip.mp4").path
        try Fixtures.tool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-loop", "1", "-framerate", "30", "-t", "\(seconds)", "-i", Fixtures.path(source), "-vf", filter,
                "-c:v", "libx264", "-preset", "veryfast", "-threads", "1", "-pix_fmt", "yuv420p", clip,
            ])
        return clip
    }

    /// Every frame of a still clip screens about alike, so the best few by score may be neighbours, while
    /// the finalists are picked 0.25 s apart. Each finalist's decoded picture is held through the screen, so
    /// none is decoded again to be scored, nor the choice to be written.
    @Test func everyFinalistKeepsItsDecodedFrame() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try Self.clip(in: dir, from: "Golden/portrait-16x9/input.jpg", seconds: 1, filter: "scale=256:256")
        var options = VideoOptions()
        options.everyFrame = true
        let finder = BestFrameFinder(cropper: FaceCropper(detector: Fixtures.detector), quality: try QualityAnalyzer(landmarks: nil), options: options)
        let screened = try finder.screen(clip)
        #expect(screened.frames.count == 30)
        let finalists = BestFrameFinder.finalists(of: screened.frames, count: options.finalists, stableOnly: false)
        #expect(finalists.count == 3)
        for i in finalists { #expect(screened.frames[i].kept != nil, "finalist at \(screened.frames[i].time ?? -1) s") }
    }

    /// Sampled, the frames no other frame refers to (libx264's B-frames here) are decoded only when the stability
    /// test needs them: each sample, the frame before it and its window's first. On a steady pan (16 px over a
    /// window at the analysis size) each sample's shift is the one registering every frame measures, and its
    /// drift, registered in one step across the window, is within 5 % of the pan (15 one-frame shifts summed fall
    /// about 20 % short).
    @Test func samplesDecodeOnlyTheFramesTheirTestNeeds() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try Self.clip(in: dir, from: "Samples/group.jpg", seconds: 2, filter: "crop=1200:675:'100+60*t':300,scale=640:360")
        var options = VideoOptions()
        options.maxFrames = 1000
        func run(_ samples: [Double]?) throws -> [BestFrameFinder.Registered] {
            let decoder = try BestFrameFinder.open(clip, options: options, maxPixels: 1 << 30)
            var seen = [BestFrameFinder.Registered]()
            _ = try BestFrameFinder.forEachFrame(decoder, samples: samples, options: options, rgb: nil, analysisScale: 640) { seen.append($0) }
            return seen
        }
        let every = try run(nil)
        let samples = FrameSampling.times(duration: 2, count: 5)  // 0.2, 0.6 ... 1.8 s: frames 6, 18 ... 54
        let sampled = try run(samples)
        #expect(every.count == 60)
        #expect(sampled.count < every.count - 10, "\(sampled.count) frames decoded of \(every.count)")
        for (n, time) in samples.enumerated() where time > 0.55 {
            guard let s = sampled.first(where: { abs($0.frame.time - time) < 0.5 / 30 }), let e = every.first(where: { $0.frame.time == s.frame.time }) else {
                Issue.record("sample \(n) at \(time) s not decoded")
                continue
            }
            #expect(s.isSample && sampled.contains { abs($0.frame.time - (time - 15.0 / 30)) < 0.5 / 30 }, "window of sample \(n)")
            #expect(abs((s.shift?.x ?? 0) - (e.shift?.x ?? 1)) < 0.01, "sample \(n)'s shift is from the frame before it")
            // Registered in one step across the window too, both ways within 5 % of the pan.
            let drift = (s.drift?.x ?? 0, e.drift?.x ?? 0)
            #expect(abs(abs(drift.0) - 16) < 0.8 && abs(abs(drift.1) - 16) < 0.8, "sample \(n)'s drift: \(drift)")
            #expect(s.stable == e.stable)
        }
    }

    /// A Live Photo's still is a candidate whether the still or the video is given, and neither with
    /// `includeStill` off (--no-still).
    @Test func theStillIsLeftOutWhenAsked() throws {
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (still, video) = (dir.appendingPathComponent("IMG_1.jpg").path, dir.appendingPathComponent("IMG_1.mov").path)
        for path in [still, video] { #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8))) }
        for input in [still, video] {
            #expect(try BestFrameFinder.resolve(input) == VideoInput(video: video, still: still), "\(input)")
            #expect(try BestFrameFinder.resolve(input, includeStill: false) == VideoInput(video: video, still: nil), "\(input)")
        }
    }
}
