import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test videos, made once per test run by scripts/make-test-videos.sh (ffmpeg) from the public-domain
/// portraits in Golden/; expectations in Golden/video-*/video.json.
enum TestVideos {
    static let folder: Result<URL, CLITestError> = {
        let prefix = "facecrop-videos-"
        let temporary = FileManager.default.temporaryDirectory
        let dir = temporary.appendingPathComponent(prefix + "\(getpid())", isDirectory: true)
        // The folders of earlier runs (a few MB each) go after a day; one left under this process's number, now.
        let dayAgo = Date(timeIntervalSinceNow: -86_400)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(prefix) {
            let folder = temporary.appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: folder.path)[.modificationDate]) as? Date
            if name == dir.lastPathComponent || modified.map({ $0 < dayAgo }) == true { try? FileManager.default.removeItem(at: folder) }
        }
        let script = Process()
        script.executableURL = CLI.repoFile("scripts/make-test-videos.sh")
        script.arguments = [dir.path]
        script.standardInput = FileHandle.nullDevice
        do {
            try script.run()
            script.waitUntilExit()
        } catch {
            return .failure(CLITestError("scripts/make-test-videos.sh could not run: \(error)"))
        }
        guard script.terminationStatus == 0 else {
            return .failure(CLITestError("scripts/make-test-videos.sh failed with status \(script.terminationStatus) (is ffmpeg installed?)"))
        }
        return .success(dir)
    }()

    static func dir() throws -> URL { try folder.get() }

    static func golden(_ name: String) throws -> JSONObject {
        let data = try Data(contentsOf: CLI.repoFile("Golden/\(name)/video.json"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? JSONObject else { throw CLITestError("bad \(name)/video.json") }
        return object
    }

    /// The Live Photo's still: HEIC when this libvips can write it, else JPEG.
    static func liveStill() throws -> String {
        let dir = try dir()
        return FileManager.default.fileExists(atPath: dir.appendingPathComponent("live/IMG_0001.heic").path) ? "live/IMG_0001.heic" : "live/IMG_0001.jpg"
    }
}

/// Runs `facecrop best-frame ARGS --json` in the videos folder and returns the report.
func bestFrame(_ args: [String], expectStatus: Int32 = 0) throws -> (JSONObject, RunResult) {
    let run = try runFaceCrop(["best-frame"] + args + ["--json"], in: try TestVideos.dir(), timeout: 120)
    #expect(run.status == expectStatus, "\(run)")
    return (try parseJSONObject(run.stdout), run)
}

extension Dictionary where Key == String, Value == Any {
    var frames: [JSONObject] { self["frames"] as? [JSONObject] ?? [] }
    var chosenIndex: Int? { object("chosen")?.num("index").map { Int($0) } }
}

struct BestFrameGoldenTests {
    @Test func bestOfTwelveSlots() throws {
        let golden = try TestVideos.golden("video-best")
        let run = try #require((golden["runs"] as? [JSONObject])?.first)
        let (report, _) = try bestFrame([golden.string("video")!] + (run["args"] as! [String]))
        let frames = report.frames
        #expect(frames.count == 12)
        #expect(report.chosenIndex == run.num("chosen").map { Int($0) }, "\(report["chosen"] ?? "")")
        let noFace = Set(run["noFace"] as! [Int])
        for (i, f) in frames.enumerated() {
            let faces = f["faces"] as? [JSONObject] ?? []
            #expect(faces.isEmpty == noFace.contains(i), "frame \(i)")
            #expect((f["chosen"] as? Bool) == (i == report.chosenIndex))
        }
        // The chosen frame outscores every other frame with a face; the dark ones fail on exposure.
        let best = try #require(frames[report.chosenIndex!].num("score"))
        for (i, f) in frames.enumerated() where i != report.chosenIndex { #expect((f.num("score") ?? 0) < best, "frame \(i)") }
        for i in run["lowExposure"] as! [Int] {
            let face = try #require((frames[i]["faces"] as? [JSONObject])?.first)
            #expect((face.object("components")?.num("exposure") ?? 1) < 0.3, "frame \(i)")
        }
        // The shaken sample drifts past the threshold (its window holds fewer than 15 shifts, so it would be
        // unstable anyway: the drift is what registration measured); the steady samples with a full window are stable.
        for i in run["shaken"] as! [Int] { #expect((frames[i].num("drift") ?? 0) > 20, "frame \(i): \(frames[i])") }
        for i in run["stable"] as! [Int] { #expect(frames[i]["stable"] as? Bool == true, "frame \(i): \(frames[i])") }
        #expect(report.object("chosen")?.string("reason")?.contains("highest frame score") == true)
        #expect(report.string("outcome") == "chosen")
        #expect(report.object("video")?.string("codec") == "h264")
    }

    /// Three finalists, spread over the clip, are scored in full (the detector at the analysis size, landmarks
    /// and expression); the other frames are screened by YuNet at half that size. Scoring all twelve in full
    /// picks the same slot.
    @Test func finalistsAreScoredInFull() throws {
        let video = try #require(try TestVideos.golden("video-best").string("video"))
        let (screened, _) = try bestFrame([video])
        let analysis = try #require(screened.object("analysis"))
        let screen = try #require(analysis.object("screen"))
        #expect(screen.string("detector") == "yunet" && screen.num("finalists") == 3 && screen.num("width") == 320)
        #expect(analysis.string("detector") == "centerface" && analysis.num("width") == 640)
        let finalists = screened.frames.indices.filter { screened.frames[$0]["finalist"] as? Bool == true }
        #expect(finalists.count == 3)
        #expect(finalists.contains(screened.chosenIndex ?? -1))
        for (i, f) in screened.frames.enumerated() {
            for face in f["faces"] as? [JSONObject] ?? [] {
                #expect((face.object("components")?["expression"] != nil) == finalists.contains(i), "frame \(i)")
            }
        }
        let (full, _) = try bestFrame([video, "--finalists", "12"])
        #expect(full.object("analysis")?["screen"] == nil)
        #expect(full.frames.allSatisfy { $0["finalist"] as? Bool == true })
        #expect(full.chosenIndex == screened.chosenIndex)
    }

    /// soft.mp4: one slot sharp (frames 30...34, 1.0 to 1.13 s), every other one only mildly soft (σ 0.5 to 1,
    /// the two beside it σ 0.5): the sharp one wins, sampled and frame by frame, and outscores every soft sample.
    @Test(arguments: [[String](), ["--every-frame"]])
    func theSharpFrameBeatsMildlySoftOnes(_ mode: [String]) throws {
        let (report, _) = try bestFrame(["soft.mp4", "--no-still"] + mode)
        let chosen = try #require(report.chosenIndex)
        let time = try #require(report.frames[chosen].num("time"))
        #expect(time >= 0.99 && time < 1.16, "chosen frame at \(time) s: \(report["chosen"] ?? "")")
        let best = try #require(report.frames[chosen].num("score"))
        for f in report.frames {
            guard let t = f.num("time"), t < 0.99 || t >= 1.16 else { continue }
            #expect((f.num("score") ?? 0) < best, "frame at \(t) s")
        }
    }

    @Test func everyFrameFindsTheSharpSlot() throws {
        let golden = try TestVideos.golden("video-best")
        let run = try #require((golden["runs"] as? [JSONObject])?.last)
        let (report, _) = try bestFrame([golden.string("video")!] + (run["args"] as! [String]))
        #expect(report.frames.count == 60)
        #expect(report.object("analysis")?.string("mode") == "every-frame")
        let window = run["chosenTime"] as! [Double]
        let chosen = try #require(report.chosenIndex)
        let time = try #require(report.frames[chosen].num("time"))
        #expect(time >= window[0] && time <= window[1], "chosen frame at \(time) s")
        // Registration sees the shaken slot move (over 10 px per frame) and the steady frames before it still;
        // the frames of the sharp slot, with 15 steady frames behind them, are stable.
        func frames(_ key: String) -> ArraySlice<JSONObject> {
            let range = run[key] as! [Int]
            return report.frames[range[0]...range[1]]
        }
        func moved(_ f: JSONObject) -> Double { abs(f.object("shift")?.num("x") ?? 0) + abs(f.object("shift")?.num("y") ?? 0) }
        for f in frames("shakenFrames") { #expect(moved(f) > 10, "\(f)") }
        for f in frames("steadyFrames") { #expect(moved(f) < 0.5, "\(f)") }
        for f in frames("stableFrames") { #expect(f["stable"] as? Bool == true, "\(f)") }
    }

    @Test(arguments: [0, 1])
    func stableOnlyGatesThePan(_ runIndex: Int) throws {
        let golden = try TestVideos.golden("video-settle")
        let run = (golden["runs"] as! [JSONObject])[runIndex]
        let (report, _) = try bestFrame([golden.string("video")!] + (run["args"] as! [String]))
        let range = run["chosenIn"] as! [Int]
        let chosen = try #require(report.chosenIndex)
        #expect((range[0]...range[1]).contains(chosen), "chose \(chosen): \(report["chosen"] ?? "")")
        if let unstable = run["unstable"] as? [Int] {
            for i in unstable { #expect(report.frames[i]["stable"] as? Bool == false, "frame \(i)") }
        }
        if (run["args"] as! [String]).contains("--stable-only") {
            #expect(report.frames[chosen]["stable"] as? Bool == true)
            #expect(report.object("chosen")?.string("reason")?.contains("stable frame") == true)
        }
    }

    @Test func panIsMeasuredWithinOnePixel() throws {
        let golden = try TestVideos.golden("video-pan")
        let run = try runFaceCrop(["stability", golden.string("video")!, "--json"] + (golden["args"] as! [String]), in: try TestVideos.dir())
        #expect(run.status == 0, "\(run)")
        let report = try parseJSONObject(run.stdout)
        let frames = report.frames
        #expect(frames.count == 45)
        #expect(report.object("analysis")?.num("width") == 480)
        let pan = Int(golden.num("panFrames")!)
        let shift = golden["shift"] as! [Double]
        let tolerance = golden.num("tolerance")!
        let threshold = try #require(report.num("threshold"))
        let history = Int(try #require(report.num("history")))
        var known: [Double] = []
        for (i, f) in frames.enumerated() {
            guard i > 0 else {
                #expect(f["shift"] == nil)
                continue
            }
            let expected = i <= pan ? shift : [0, 0]
            let measured = try #require(f.object("shift"), "frame \(i)")
            #expect(abs(measured.num("x")! - expected[0]) <= tolerance, "frame \(i): \(measured)")
            #expect(abs(measured.num("y")! - expected[1]) <= tolerance, "frame \(i): \(measured)")
            // Stability from the known shifts, where it is not within a few pixels of the threshold.
            known.append(abs(expected[0]) + abs(expected[1]))
            let drift = known.suffix(history).reduce(0, +)
            if known.count >= history, abs(drift - threshold) > 3 { #expect(f["stable"] as? Bool == (drift < threshold), "frame \(i)") }
            if known.count < history { #expect(f["stable"] as? Bool == false, "frame \(i)") }
        }
    }

    @Test func rotationMetadataIsHonoured() throws {
        try withScratch { out in
            let target = out.appendingPathComponent("best.jpg").path
            let (report, _) = try bestFrame(["rotated.mov", "-o", target])
            #expect(report.object("video")?.num("rotation") == 90)
            #expect(report.object("video")?.string("codec") == "hevc")
            #expect(report.object("output")?.num("width") == 360 && report.object("output")?.num("height") == 480)
            #expect(report.frames.allSatisfy { ($0["faces"] as? [JSONObject])?.count == 1 })
            let back = try readBack("best.jpg", in: out)
            #expect(back.width == 360 && back.height == 480)
            // Upright: the eyes above the nose above the mouth.
            let detect = try parseJSONObject(try runFaceCrop(["detect", "best.jpg", "--json"], in: out).stdout)
            let points = try #require((detect["faces"] as? [JSONObject])?.first?.object("landmarkPoints"))
            let y = { (name: String) in points.object(name)?.num("y") ?? .nan }
            #expect(y("rightEye") < y("nose") && y("leftEye") < y("nose") && y("nose") < y("mouthLeft") && y("nose") < y("mouthRight"), "\(points)")
        }
    }
}

struct LivePhotoTests {
    @Test func theStillWithItsVideo() throws {
        try withScratch { out in
            let still = try TestVideos.liveStill()
            let target = out.appendingPathComponent("best.jpg").path
            let (report, _) = try bestFrame([still, "-o", target])
            #expect(report.object("input")?.string("video") == "live/IMG_0001.mov")
            #expect(report.object("input")?.string("still") == still)
            #expect(report.frames.count == 13)
            let chosen = try #require(report.chosenIndex)
            #expect(report.frames[chosen].string("source") == "still", "the sharp still beats the blurred video")
            let back = try readBack("best.jpg", in: out)
            #expect(back.width == 512 && back.height == 512, "written from the still at full resolution")
        }
    }

    @Test func theVideoFindsItsStillUnlessTold() throws {
        let (withStill, _) = try bestFrame(["live/IMG_0001.mov"])
        #expect(withStill.object("input")?.string("still") == (try TestVideos.liveStill()))
        #expect(withStill.object("chosen")?.string("source") == "still")
        let (videoOnly, _) = try bestFrame(["live/IMG_0001.mov", "--no-still"])
        #expect(videoOnly.object("input")?.string("still") == nil)
        #expect(videoOnly.frames.count == 12)
        #expect(videoOnly.object("chosen")?.string("source") == "video")
    }
}

struct BestFrameOutputTests {
    @Test func croppedOutputAndContactSheet() throws {
        try withScratch { out in
            let (report, run) = try bestFrame([
                "best.mp4", "-o", out.appendingPathComponent("face.png").path, "--size", "200x200", "--margin", "20%",
                "--contact-sheet", out.appendingPathComponent("sheet.jpg").path,
            ])
            #expect(run.stderr.isEmpty)
            #expect(report.object("crop")?.object("rect") != nil)
            #expect(imageKind(of: out.appendingPathComponent("face.png")) == .png)
            let face = try readBack("face.png", in: out)
            #expect(face.width == 200 && face.height == 200)
            let sheet = try readBack("sheet.jpg", in: out)
            #expect(sheet.width == 4 * 260 + 10 && sheet.height > 3 * 260, "12 tiles of 240 px in 4 columns and 3 rows: \(sheet)")
            // The chosen frame (7: column 3, row 1) is framed in green; its neighbour (6) is not. Sampled at the middle
            // of each tile's left edge (tiles are 260 px wide with a 10 px margin; rows share the height).
            let cellHeight = (sheet.height - 10) / 3
            let sheetPath = out.appendingPathComponent("sheet.jpg").path
            func leftEdge(_ index: Int) throws -> [Int] {
                try pixel(sheetPath, x: 10 + (index % 4) * 260 + 2, y: 10 + (index / 4) * cellHeight + cellHeight / 2)
            }
            let green = try leftEdge(report.chosenIndex ?? -1)
            let other = try leftEdge(6)
            #expect(green.count == 3 && green[1] > 150 && green[0] < 110 && green[2] < 120, "chosen tile's frame: \(green)")
            #expect(other.allSatisfy { $0 > 220 }, "unchosen tile's edge: \(other)")
            #expect(leftoverTempFiles(out).isEmpty)
        }
    }

    @Test func textSummary() throws {
        try withScratch { out in
            let run = try runFaceCrop(["best-frame", "best.mp4", "-o", out.appendingPathComponent("b.jpg").path], in: try TestVideos.dir(), timeout: 120)
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.hasPrefix("best.mp4: 12 frames analysed (480x480 h264, 2.0 s), best: frame 7 at 1.233 s, 1 face, score "), "\(run.stdout)")
            #expect(try readBack("b.jpg", in: out).width == 480)
        }
    }
}

struct BestFrameFailureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var args: [String]
        var status: Int32
        var message: String
        var testDescription: String { args.joined(separator: " ") }
    }

    @Test(arguments: [
        Case(args: ["noface.mp4"], status: 2, message: "Error: No face found in any of the 12 frames analysed of 'noface.mp4'."),
        Case(args: ["truncated.mp4"], status: 65, message: "Error: Input 'truncated.mp4' is truncated: the file ends before the video data it lists."),
        Case(
            args: ["no-index.mp4"], status: 65,
            message: "Error: Input 'no-index.mp4' is truncated or damaged: it is an MP4/QuickTime file without its index (the 'moov' box)."),
        Case(args: ["zero.avi"], status: 65, message: "Error: Input 'zero.avi' contains no video frames."),
        Case(
            args: ["text.mp4"], status: 65,
            message: "Error: Input 'text.mp4' is not a video facecrop can read (no demuxer could read it: Invalid data found when processing input)."),
        Case(args: ["audio.m4v"], status: 65, message: "Error: Input 'audio.m4v' has no video stream."),
        Case(
            args: ["size-change.mp4"], status: 65,
            message:
                "Error: Input 'size-change.mp4' is damaged: its picture size changes from 320x240 to 480x480 at 1.000 s, and facecrop reads videos of one size."
        ),
        Case(
            args: ["playlist.mp4"], status: 65,
            message:
                "Error: Input 'playlist.mp4' is not a video facecrop can read (its format is not one facecrop reads: MP4/QuickTime, Matroska/WebM, AVI, MPEG-TS, raw H.264, HEVC or IVF)."
        ),
        Case(
            args: ["lonely.jpg"], status: 66,
            message:
                "Error: No video found beside the still 'lonely.jpg' (looked for 'lonely.mov', 'lonely.MOV', 'lonely.mp4', 'lonely.MP4', 'lonely.m4v', 'lonely.M4V')."
        ),
        Case(args: ["missing.mov"], status: 66, message: "Error: Input 'missing.mov' does not exist."),
        Case(
            args: ["best.mp4", "--max-duration", "1.5"], status: 65,
            message: "Error: Input 'best.mp4' lasts 2.0 s, over the limit of 1.5 s; raise it with --max-duration if you trust this file."),
        Case(
            args: ["best.mp4", "--every-frame", "--max-frames", "30"], status: 65,
            message: "Error: Input 'best.mp4' has 60 frames, over the limit of 30 analysed frames; raise it with --max-frames or sample with --frames."),
        Case(
            args: ["best.mp4", "--max-pixels", "1000"], status: 65,
            message:
                "Error: Input 'best.mp4' has frames of 480x480 (230400 pixels), over the limit of 1000 pixels; raise it with --max-pixels if you trust this file."
        ),
        Case(
            args: ["settle.mp4", "--stable-only", "--stability-threshold", "0.001"], status: 2,
            message: "Error: No face found in a stable frame of 'settle.mp4' (12 frames analysed); drop --stable-only or raise --stability-threshold."),
    ])
    func oneClearLine(_ c: Case) throws {
        try withScratch { out in
            let target = out.appendingPathComponent("best.jpg")
            let run = try runFaceCrop(["best-frame"] + c.args + ["-o", target.path], in: try TestVideos.dir(), timeout: 120)
            #expect(run.status == c.status, "\(run)")
            #expect(run.stderrLines == [c.message])
            #expect(listing(out).isEmpty, "no output, no temporary file")
        }
    }

    /// A contact sheet of more frames than fit is refused before the video is opened.
    @Test func oversizedContactSheetIsRefusedFirst() throws {
        try withScratch { out in
            let run = try runFaceCrop(
                [
                    "best-frame", "best.mp4", "--frames", "10000", "--max-frames", "10000", "-o", out.appendingPathComponent("b.jpg").path,
                    "--contact-sheet", out.appendingPathComponent("sheet.jpg").path,
                ], in: try TestVideos.dir())
            #expect(run.status == 64 && run.stderrLines.count == 1, "\(run)")
            #expect(run.stderr.contains("for a contact sheet (10001 tiles); give fewer inputs or frames"), "\(run)")
            #expect(listing(out).isEmpty)
        }
    }

    /// With --every-frame, the sheet is checked once the video's frame count is known (before any frame is
    /// decoded): 60 frames and the still, as AVIF, over --max-encode-memory, are refused with nothing written.
    @Test func everyFrameContactSheetOverEncodeMemory() throws {
        try withScratch { out in
            let sheet = out.appendingPathComponent("sheet.avif").path
            let run = try runFaceCrop(
                ["best-frame", "best.mp4", "--every-frame", "--contact-sheet", sheet, "--max-encode-memory", "60000000"], in: try TestVideos.dir())
            #expect(run.status == 64 && run.stderrLines.count == 1, "\(run)")
            #expect(run.stderr.contains("which the AVIF encoder holds whole in memory"), "\(run)")
            #expect(run.stdout.isEmpty && listing(out).isEmpty)
        }
    }

    /// `--frames N` divides the clip into N equal slots and takes the frame nearest each slot's centre (the
    /// first frame that starts at most half a frame before it). best.mp4: 2.0 s at 30 fps; with 8 slots the
    /// centres fall between frames, and the nearest is sometimes the earlier one (0.375 s: frame 11, 0.3667 s).
    @Test func sampledFramesAreTheNearestToTheSlotCentres() throws {
        let (report, _) = try bestFrame(["best.mp4", "--frames", "8", "--no-still"])
        let times = report.frames.compactMap { $0.num("time") }
        let expected = (0..<8).map { ((Double($0) + 0.5) * 0.25 * 30).rounded() / 30 }
        #expect(times.count == 8 && zip(times, expected).allSatisfy { abs($0 - $1) < 0.001 }, "\(times) against \(expected)")
    }

    /// A raw H.264 stream (named .mp4) has no timestamps: its frames are timed by their count at its frame rate,
    /// so it is sampled and scored as the same stream in its MP4 container.
    @Test func rawStreamIsTimedByItsFrames() throws {
        for args in [[String](), ["--every-frame"]] {
            let (contained, _) = try bestFrame(["best.mp4"] + args)
            let (raw, _) = try bestFrame(["raw-h264.mp4"] + args)
            let times = raw.frames.compactMap { $0.num("time") }
            #expect(times.count == (args.isEmpty ? 12 : 60) && times == contained.frames.compactMap { $0.num("time") }, "\(times)")
            // The container lets the sampled mode skip frames no other frame refers to; the raw stream is decoded whole.
            #expect(raw.frames.map { $0["stable"] as? Bool } == contained.frames.map { $0["stable"] as? Bool })
            #expect(raw.chosenIndex == contained.chosenIndex && raw.chosenIndex != nil)
        }
        let run = try runFaceCrop(["stability", "raw-h264.mp4", "--json"], in: try TestVideos.dir())
        let times = try parseJSONObject(run.stdout).frames.compactMap { $0.num("time") }
        #expect(times.count == 60 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
    }

    @Test func noFaceStillReportsEveryFrame() throws {
        let (report, run) = try bestFrame(["noface.mp4"], expectStatus: 2)
        #expect(report.string("outcome") == "noFace")
        #expect(report["chosen"] == nil)
        #expect(report.frames.count == 12)
        #expect(run.stderrLines.count == 1)
    }

    @Test(arguments: [
        ["best.mp4", "--frames", "0"], ["best.mp4", "--stability-threshold", "-1"], ["best.mp4", "-o", "x.gif"], ["best.mp4", "--max-frames", "0"],
        ["best.mp4", "--finalists", "0"], ["best.mp4", "--finalists", "1e9"],
    ])
    func badArgumentsExit64(_ args: [String]) throws {
        let run = try runFaceCrop(["best-frame"] + args, in: try TestVideos.dir())
        #expect(run.status == 64, "\(run)")
    }

    /// A change of focus is not a movement: registration stays under half a pixel on focus.mp4, whose still
    /// picture jumps between sharp and blurred (sigma 2 to 8) every 3 frames.
    @Test func focusChangesRegisterAsNoShift() throws {
        let run = try runFaceCrop(["stability", "focus.mp4", "--json"], in: try TestVideos.dir())
        #expect(run.status == 0, "\(run)")
        let shifts = try parseJSONObject(run.stdout).frames.compactMap { $0.object("shift") }
        #expect(shifts.count == 29)
        for (i, s) in shifts.enumerated() {
            #expect(abs(s.num("x") ?? .infinity) < 0.5 && abs(s.num("y") ?? .infinity) < 0.5, "frame \(i + 1): \(s)")
        }
    }

    @Test func stabilityOfABadInput() throws {
        let run = try runFaceCrop(["stability", "text.mp4"], in: try TestVideos.dir())
        #expect(run.status == 65)
        #expect(run.stderrLines.count == 1 && run.stderrLines[0].hasPrefix("Error: Input 'text.mp4' is not a video"))
    }
}
