import ArgumentParser
import FaceCrop
import FoundationEssentials  // JSONEncoder without Foundation's ICU: faster process start
import Glibc

@main
struct FaceCropCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facecrop",
        abstract: "Crop photos around the faces in them.",
        discussion: """
            Exit status: 0 success, 2 no face found with --no-face fail, 3 some inputs of a batch failed, 64 bad \
            arguments, 65 input is not a readable image (corrupt, truncated, too many pixels), 66 input missing \
            or unreadable, 73 output cannot be created, 1 any other error.
            """,
        version: FaceCropper.version,
        subcommands: [Crop.self, Detect.self, Batch.self, Rank.self, Annotate.self, BestFrame.self, Stability.self],
        defaultSubcommand: Crop.self
    )

    /// ArgumentParser's main, with one more hint: a file whose name starts with '-' is read as an option,
    /// and the parser then reports a missing input or an unknown option, which is no help to someone who gave
    /// a file.
    static func main() {
        FaceCropper.openImageModulesOnDemand()
        refuseUndecodableArguments()
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if exitCode(for: error) == .validationFailure, let name = fileReadAsOption(arguments) {
                printError("Error: '\(name)' is read as an option; \(valueAdvice(name, in: arguments)).")
                exit(withError: ExitCode(64))
            }
            // A usage error is one line (the usage summary is in --help), escaped like every error line.
            if exitCode(for: error) == .validationFailure {
                let message = self.message(for: error)
                printError(message.hasPrefix("Error: ") ? message : "Error: \(message)")
                exit(withError: ExitCode(64))
            }
            exitWith(error)
        }
        if command is Crop || command is Detect || command is Annotate { FaceCropper.returnLargeBlocksWhenFreed() }
        do {
            try command.run()
        } catch {
            exitWith(error)
        }
        finishStandardOutput()
    }

    /// ArgumentParser's `exit(withError:)`, but help and the version (a clean exit) are printed here, so that
    /// standard output that cannot be written is an error (73) for them too.
    static func exitWith(_ error: any Error) -> Never {
        guard exitCode(for: error) == .success else { exit(withError: error) }
        print(fullMessage(for: error))
        finishStandardOutput()
        exit(withError: ExitCode.success)
    }

    /// Standard output is buffered: a write that failed (a full disk) shows only when it is flushed, and is an
    /// output that could not be written (73), not a success.
    static func finishStandardOutput() {
        do {
            try StandardStreams.flush()
        } catch {
            printError("Error: \(error.description)")
            exit(withError: ExitCode(error.exitCode))
        }
    }

    /// Swift decodes the arguments as UTF-8, replacing what is not: a Latin-1 file name would become another
    /// name, reported missing. Such an argument is refused by what it is instead (64).
    static func refuseUndecodableArguments() {
        for i in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[i] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument))
            if FileName.text(bytes) == nil {
                printError("Error: Argument '\(FileName.shown(bytes))' is not valid UTF-8: \(FileName.advice).")
                exit(withError: ExitCode(64))
            }
        }
    }

    /// The argument (before any "--") that was read as an option but names a file, when `arguments` do not
    /// parse: one naming an existing file, or one shaped like a file name ('.' or '/' after the dash, not a
    /// number) whose being written './NAME' changes the outcome. A value ("--margin -5.5%") gives the same
    /// refusal either way, and is left to it, as is a mistyped option ("-x").
    static func fileReadAsOption(_ arguments: [String]) -> String? {
        let original: String
        do {
            _ = try parseAsRoot(arguments)
            return nil
        } catch {
            original = message(for: error)
        }
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        func dashed(_ argument: String) -> Bool { argument.count > 1 && argument.hasPrefix("-") && argument != "--" }
        if let name = arguments[..<end].first(where: { dashed($0) && isFile($0) }) { return name }
        let shaped = arguments[..<end].indices.filter { i in
            let argument = arguments[i]
            let name = argument.drop { $0 == "-" }
            return dashed(argument) && (name.contains(".") || name.contains("/")) && Double(argument) == nil
                && !(argument.hasPrefix("--") && argument.contains("="))
        }
        guard let first = shaped.first else { return nil }
        var written = arguments
        for i in shaped { written[i] = "./" + arguments[i] }
        do {
            _ = try parseAsRoot(written)
        } catch {
            let refusal = shaped.reduce(message(for: error)) { $0.replacing("./" + arguments[$1], with: arguments[$1]) }
            if refusal == original { return nil }
        }
        return arguments[first]
    }

    /// How to give `name`, read as an option: as the value of the option before it when joined to it with '='
    /// ("--name=-x.{ext}") the arguments parse, else as a file.
    static func valueAdvice(_ name: String, in arguments: [String]) -> String {
        if let i = arguments.firstIndex(of: name), i > 0, arguments[i - 1].hasPrefix("--"), !arguments[i - 1].contains("=") {
            var joined = arguments
            joined.replaceSubrange((i - 1)...i, with: ["\(arguments[i - 1])=\(name)"])
            if (try? parseAsRoot(joined)) != nil { return "to give it to \(arguments[i - 1]), write '\(arguments[i - 1])=\(name)'" }
        }
        return "to name a file that starts with '-', put it after '--' or write './\(name)'"
    }

    static func isFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT != S_IFDIR
    }
}

