import ArgumentParser
import FaceCrop

struct Crop: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Crop an image to an aspect ratio around the faces in it (the default command).",
        discussion: "Example: facecrop --aspect 16:9 --margin 200 group.jpg -o group-16x9.jpg"
    )

    @Argument(help: "Input image (JPEG, PNG, WebP, TIFF, GIF, HEIC/AVIF, ...).")
    var input: String

    @Option(name: [.short, .long], help: "Output image; the format follows the extension (.jpg .png .webp .tif .heic .avif).")
    var output: String?

    @Option(help: "Aspect ratio W:H of the crop (16:9, 1:1, 4:5, 1.91:1, ...) or 'original'. Default: 1:1, or that of --size.")
    var aspect: String?

    @Option(help: "Output size WIDTHxHEIGHT, exactly (sets the aspect when --aspect is not given).")
    var size: String?

    @Option(help: "Output width; the height follows the crop's aspect.")
    var width: Int?

    @Flag(help: "Plan the crop and report it without writing anything.")
    var dryRun = false

    @OptionGroup var common: CropArguments
    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        _ = try cropOptions()
        if output == nil && !dryRun { throw ValidationError("Missing expected option '-o <output>' (or use --dry-run).") }
        if let output, !dryRun, ImageFormat(path: output) == nil {
            let name = output.split(separator: "/").last.map(String.init) ?? output
            let ext = name.contains(".") ? String(name.split(separator: ".").last!) : ""
            throw ValidationError("Unsupported output extension '.\(ext)' in '\(output)'; use .jpg, .png, .webp, .tif, .heic or .avif.")
        }
    }

    /// The library's options from the command line; throws ValidationError (exit 64) on nonsense.
    func cropOptions() throws -> CropOptions {
        try Self.cropOptions(common: common, aspect: aspect, size: size, width: width)
    }

    /// Shared with `best-frame`, which takes the same --aspect, --size and --width.
    static func cropOptions(common: CropArguments, aspect: String?, size: String?, width: Int?) throws -> CropOptions {
        var options = try common.options()
        if size != nil && width != nil { throw ValidationError("Use either --size or --width, not both.") }
        if let width {
            guard width > 0 else { throw ValidationError("Expected a positive integer for --width but received '\(width)'.") }
            options.size = .width(width)
        }
        var sizeAspect: Aspect?
        if let size {
            let parsed = try CropArguments.size(size)
            options.size = parsed.size
            options.aspect = parsed.aspect
            sizeAspect = parsed.aspect
        }
        if let text = aspect {
            let parsed = try CropArguments.aspect(text)
            if let sizeAspect, parsed != .original {
                let unit = ImageSize(width: 1, height: 1)
                if abs(parsed.value(for: unit) - sizeAspect.value(for: unit)) > 0.01 * sizeAspect.value(for: unit) {
                    throw ValidationError("--size \(size!) does not have the aspect \(text) given with --aspect.")
                }
            }
            if sizeAspect == nil || parsed != .original { options.aspect = parsed }
        }
        return options
    }

    func run() throws {
        Interruption.install()
        let options = try cropOptions()
        let cropper = try detection.makeCropper(quality: options.minQuality != nil)
        let report = try reportingErrors { () throws(FaceCropError) in
            try cropper.run(input, output: dryRun ? nil : output, options: options)
        }
        if detection.json {
            try printJSON(report)
        } else {
            print(Self.summary(report))
        }
        if let crop = report.crop, !crop.cutFaces.isEmpty {
            let list = crop.cutFaces.map { "#\($0 + 1)" }.joined(separator: ", ")
            printError("Warning: \(input): face \(list) of \(report.faces.count) cannot fit in a \(crop.aspect) crop and is cut.")
        }
    }

    static func summary(_ r: CropReport) -> String {
        guard let crop = r.crop else { return r.input.path }
        let c = crop.rect
        var line = "\(r.input.path): \(r.faces.count) face\(r.faces.count == 1 ? "" : "s")"
        if let ignored = r.ignoredFaces { line += " (\(ignored.count) more below --min-quality)" }
        line += ", crop \(c.width)x\(c.height)+\(c.x)+\(c.y)"
        if let fallback = crop.fallback { line += " (no face: \(fallback.rawValue))" }
        if let out = r.output { line += " -> \(out.path) (\(out.width)x\(out.height))" }
        return line
    }
}
