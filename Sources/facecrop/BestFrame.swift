import ArgumentParser
import FaceCrop

/// Limits and stability settings shared by `best-frame` and `stability`.
struct VideoArguments: ParsableArguments {
    @Option(
        name: .customLong("stability-threshold"), parsing: .unconditional,
        help:
            "The scene is stable when its drift over the last 15 frames (their shifts summed, and registered in one step) is shorter than this (Manhattan length, in pixels of a frame --detect-size long)."
    )
    var stabilityThresholdText = NumberText(20.0)

    @Option(
        name: .customLong("max-duration"), parsing: .unconditional,
        help: "Refuse videos longer than this many seconds (counted from the frames when the container does not say).")
    var maxDurationText = NumberText(60.0)

    @Option(name: .customLong("max-frames"), parsing: .unconditional, help: "Refuse to analyse more frames than this.")
    var maxFramesText = NumberText(900)

    var stabilityThreshold: Double {
        get throws { try stabilityThresholdText.value("--stability-threshold", Limits.positive.range, expected: Limits.positive.expected) }
    }
    var maxDuration: Double { get throws { try maxDurationText.value("--max-duration", Limits.positive.range, expected: Limits.positive.expected) } }
    var maxFrames: Int { get throws { try maxFramesText.value("--max-frames", Limits.count.range, expected: Limits.count.expected) } }

    func validate() throws {
        _ = (try stabilityThreshold, try maxDuration, try maxFrames)
    }

    func options(frames: Int?, everyFrame: Bool) throws -> VideoOptions {
        let (stabilityThreshold, maxDuration, maxFrames) = (try stabilityThreshold, try maxDuration, try maxFrames)
        var options = VideoOptions()
        options.stabilityThreshold = stabilityThreshold
        options.maxDuration = maxDuration
        options.maxFrames = maxFrames
        if let frames { options.frames = frames }
        options.everyFrame = everyFrame
        do { try options.check() } catch { throw ValidationError(error.description) }
        return options
    }
}

/// Runs library code, turning a video error into one line on standard error and facecrop's exit status.
func reportingVideoErrors<T>(_ body: () throws(VideoError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        printError("Error: \(error.description)")
        throw ExitCode(error.exitCode)
    }
}