/// Options shared by every command that detects faces.
struct DetectionOptions: ParsableArguments {
    @Option(
        help: "Face detector: centerface (default, built in: finds the most faces), yunet (built in: the fastest) or haar (OpenCV cascade from opencv-data).")
    var detector: DetectorKind = .centerface

    @Option(
        name: .customLong("threshold"), parsing: .unconditional,
        help: "Detector confidence threshold, 0...1 (default: 0.5 for centerface, 0.75 for yunet, 0.5 for haar).")
    var thresholdText: NumberText<Double>?

    @Option(
        name: .customLong("detect-size"), parsing: .unconditional,
        help: "Long side in pixels of the image faces are detected on (larger images are shrunk, smaller ones enlarged; default: 640).")
    var detectSizeText: NumberText<Int>?

    @Option(help: "Model file for the detector: a CenterFace or YuNet .onnx (instead of the built-in one) or a Haar cascade .xml.")
    var model: String?
    /// Files read besides the images, which no output may be.
    var readFiles: [String] { model.map { [$0] } ?? [] }

    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: "Refuse inputs with more pixels than this (decompression bombs).")
    var maxPixelsText = NumberText(FaceCropper.defaultMaxPixels)

    @Option(name: .customLong("max-file-size"), parsing: .unconditional, help: "Refuse input files larger than this many bytes (default: 512 MiB).")
    var maxFileSizeText = NumberText(FaceCropper.defaultMaxFileSize)

    @Option(
        name: .customLong("max-decode-memory"), parsing: .unconditional,
        help:
            "Refuse inputs whose decoder holds the whole picture in memory (progressive JPEG, interlaced PNG, GIF, WebP, HEIF) when that takes more bytes than this (default: 256 MiB)."
    )
    var maxDecodeMemoryText = NumberText(FaceCropper.defaultMaxDecodeMemory)
    var maxDecodeMemory: Int { get throws { try maxDecodeMemoryText.value("--max-decode-memory", Limits.bytes.range, expected: Limits.bytes.expected) } }

    @Flag(help: "Print a JSON report on standard output.")
    var json = false

    @Flag(help: "Allow the loaders libvips marks untrusted (ImageMagick and other fuzz-prone formats). Blocked by default.")
    var allowUntrustedLoaders = false

    var threshold: Double? { get throws { try thresholdText?.value("--threshold", Limits.unit.range, expected: Limits.unit.expected) } }
    var detectSize: Int? { get throws { try detectSizeText?.value("--detect-size", Limits.detectSize.range, expected: Limits.detectSize.expected) } }
    var maxPixels: Int { get throws { try maxPixelsText.value("--max-pixels", Limits.pixels.range, expected: Limits.pixels.expected) } }
    var maxFileSize: Int { get throws { try maxFileSizeText.value("--max-file-size", Limits.bytes.range, expected: Limits.bytes.expected) } }

    func validate() throws {
        _ = (try threshold, try detectSize, try maxPixels, try maxFileSize, try maxDecodeMemory)
    }

    /// The cropper; `quality` also loads the capture quality models (for --min-quality), with dlib's landmark
    /// model when it is installed (else a note on standard error), now or, with `landmarksOnFirstUse`, when the
    /// first face is scored in full (then the caller tells `landmarkCacheNote` afterwards); likewise the detector's
    /// built-in net with `detectorOnFirstUse`. `oneImage`: the command analyses one image, and the detector lets
    /// go of its memory once the faces are found.
    func makeCropper(
        quality: Bool = false, landmarksOnFirstUse: Bool = false, detectorOnFirstUse: Bool = false, oneImage: Bool = false,
        maxEncodeMemory: Int = FaceCropper.defaultMaxEncodeMemory
    ) throws -> FaceCropper {
        if let model {
            // A model that is not there is a missing input (66), not a failure of the detector.
            var st = stat()
            var reason: String?
            if stat(model, &st) != 0 {
                reason = String(cString: strerror(errno)).lowercased()
            } else if st.st_mode & S_IFMT != S_IFREG {
                reason = "it is not a regular file"
            } else if access(model, R_OK) != 0 {
                reason = String(cString: strerror(errno)).lowercased()
            }
            if let reason {
                printError("Error: Model file '\(model)' cannot be read: \(reason).")
                throw ExitCode(66)
            }
            // Read whole into memory: bounded, as inputs are by --max-file-size.
            if Int(st.st_size) > Limits.maxModelBytes {
                printError("Error: Model file '\(model)' is \(st.st_size) bytes, over the \(Limits.maxModelBytes) bytes a model may be.")
                throw ExitCode(65)
            }
        }
        let (threshold, detectSize, maxPixels, maxFileSize) = (try threshold, try detectSize, try maxPixels, try maxFileSize)
        // libvips' start-up runs while OpenCV reads the model, and is over before any exit: a process that ends
        // while libvips starts on another thread can abort in GLib.
        let vipsStart = FaceCropper.startImageLibrary()
        let (kind, model) = (detector, model)
        let made = Result { () throws(FaceCropError) in try FaceDetector(kind: kind, modelPath: model, readsNetOnFirstUse: detectorOnFirstUse) }
        try? vipsStart.value()
        let detector = try reportingErrors { () throws(FaceCropError) in try made.get() }
        FaceCropper.allowUntrustedLoaders(allowUntrustedLoaders)
        var cropper = FaceCropper(detector: detector, threshold: threshold, analysisSize: detectSize, maxPixels: maxPixels)
        cropper.maxFileSize = maxFileSize
        cropper.maxDecodeMemory = try maxDecodeMemory
        cropper.maxEncodeMemory = maxEncodeMemory
        cropper.releasesDetectorMemory = oneImage
        if quality {
            let analyzer = try reportingErrors { () throws(FaceCropError) in
                try landmarksOnFirstUse ? QualityAnalyzer.loadingLandmarksOnFirstUse() : QualityAnalyzer()
            }
            if !LandmarkFitter.defaultModelInstalled { printError(LandmarkFitter.missingModelNote) }
            cropper.qualityAnalyzer = analyzer
            landmarkCacheNote(cropper)
        }
        return cropper
    }

    /// Tells the user, once, that loading the landmark model wrote its cache.
    func landmarkCacheNote(_ cropper: FaceCropper) {
        if let note = cropper.qualityAnalyzer?.landmarkFitter?.cacheWrittenNote { printError(note) }
    }
}

