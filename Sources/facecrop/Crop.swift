import ArgumentParser
import FaceCrop

struct Crop: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Crop an image to an aspect ratio around the faces in it (the default command).",
        discussion: "Example: facecrop --aspect 16:9 --margin 200 group.jpg -o group-16x9.jpg"
    )

    @Argument(help: "Input image (JPEG, PNG, WebP, TIFF, GIF, HEIC/AVIF, ...); '-' reads it from standard input.")
    var inputs: [String] = []
    var input: String { inputs.first ?? "" }

    @Option(
        name: [.short, .long],
        help: "Output image; the format follows the extension (\(ImageFormat.dottedList)); '-' writes it to standard output in the --format given.")
    var output: String?

    @Option(help: "Format of '-o -': \(ImageFormat.choices()).")
    var format: String?

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
        if inputs.isEmpty { throw ValidationError("Missing expected argument '<input>'.") }
        if inputs.count > 1 {
            throw ValidationError(
                "facecrop crops one image at a time; for several, use 'facecrop batch \(inputs.count <= 3 ? inputs.joined(separator: " ") : "IN...") --output-dir DIR'."
            )
        }
        let options = try cropOptions()
        if output == nil && !dryRun { throw ValidationError("Missing expected option '-o <output>' (or use --dry-run).") }
        if let output, output != "-", !dryRun { try Self.checkExtension(output) }
        if output == "-" {
            guard format != nil else { throw ValidationError("Give --format with '-o -': standard output has no extension to take it from.") }
            if detection.json { throw ValidationError("--json and '-o -' would share standard output; write the image to a file.") }
        } else if format != nil {
            throw ValidationError("--format is for '-o -'; a file's format follows its extension.")
        }
        try common.checkOutput(options, format: try outputFormat, path: output ?? "")
    }

    /// The output's format: from --format for standard output, else from the extension.
    var outputFormat: ImageFormat? {
        get throws {
            guard output == "-", let format else { return output.flatMap { ImageFormat(path: $0) } }
            guard let parsed = ImageFormat(pathExtension: format) else {
                throw ValidationError("Expected \(ImageFormat.choices()) for --format but received '\(format)'.")
            }
            return parsed
        }
    }

    /// An output path must name a file of a known format: "-o .", "-o dir/" and "-o x.gif" are refused, as is
    /// "-" (standard output) for the outputs that are always files.
    static func checkExtension(_ path: String, option: String = "-o") throws {
        if path == "-" {
            throw ValidationError("\(option) writes a file, not standard output; give it a name ending in \(ImageFormat.choices(dotted: true)).")
        }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let namesFolder = name.isEmpty || name == "." || name == ".."
        guard ImageFormat(path: path) != nil, !namesFolder else {
            if namesFolder {
                throw ValidationError("Expected a file name for \(option) but received '\(path)', which names a folder.")
            }
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
                throw ValidationError(
                    "Output '\(path)' has no extension to take its format from; end it in \(ImageFormat.choices(dotted: true))\(option == "-o" ? " (or give '-o -' and --format for standard output)" : "")."
                )
            }
            throw ValidationError(
                "Unsupported output extension '.\(name[name.index(after: dot)...])' in '\(path)'; use \(ImageFormat.choices(dotted: true)).")
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
        let cropper = try detection.makeCropper(quality: options.minQuality != nil, oneImage: true, maxEncodeMemory: try common.encode.maxEncodeMemory)
        var protected = cropper.readFiles(input == "-" ? [] : [input])
        if input == "-" { protected.insertStandardInput() }
        try refuseStandardOutputOnto(protected)
        let report: CropReport
        if input == "-" || output == "-" {
            report = try runThroughPipes(cropper, options: options, protecting: protected)
        } else {
            report = try reportingErrors { () throws(FaceCropError) in
                try cropper.run(input, output: dryRun ? nil : output, options: options)
            }
        }
        if output == "-" && !dryRun {
            // Standard output holds the image: no summary line.
        } else if detection.json {
            try printJSON(report)
        } else {
            printLine(Self.summary(report))
        }
        if let crop = report.crop,
            let warning = CutFaces.warning(
                input: input, cut: crop.cutFaces, faceCount: report.faces.count, aspect: crop.aspect, strategy: crop.strategy, regionFits: crop.regionFits)
        {
            printError(warning)
        }
    }

    /// `-` as input (read whole from standard input, within --max-file-size) or output (written to standard
    /// output in --format); files otherwise, as `run` does. `protected`: the files read, standard input's included.
    func runThroughPipes(_ cropper: FaceCropper, options: CropOptions, protecting protected: InputSet) throws -> CropReport {
        let format = try outputFormat
        let (input, output, dryRun) = (self.input, self.output, self.dryRun)
        // A file output is checked before standard input is read, as a file input's is before it is decoded;
        // standard input counts as the file it is redirected from (standard output was checked by `run`).
        if let output, output != "-", !dryRun {
            try reportingErrors { () throws(FaceCropError) in _ = try OutputCheck.writable(output, inputs: protected) }
        }
        let bytes = input == "-" ? try reportingErrors { () throws(FaceCropError) in try StandardStreams.read(limit: cropper.maxFileSize) } : []
        return try reportingErrors { () throws(FaceCropError) in
            try options.check()
            let analysis = try cropper.screen(input == "-" ? cropper.analyze(bytes: bytes, name: "-") : cropper.analyze(input), minimum: options.minQuality)
            let crop = try cropper.plan(analysis, options: options)
            var info: OutputInfo?
            if let output, let format, !dryRun {
                if output == "-" {
                    let encoded = try cropper.encode(analysis, crop: crop.rect, as: format, options: options, name: "-")
                    try StandardStreams.write(encoded.bytes)
                    info = encoded.info
                } else {
                    info = try cropper.write(analysis, crop: crop.rect, to: output, options: options)
                }
            }
            return cropper.report(analysis, crop: crop, output: info)
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
