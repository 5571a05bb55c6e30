import ArgumentParser
import FaceCrop
import FoundationEssentials
import Glibc

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Crop many images, several outputs each, incrementally and in parallel.",
        discussion: """
            Example: facecrop batch photos --recursive --output-dir out --size 1920x1080 --size 1280x720 --size 640x360
            Site build: facecrop batch photos --output-dir public/img --aspect 16:9 --width 1600 --width 800 --width 400 \
              --format avif --format webp --format jpg --no-enlarge --site-manifest public/img/faces.json
            Exit status: 0 every input done or skipped, 3 some inputs failed, 64 bad arguments, 66 no image found.
            """
    )

    @OptionGroup var inputs: InputArguments

    @Option(help: "Folder for the outputs.")
    var outputDir: String?

    @Option(help: "Output file name: {stem} {ext} {width} {height} {aspect}.")
    var name = "{stem}-{width}x{height}.{ext}"

    @Option(help: "Output format: \(ImageFormat.choices()) (repeatable: every output in each format). Default: jpg.")
    var format: [String] = []

    @Option(parsing: .unconditionalSingleValue, help: "An output of exactly this size, WIDTHxHEIGHT (repeatable).")
    var size: [String] = []

    @Option(
        parsing: .unconditionalSingleValue,
        help: "An output of this aspect, W:H or 'original' (repeatable): at the crop's own size, or at each --width. Default: each --size's aspect, or 1:1.")
    var aspect: [String] = []

    @Option(name: .customLong("width"), parsing: .unconditionalSingleValue, help: "An output this wide for each --aspect, the height following (repeatable).")
    var widthTexts: [String] = []

    @Option(
        help: "Write one JSON file mapping every input to its outputs (path, format, size, bytes, crop), for a site generator (not written with --dry-run).")
    var siteManifest: String?

    @Flag(help: "Redo every input, even those whose outputs are current.")
    var force = false

    @Flag(help: "Delete the outputs of inputs that are no longer among this run's inputs.")
    var prune = false

    @Option(parsing: .unconditional, help: "Process only shard K of N (e.g. 2/8): a fixed share of the inputs, for splitting work over machines.")
    var shard: String?

    @Option(help: "Write a JSON Lines report here: one record per input, then a summary.")
    var report: String?

    @Flag(name: [.short, .long], help: "No progress line.")
    var quiet = false

    @Flag(help: "Stop at the first input that fails.")
    var failFast = false

    @Flag(help: "Print each output that would be written, with its crop, and write nothing.")
    var dryRun = false

    @OptionGroup var common: CropArguments
    @OptionGroup var detection: DetectionOptions

    var shardIndex: (index: Int, count: Int)? {
        guard let shard else { return nil }
        let parts = shard.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else { return nil }
        return (k - 1, n)
    }

    func validate() throws {
        if outputDir == nil { throw ValidationError("Missing expected option '--output-dir <folder>'.") }
        if outputDir == "" { throw ValidationError("Expected a folder for --output-dir but received ''.") }
        if shard != nil && shardIndex == nil { throw ValidationError("Expected K/N with 1 ≤ K ≤ N for --shard but received '\(shard!)'.") }
        _ = try settings()
    }

    /// The batch settings from the command line; throws ValidationError (exit 64) on nonsense.
    func settings() throws -> BatchSettings {
        var formats = [ImageFormat]()
        for text in format.isEmpty ? [ImageFormat.jpeg.fileExtension] : format {
            guard let format = ImageFormat(pathExtension: text) else {
                throw ValidationError("Expected \(ImageFormat.choices()) for --format but received '\(text)'.")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        let options = try common.options()
        let widths = try widthTexts.map { try NumberText<Int>(argument: $0).value("--width", Limits.side.range, expected: Limits.side.expected) }
        var shapes = try size.map { text in
            let parsed = try CropArguments.size(text)
            return (aspect: parsed.aspect, size: Optional(parsed.size))
        }
        var aspects = try aspect.map { try CropArguments.aspect($0) }
        // --width without --aspect: each --size's aspect at every width, or 1:1 without --size.
        if aspects.isEmpty && (shapes.isEmpty || !widths.isEmpty) {
            aspects = shapes.isEmpty ? [.ratio(width: 1, height: 1)] : shapes.map(\.aspect).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        }
        shapes += aspects.flatMap { aspect in widths.isEmpty ? [(aspect, nil)] : widths.map { (aspect, OutputSize.width($0)) } }
        var specs = [OutputSpec]()
        for format in formats {
            try Self.checkName(name, format: format)
            for shape in shapes where !specs.contains(OutputSpec(aspect: shape.aspect, size: shape.size, format: format)) {
                var o = options
                (o.aspect, o.size) = (shape.aspect, shape.size)
                let shown = BatchNaming.shownName(template: name, stem: "{stem}", fileExtension: format.fileExtension, aspect: shape.aspect, asked: shape.size)
                try common.checkOutput(o, format: format, path: "\(outputDir ?? ".")/\(shown)")
                specs.append(OutputSpec(aspect: shape.aspect, size: shape.size, format: format))
            }
        }
        let key = [
            "size=\(size)", "aspect=\(aspect)", "width=\(widths)", "enlarge=\(!common.noEnlarge)", "margin=\(common.margin)", "strategy=\(common.strategy)",
            "noFace=\(common.noFace)", "quality=\(common.qualityTexts)", "minQuality=\(try common.minQuality.map { String($0) } ?? "")",
            "strip=\(common.strip)",
            "format=\(formats.map(\.rawValue))", "name=\(name)",
            "detector=\(detection.detector)", "threshold=\(try detection.threshold ?? detection.detector.profile.threshold)",
            "detectSize=\(try detection.detectSize ?? detection.detector.profile.analysisSize)",
            "model=\(try detection.model.map { try modelDigest($0) } ?? "")",
        ].joined(separator: " ")
        var settings = BatchSettings(outputDirectory: outputDir ?? ".", specs: specs, crop: options, optionsKey: key)
        settings.nameTemplate = name
        settings.force = force
        settings.dryRun = dryRun
        return settings
    }

    /// The --name template must give each format's files an extension of that format: a fixed ".webp" with
    /// --format jpg would write WebP under a JPEG's entry, and a name without one could not be read back. It names
    /// a file in the output folder: no "/" (a "../" would write outside it, and `--prune` only deletes there).
    static func checkName(_ template: String, format: ImageFormat) throws {
        if template.contains("/") {
            throw ValidationError("The --name '\(template)' has a '/' in it; it names files in the output folder (--recursive mirrors input folders there).")
        }
        let sample = BatchNaming.outputName(template: template, stem: "photo", fileExtension: format.fileExtension, aspect: .original, asked: nil, size: nil)
        guard ImageFormat(path: sample) != format else { return }
        throw ValidationError(
            "The --name '\(template)' names \(format.displayName) outputs '\(sample)'; end it with .{ext} (or an extension of \(format.displayName)).")
    }

    /// A model file counts by its content: replacing it redoes the inputs.
    func modelDigest(_ path: String) throws -> String {
        do { return try BatchRunner.sha256(path) } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        Interruption.install()
        StandardStreams.writeLines()  // a line (or JSON record) as each input is done, in a pipe too
        var settings = try settings()
        let outputDir = settings.outputDirectory
        // Outputs never become inputs: the output folder is not walked, nor the outputs earlier runs recorded.
        var exclusions = BatchInputs.Exclusions()
        if let id = FileIdentity(outputDir) { exclusions.folders.insert(id) }
        exclusions.files = BatchRunner.recordedOutputs(under: outputDir)
        let collected = try inputs.collect(excluding: exclusions)
        let all = collected.inputs
        try inputs.requireImages(collected)
        // The images of an output folder inside an input folder, other than recorded outputs, are not inputs but
        // are protected as inputs are: photos the user keeps there.
        let kept = collected.leftOut.flatMap {
            BatchInputs.collect([$0], recursive: true, excluding: BatchInputs.Exclusions(files: exclusions.files)).inputs.map(\.path)
        }
        settings.inputs = inputs.protected(all.map(\.path), reading: detection.readFiles + kept)
        try refuseStandardOutputOnto(settings.inputs)
        let clashes = settings.clashes(all)
        if let (path, owners) = clashes.min(by: { $0.key < $1.key }) {
            let who = owners[0] == owners[1] ? "Two outputs of '\(owners[0])'" : "'\(owners[0])' and '\(owners[1])'"
            // Their folders help only for files of different folders, given as files.
            let apart = !inputs.recursive && Rank.folder(owners[0]) != Rank.folder(owners[1])
            let hint = apart ? "their folders with --recursive, or a --name with more in it" : "a --name with more in it"
            printError("Error: \(who) would both write '\(path)'; give \(hint).")
            throw ExitCode(64)
        }
        // Every path this run writes is checked before any work: outputs of a known size, the report, the
        // output folder (created now, so a folder that cannot be made fails at once).
        try reportingErrors { () throws(FaceCropError) in
            if let input = settings.inputs.input(at: outputDir) { throw .outputSameAsInput(input) }
            for path in settings.knownOutputPaths(all) where settings.inputs.input(at: path) != nil { throw .outputSameAsInput(path) }
            // Reports go where they are asked: their folders are made.
            for (option, path) in [("--report", report), ("--site-manifest", siteManifest)] {
                guard let path else { continue }
                let folder = String(path.prefix(upTo: path.lastIndex(of: "/") ?? path.startIndex))
                if !folder.isEmpty { try BatchRunner.makeDirectories(folder) }
                try OutputCheck.destination(path, inputs: settings.inputs, allowStreams: true)
                // Nor in a folder of manifests, where it could replace one (and the next run redo its input).
                if let real = realpath(folder.isEmpty ? "." : folder, nil) {
                    defer { free(real) }
                    if String(cString: real).hasSuffix("/.facecrop") {
                        throw .invalidSetting("\(option) '\(path)' is in a .facecrop folder, where batch keeps its manifests; write it elsewhere.")
                    }
                }
            }
            try OutputCheck.distinct([report, siteManifest].compactMap { $0 })
            // Nor is a report one of the images this run writes (those named before any work; the rest at the end).
            try Self.checkReports([report, siteManifest], against: settings.knownOutputPaths(all))
            if !self.dryRun {
                try BatchRunner.makeDirectories(outputDir)
                if access(outputDir, W_OK) != 0 { throw .outputNotWritable(outputDir, reason: String(cString: strerror(errno)).lowercased()) }
            }
        }
        let chosen = shardIndex.map { BatchInputs.shard(all, index: $0.index, count: $0.count) } ?? all
        let cropper = try detection.makeCropper(quality: settings.crop.minQuality != nil, maxEncodeMemory: try common.encode.maxEncodeMemory)
        let runner = BatchRunner(cropper: cropper, settings: settings)
        if !dryRun { _ = runner.removeStaleTemporaryFiles() }

        let problems = collected.problems.map { p in
            BatchRecord(input: p.path, status: .failed, error: p.error.description, exitCode: p.error.exitCode)
        }
        for record in problems { printError("Error: \(record.error ?? record.input)") }
        let progress = Progress(total: chosen.count, enabled: !quiet && isatty(STDERR_FILENO) != 0)
        let (dryRun, json, strategy) = (self.dryRun, detection.json, common.strategy)
        // --json: the records in input order as they come (a record waits for those before it), then the summary.
        let ordered = JSONLines(first: problems, order: chosen.map(\.path))
        if json { ordered.start() }
        let records =
            problems
            + runner.run(chosen, jobs: try inputs.jobs, failFast: failFast) { record in
                progress.clear()
                if record.status == .failed { printError("Error: \(record.error ?? record.input)") }
                for warning in Self.cutFaceWarnings(record, strategy: strategy) { printError(warning) }
                if json {
                    ordered.add(record)
                } else if dryRun {
                    for o in record.outputs ?? [] {
                        printLine("\(record.input) -> \(o.path) crop \(o.crop.width)x\(o.crop.height)+\(o.crop.x)+\(o.crop.y)")
                    }
                } else if record.status != .failed {
                    printLine("\(record.input): \(record.status.rawValue) -> \((record.outputs ?? []).map(\.path).joined(separator: ", "))")
                }
                progress.step(failed: record.status == .failed)
            }
        progress.clear()
        var pruned: [String]?
        if prune && !dryRun {
            // Outputs of inputs that could not be listed would look like those of inputs gone.
            if !problems.isEmpty {
                printError("Note: nothing was pruned, as some inputs could not be listed.")
            } else {
                pruned = runner.prune(keeping: all)
                // With --json, standard output holds JSON only: the summary lists them.
                if !json { for path in pruned ?? [] { printLine("pruned \(path)") } }
            }
        }
        if report != nil || siteManifest != nil {
            try reportingErrors { () throws(FaceCropError) in
                try Self.checkReports([report, siteManifest], against: records.flatMap { ($0.outputs ?? []).map(\.path) })
            }
        }
        let failed = records.filter { $0.status == .failed }.count
        let summary = try Self.jsonLine([
            "summary": Summary(
                version: FaceCropper.version, inputs: problems.count + chosen.count, done: records.filter { $0.status == .done }.count,
                skipped: records.filter { $0.status == .skipped }.count, failed: failed, seconds: progress.seconds, pruned: pruned)
        ])
        if json {
            ordered.finish()
            print(summary)
        }
        if let report {
            var lines = try records.map { try Self.jsonLine($0) }
            lines.append(summary)
            let text = lines.joined(separator: "\n") + "\n"
            try reportingErrors { () throws(FaceCropError) in try ReportFile.write(Array(text.utf8), to: report, inputs: settings.inputs) }
        }
        if let siteManifest, !dryRun {
            let manifest = SiteManifest(version: FaceCropper.version, outputDir: outputDir, images: records.compactMap(SiteManifest.Image.init))
            let bytes = Array(try manifest.json().utf8)
            try reportingErrors { () throws(FaceCropError) in try ReportFile.write(bytes, to: siteManifest, inputs: settings.inputs) }
        }
        if failed > 0 { throw ExitCode(3) }
    }

    /// As a single crop warns: one line per aspect whose crop cuts faces.
    static func cutFaceWarnings(_ record: BatchRecord, strategy: CropStrategy) -> [String] {
        var seen = Set<String>()
        return (record.outputs ?? []).compactMap { o in
            guard let cut = o.cutFaces, seen.insert(o.aspect).inserted else { return nil }
            return CutFaces.warning(
                input: record.input, cut: cut, faceCount: record.faces ?? 0, aspect: o.aspect, strategy: strategy, regionFits: o.regionFits ?? false)
        }
    }

    /// `--site-manifest`: every input done or skipped, in input order, with its outputs; for a site generator.
    struct SiteManifest: Encodable {
        var version: String
        var outputDir: String
        var images: [Image]

        struct Image: Encodable {
            var input: String
            var faces: Int
            /// The faces' boxes in the upright input, in pixels: focal points for a site's own cropping or CSS.
            var faceBoxes: [PixelRect]
            var outputs: [BatchOutput]
            init?(_ record: BatchRecord) {
                guard record.status != .failed, let outputs = record.outputs else { return nil }
                (input, faces, faceBoxes, self.outputs) = (record.input, record.faces ?? 0, record.faceBoxes ?? [], outputs)
            }
        }

        func json() throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
        }
    }

    /// Refuses a report or site manifest that is one of `outputs` (by name, then the folder's identity).
    static func checkReports(_ reports: [String?], against outputs: [String]) throws(FaceCropError) {
        for path in reports.compactMap({ $0 }) {
            let name = "/" + (path.split(separator: "/").last.map(String.init) ?? path)
            for output in outputs where ("/" + output).hasSuffix(name) && OutputCheck.sameDestination(path, output) {
                throw .outputsClash(path, output)
            }
        }
    }

    /// `batch --json`'s records, printed in input order as they arrive: `first` (inputs that could not be listed) at
    /// `start`, then each run record once those of the inputs before it (`order`, by path) are out.
    final class JSONLines: @unchecked Sendable {
        private let first: [BatchRecord]
        private let position: [String: Int]
        private var waiting: [Int: BatchRecord] = [:]
        private var next = 0

        init(first: [BatchRecord], order: [String]) {
            self.first = first
            position = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        }

        func start() { for record in first { emit(record) } }

        /// Called serially (`BatchRunner.run`'s report).
        func add(_ record: BatchRecord) {
            guard let index = position[record.input] else { return emit(record) }
            waiting[index] = record
            while let ready = waiting.removeValue(forKey: next) {
                emit(ready)
                next += 1
            }
        }

        /// The records still waiting (with --fail-fast, inputs before them never started), in input order.
        func finish() {
            for index in waiting.keys.sorted() { emit(waiting[index]!) }
            waiting = [:]
        }

        private func emit(_ record: BatchRecord) {
            if let line = try? Batch.jsonLine(record) { print(line) }
        }
    }

    struct Summary: Codable {
        var version: String
        var inputs, done, skipped, failed: Int
        var seconds: Double
        /// With --prune: the outputs deleted.
        var pruned: [String]?
    }

    static func jsonLine(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