/// Runs library code, turning its errors into one line on standard error and facecrop's exit status.
func reportingErrors<T>(_ body: () throws(FaceCropError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        printError("Error: \(error.description)")
        throw ExitCode(error.exitCode)
    }
}

/// Standard output redirected onto an input (`facecrop detect a.jpg --json >> a.jpg`): refused before any work
/// (64), as an output that is an input is. Every command writes to standard output.
func refuseStandardOutputOnto(_ inputs: InputSet) throws {
    guard let input = inputs.inputAtStandardOutput else { return }
    printError("Error: \(FaceCropError.outputSameAsInput(input == "-" ? "-" : "- (\(input))").description)")
    throw ExitCode(64)
}

/// One line on standard error. Control characters (a newline in a file name) are escaped, so it stays one line.
func printError(_ line: String) {
    let text = escapingControlCharacters(line) + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
}

/// One line on standard output, control characters escaped as on standard error: a file name holding ESC or
/// CR cannot drive the terminal or forge lines.
func printLine(_ line: String) {
    print(escapingControlCharacters(line))
}

func escapingControlCharacters(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.properties.generalCategory == .control:
            out += "\\x" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

extension DetectorKind: ExpressibleByArgument {}
extension CropStrategy: ExpressibleByArgument {}
extension NoFacePolicy: ExpressibleByArgument {}