struct BestFrame: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "best-frame",
        abstract: "Pick the frame of a video or Live Photo where the faces look best, and save it as a photo.",
        discussion: """
            INPUT is a .mov, .mp4 or .m4v video, or a Live Photo's still (.heic, .jpg) with its video beside it under \
            the same name; a Live Photo's still is a candidate too. Exit status: 2 no face in any frame analysed, \
            65 not a readable video (unsupported, truncated, no frames, over a limit), 66 input missing or a still \
            without its video.
            """
    )

    @Argument(help: "Video (.mov .mp4 .m4v) or Live Photo still (.heic .jpg) with its video beside it.")
    var input: String

    @Option(name: [.short, .long], help: "Write the chosen frame here at full resolution (\(ImageFormat.dottedList)).")
    var output: String?

    @Option(
        name: .customLong("frames"), parsing: .unconditional,
        help: "Number of frames to analyse, evenly spaced over the duration (default: 12; not with --every-frame).")
    var framesText: NumberText<Int>?
    var frames: Int {
        get throws { try framesText?.value("--frames", Limits.frames.range, expected: Limits.frames.expected) ?? VideoOptions().frames }
    }

    @Flag(help: "Analyse every frame (screened at half the analysis size) instead of --frames.")
    var everyFrame = false

    @Option(
        name: .customLong("finalists"), parsing: .unconditional,
        help:
            "Score this many of the analysed frames in full (the detector at the analysis size, 68 landmarks, expression): the best after a fast screen, spread over the video. As many as the frames analysed or more: every frame in full."
    )
    var finalistsText = NumberText(3)
    var finalists: Int { get throws { try finalistsText.value("--finalists", Limits.frames.range, expected: Limits.frames.expected) } }

    @Flag(help: "Score only frames where the scene is stable.")
    var stableOnly = false

    @Flag(help: "Ignore a Live Photo still beside the video.")
    var noStill = false

    @Option(help: "Also write a contact sheet of every analysed frame with its score, the chosen one marked.")
    var contactSheet: String?

    @Option(
        parsing: .unconditional, help: "Crop the chosen frame to this aspect W:H (as for crop); without --aspect, --size or --width the whole frame is written."
    )
    var aspect: String?

    @Option(parsing: .unconditional, help: "Crop the chosen frame to exactly WIDTHxHEIGHT.")
    var size: String?

    @Option(name: .customLong("width"), parsing: .unconditional, help: "Crop the chosen frame; output width (the height follows the crop's aspect).")
    var width: NumberText<Int>?

    @OptionGroup var video: VideoArguments
    @OptionGroup var common: CropArguments
    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        if everyFrame && framesText != nil { throw ValidationError("--frames is for the sampled mode; --every-frame analyses every frame instead.") }
        let options = try Crop.cropOptions(common: common, aspect: aspect, size: size, width: width)
        _ = (try frames, try finalists, try video.options(frames: try frames, everyFrame: everyFrame))
        if output == "-" {
            throw ValidationError(
                "best-frame writes the chosen frame to a file, not to standard output; give -o a name ending in \(ImageFormat.choices(dotted: true)).")
        }
        if let output { try Crop.checkExtension(output) }
        if let contactSheet { try Crop.checkExtension(contactSheet, option: "--contact-sheet") }
        if let output { try common.checkOutput(options, format: ImageFormat(path: output), path: output) }
    }

    var cropped: Bool { aspect != nil || size != nil || width != nil }

    func run() throws {
        Interruption.install()
        let cropOptions = try Crop.cropOptions(common: common, aspect: aspect, size: size, width: width)
        var options = try video.options(frames: try frames, everyFrame: everyFrame)
        options.stableOnly = stableOnly
        options.finalists = try finalists
        options.includeStill = !noStill
        options.keepFrames = contactSheet != nil
        options.contactSheet = contactSheet
        try refuseStandardOutputOnto(InputSet([input] + detection.readFiles))
        let outputs = [output, contactSheet].compactMap { $0 }
        if !outputs.isEmpty {
            // Every output against every input (the video and a Live Photo's still, by identity) and each other.
            let resolved = try reportingVideoErrors { () throws(VideoError) in try BestFrameFinder.resolve(input) }
            try reportingVideoErrors { () throws(VideoError) in
                try BestFrameFinder.checkOutputs(outputs, input: input, resolved: resolved, alsoRead: detection.readFiles)
            }
        }
        let maxEncodeMemory = try common.encode.maxEncodeMemory
        if let contactSheet, !everyFrame {  // the sampled frames and the still; every frame's count is known once the video is open
            try reportingErrors { () throws(FaceCropError) in
                try ContactSheet.check(count: options.frames + 1, path: contactSheet, maxEncodeMemory: maxEncodeMemory)
            }
        }
        // The landmark model and CenterFace's net are loaded after decoding, for the finalists: decoding and they
        // never share the memory.
        let cropper = try detection.makeCropper(
            quality: true, landmarksOnFirstUse: true, detectorOnFirstUse: true, maxEncodeMemory: maxEncodeMemory)
        let finder = BestFrameFinder(cropper: cropper, quality: cropper.qualityAnalyzer!, options: options)
        let start = ContinuousClock.now
        let analyzed = Result { () throws(VideoError) in try finder.analyze(input) }
        detection.landmarkCacheNote(cropper)
        var analysis = try reportingVideoErrors { () throws(VideoError) in try analyzed.get() }
        if let contactSheet {
            let sheet = analysis
            try reportingVideoErrors { () throws(VideoError) in try finder.writeContactSheet(sheet, to: contactSheet) }
        }
        var written: (output: OutputInfo, crop: CropInfo?)?
        if let output, analysis.chosenIndex != nil {
            let writeStart = ContinuousClock.now
            let chosen = analysis
            written = try reportingVideoErrors { () throws(VideoError) in
                try finder.write(chosen, to: output, crop: cropOptions, cropped: cropped)
            }
            analysis.timings.write = FaceCropper.ms(writeStart, .now)
        }
        analysis.timings.total = FaceCropper.ms(start, .now)
        let report = finder.report(analysis, output: written?.output, crop: written?.crop)
        if detection.json {
            try printJSON(report)
        } else {
            printLine(Self.summary(report))
        }
        switch analysis.choice {
        case .chosen: break
        case .noFace:
            _ = try reportingVideoErrors { () throws(VideoError) in throw VideoError.noFace(input, frames: analysis.frames.count) }
        case .noStableFace:
            _ = try reportingVideoErrors { () throws(VideoError) in throw VideoError.noStableFace(input, frames: analysis.frames.count) }
        }
    }

    static func summary(_ r: BestFrameReport) -> String {
        let v = r.video
        var line =
            "\(r.input.video): \(r.frames.count) frame\(r.frames.count == 1 ? "" : "s") analysed (\(v.width)x\(v.height) \(v.codec), \(threeDecimals(v.duration)) s)"
        guard let c = r.chosen else { return line + ", no face" }
        let frame = r.frames[c.index]
        let when = c.source == "still" ? "the still" : "frame \(c.index) at \(threeDecimals(c.time ?? 0)) s"
        line += ", best: \(when), \(frame.faces.count) face\(frame.faces.count == 1 ? "" : "s"), score \(threeDecimals(c.score)) (\(c.reason))"
        if let out = r.output { line += " -> \(out.path) (\(out.width)x\(out.height))" }
        return line
    }
}
