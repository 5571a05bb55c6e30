// `facecrop stability`: the frame-to-frame shifts of a video and whether the picture is steady, without faces.
import ArgumentParser
import FaceCrop

struct Stability: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print, per frame, the shift from the previous frame (phase correlation) and whether the scene is stable."
    )

    @Argument(help: "Video (.mov .mp4 .m4v) or Live Photo still with its video beside it.")
    var input: String

    @Option(name: .customLong("frames"), parsing: .unconditional, help: "Analyse this many frames evenly spaced over the duration instead of every frame.")
    var framesText: NumberText<Int>?

    @Option(
        name: .customLong("detect-size"), parsing: .unconditional,
        help: "Long side in pixels of the analysed frames (shifts and the threshold are in these pixels).")
    var detectSizeText = NumberText(640)

    var frames: Int? { get throws { try framesText?.value("--frames", Limits.frames.range, expected: Limits.frames.expected) } }
    var detectSize: Int { get throws { try detectSizeText.value("--detect-size", Limits.detectSize.range, expected: Limits.detectSize.expected) } }

    @Flag(help: "Print a JSON report on standard output.")
    var json = false

    @OptionGroup var video: VideoArguments

    func validate() throws {
        _ = (try frames, try detectSize, try video.options(frames: try frames, everyFrame: try frames == nil))
    }

    func run() throws {
        let frames = try frames
        let options = try video.options(frames: frames, everyFrame: frames == nil)
        let input = input
        let size = try detectSize
        try refuseStandardOutputOnto(InputSet([input]))
        let report = try reportingVideoErrors { () throws(VideoError) in
            try BestFrameFinder.stability(input, options: options, analysisSize: size)
        }
        if json {
            try printJSON(report)
            return
        }
        let stable = report.frames.filter(\.stable).count
        printLine(
            "\(input): \(report.frames.count) frames at \(report.analysis.width)x\(report.analysis.height), \(stable) stable (threshold \(report.threshold) px over \(report.history) frames)"
        )
        for f in report.frames {
            let shift = f.shift.map { "shift \(threeDecimals($0.x)), \(threeDecimals($0.y))" } ?? "shift -"
            print("  #\(f.index)  \(threeDecimals(f.time)) s  \(shift)  drift \(f.drift.map(threeDecimals) ?? "-")  \(f.stable ? "stable" : "moving")")
        }
    }
}
