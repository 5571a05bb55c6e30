import ArgumentParser
import FaceCrop

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the faces found in an image (pixels of the upright image, origin top-left)."
    )

    @Argument(help: "Input image.")
    var input: String

    @OptionGroup var detection: DetectionOptions

    func run() throws {
        let cropper = try detection.makeCropper()
        let start = ContinuousClock.now
        var analysis = try reportingErrors { () throws(FaceCropError) in try cropper.analyze(input) }
        analysis.timings.total = FaceCropper.ms(start, .now)
        let report = cropper.report(analysis, crop: nil, output: nil)
        if detection.json {
            try printJSON(report)
            return
        }
        print("\(input): \(report.input.width)x\(report.input.height), \(report.faces.count) face\(report.faces.count == 1 ? "" : "s")")
        for (i, f) in report.faces.enumerated() {
            let r = f.rect
            print("  #\(i + 1)  confidence \(f.confidence)  x \(r.x)  y \(r.y)  width \(r.width)  height \(r.height)")
        }
    }
}
