import ArgumentParser
import FaceCrop

struct Annotate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw what facecrop sees: face boxes, landmarks, quality scores and the planned crop.",
        discussion: """
            Boxes are green (quality ≥ 0.6), amber (≥ 0.3) or red, with '#N score' above each face; landmarks in \
            cyan; with --crop, the crop that 'facecrop' would cut, in magenta. \
            Example: facecrop annotate group.jpg -o group-annotated.png --crop --aspect 16:9
            """
    )

    @Argument(help: "Input image.")
    var input: String

    @Option(name: [.short, .long], help: "Output picture (.png recommended; the format follows the extension).")
    var output: String

    @Flag(help: "Also draw the planned crop (with --aspect and the crop options below).")
    var crop = false

    @Option(parsing: .unconditional, help: "Aspect ratio W:H of the crop drawn with --crop, or 'original' (default 1:1).")
    var aspect: String?

    @Option(name: .customLong("max-side"), parsing: .unconditional, help: "Longest side of the picture in pixels, 64...8192 (smaller images keep their size).")
    var maxSideText = NumberText(2048)
    var maxSide: Int { get throws { try maxSideText.value("--max-side", 64...8192, expected: "an integer from 64 to 8192") } }

    @Flag(help: "Skip capture quality (boxes and landmarks only).")
    var noQuality = false

    @OptionGroup var common: CropArguments
    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        _ = try maxSide
        try Crop.checkExtension(output)
        let options = try cropOptions()
        if noQuality && options.minQuality != nil {
            throw ValidationError("Use either --no-quality or --min-quality, not both: --min-quality measures capture quality.")
        }
    }

    func cropOptions() throws -> CropOptions {
        var options = try common.options()
        if let aspect { options.aspect = try CropArguments.aspect(aspect) }
        return options
    }

    /// The whole job, for `run` and the golden tests.
    func perform() throws -> CropReport {
        let options = try cropOptions()
        let cropper = try detection.makeCropper(
            quality: !noQuality, oneImage: true, maxEncodeMemory: try common.encode.maxEncodeMemory)
        try refuseStandardOutputOnto(cropper.readFiles([input]))
        let (maxSide, quality) = (try maxSide, ImageFormat(path: output).flatMap { options.quality(for: $0) })
        return try reportingErrors { () throws(FaceCropError) in
            try cropper.annotate(
                input, to: output, crop: crop ? options : nil, minQuality: options.minQuality, noFace: options.noFace, maxSide: maxSide, quality: quality)
        }
    }

    func run() throws {
        Interruption.install()
        let report = try perform()
        if detection.json {
            try printJSON(report)
        } else {
            printLine("\(input): \(report.faces.count) face\(report.faces.count == 1 ? "" : "s") -> \(output)")
        }
    }
}
