import ArgumentParser
import FaceCrop
import FoundationEssentials
import Glibc

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Crop many images, several outputs each, incrementally and in parallel.",
        discussion: """
            Example: facecrop batch photos --recursive --output-dir out --size 1920x1080 --size 1280x720 --size 640x360
            Exit status: 0 every input done or skipped, 3 some inputs failed, 64 bad arguments.
            """
    )

    @OptionGroup var inputs: InputArguments

    @Option(help: "Folder for the outputs.")
    var outputDir: String?

    @Option(help: "Output file name: {stem} {ext} {width} {height} {aspect}.")
    var name = "{stem}-{width}x{height}.{ext}"

    @Option(help: "Output format: jpg, png, webp, tif, heic or avif.")
    var format = "jpg"

    @Option(help: "An output of exactly this size, WIDTHxHEIGHT (repeatable).")
    var size: [String] = []

    @Option(help: "An output of this aspect at the crop's own size, W:H (repeatable). Default, without --size: 1:1.")
    var aspect: [String] = []

    @Flag(help: "Redo every input, even those whose outputs are current.")
    var force = false

    @Flag(help: "Delete the outputs of inputs that are no longer among this run's inputs.")
    var prune = false

    @Option(help: "Process only shard K of N (e.g. 2/8): a fixed share of the inputs, for splitting work over machines.")
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
        if shard != nil && shardIndex == nil { throw ValidationError("Expected K/N with 1 ≤ K ≤ N for --shard but received '\(shard!)'.") }
        _ = try settings()
    }

    /// The batch settings from the command line; throws ValidationError (exit 64) on nonsense.
    func settings() throws -> BatchSettings {
        guard let format = ImageFormat(pathExtension: format) else {
            throw ValidationError("Expected jpg, png, webp, tif, heic or avif for --format but received '\(format)'.")
        }
        let options = try common.options()
        var specs = try size.map { text in
            let parsed = try CropArguments.size(text)
            return OutputSpec(aspect: parsed.aspect, size: parsed.size)
        }
        specs += try aspect.map { OutputSpec(aspect: try CropArguments.aspect($0), size: nil) }
        if specs.isEmpty { specs = [OutputSpec(aspect: .ratio(width: 1, height: 1), size: nil)] }
        let key = [
            "size=\(size)", "aspect=\(aspect)", "margin=\(common.margin)", "strategy=\(common.strategy)", "noFace=\(common.noFace)",
            "quality=\(common.quality.map(String.init) ?? "")", "minQuality=\(common.minQuality.map { String($0) } ?? "")", "strip=\(common.strip)", "format=\(format)", "name=\(name)",
            "detector=\(detection.detector)", "threshold=\(detection.threshold ?? detection.detector.profile.threshold)",
            "detectSize=\(detection.detectSize ?? detection.detector.profile.analysisSize)", "model=\(try detection.model.map { try modelDigest($0) } ?? "")",
        ].joined(separator: " ")
        var settings = BatchSettings(outputDirectory: outputDir ?? ".", specs: specs, crop: options, format: format, optionsKey: key)
        settings.nameTemplate = name
        settings.force = force
        settings.dryRun = dryRun
        return settings
    }

    /// A model file counts by its content: replacing it redoes the inputs.
    func modelDigest(_ path: String) throws -> String {
        do { return try BatchRunner.sha256(path) } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        Interruption.install()
        let settings = try settings()
        let all = try inputs.collect()
        let clashes = settings.clashes(all)
        if let (path, owners) = clashes.min(by: { $0.key < $1.key }) {
            let who = owners[0] == owners[1] ? "Two outputs of '\(owners[0])'" : "'\(owners[0])' and '\(owners[1])'"
            printError("Error: \(who) would both write '\(path)'; use --recursive folders or a --name with more in it.")
            throw ExitCode(64)
        }
        let chosen = shardIndex.map { BatchInputs.shard(all, index: $0.index, count: $0.count) } ?? all
        let runner = BatchRunner(cropper: try detection.makeCropper(quality: settings.crop.minQuality != nil), settings: settings)
        if !dryRun { _ = runner.removeStaleTemporaryFiles() }

        let progress = Progress(total: chosen.count, enabled: !quiet && isatty(STDERR_FILENO) != 0)
        let (dryRun, json) = (self.dryRun, detection.json)
        let records = runner.run(chosen, jobs: inputs.jobs, failFast: failFast) { record in
            progress.clear()
            if record.status == .failed { printError("Error: \(record.error ?? record.input)") }
            if json {
                if let line = try? Self.jsonLine(record) { print(line) }
            } else if dryRun {
                for o in record.outputs ?? [] {
                    print("\(record.input) -> \(o.path) crop \(o.crop.width)x\(o.crop.height)+\(o.crop.x)+\(o.crop.y)")
                }
            } else if record.status != .failed {
                print("\(record.input): \(record.status.rawValue) -> \((record.outputs ?? []).map(\.path).joined(separator: ", "))")
            }
            progress.step(failed: record.status == .failed)
        }
        progress.clear()
        if prune && !dryRun {
            for path in runner.prune(keeping: all) { print("pruned \(path)") }
        }
        let failed = records.filter { $0.status == .failed }.count
        if let report {
            var lines = try records.map { try Self.jsonLine($0) }
            let summary = Summary(
                inputs: chosen.count, done: records.filter { $0.status == .done }.count,
                skipped: records.filter { $0.status == .skipped }.count, failed: failed, seconds: progress.seconds)
            lines.append(try Self.jsonLine(["summary": summary]))
            let text = lines.joined(separator: "\n") + "\n"
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                printError("Error: Cannot write the report '\(report)': \(error).")
                throw ExitCode(73)
            }
        }
        if failed > 0 { throw ExitCode(3) }
    }

    struct Summary: Codable {
        var inputs, done, skipped, failed: Int
        var seconds: Double
    }

    static func jsonLine(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// "done/total, rate, ETA, failures" on one line of a terminal; nothing otherwise.
final class Progress: @unchecked Sendable {  // used under the runner's lock only
    let total: Int
    let enabled: Bool
    private let start = ContinuousClock.now
    private var done = 0
    private var failed = 0

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    var seconds: Double { FaceCropper.ms(start, .now) / 1000 }

    func step(failed isFailure: Bool) {
        done += 1
        if isFailure { failed += 1 }
        guard enabled else { return }
        let rate = Double(done) / max(seconds, 0.001)
        let eta = Double(total - done) / max(rate, 0.001)
        let line = "\(done)/\(total)  \((rate * 10).rounded() / 10) img/s  ETA \(Int(eta.rounded())) s  \(failed) failed"
        _ = ("\r" + line + "\u{1B}[K").utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }

    func clear() {
        guard enabled else { return }
        _ = "\r\u{1B}[K".utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }
}
