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

    @Option(parsing: .unconditional, help: "Aspect ratio W:H of the crop (16:9, 1:1, 4:5, 1.91:1, ...) or 'original'. Default: 1:1, or that of --size.")
    var aspect: String?

    @Option(parsing: .unconditional, help: "Output size WIDTHxHEIGHT, exactly (sets the aspect when --aspect is not given).")
    var size: String?

    @Option(name: .customLong("width"), parsing: .unconditional, help: "Output width; the height follows the crop's aspect.")
    var widthText: NumberText<Int>?

    @Flag(help: "Plan the crop and report it without writing anything.")
    var dryRun = false

    @OptionGroup var common: CropArguments
    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        let options = try cropOptions()
        if output == nil && !dryRun { throw ValidationError("Missing expected option '-o <output>' (or use --dry-run).") }
        if let output, !dryRun { try Self.checkExtension(output) }
        try CropArguments.checkOutput(options, format: dryRun ? nil : output.flatMap { ImageFormat(path: $0) }, path: output ?? "")
    }

    /// An output path must name a file of a known format: "-o .", "-o dir/" and "-o x.gif" are refused.
    static func checkExtension(_ path: String, option: String = "-o") throws {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard ImageFormat(path: path) != nil, name != ".", name != ".." else {
            if name.isEmpty || name == "." || name == ".." {
                throw ValidationError("Expected a file name for \(option) but received '\(path)', which names a folder.")
            }
            let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
            throw ValidationError("Unsupported output extension '.\(ext)' in '\(path)'; use .jpg, .png, .webp, .tif, .heic or .avif.")
        }
    }

    /// The library's options from the command line; throws ValidationError (exit 64) on nonsense.
    func cropOptions() throws -> CropOptions {
        try Self.cropOptions(common: common, aspect: aspect, size: size, width: widthText)
    }

    /// Shared with `best-frame`, which takes the same --aspect, --size and --width.
    static func cropOptions(common: CropArguments, aspect: String?, size: String?, width: NumberText<Int>?) throws -> CropOptions {
        var options = try common.options()
        if size != nil && width != nil { throw ValidationError("Use either --size or --width, not both.") }
        if let width {
            options.size = .width(try width.value("--width", Limits.side.range, expected: Limits.side.expected))
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
            printLine(Self.summary(report))
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
