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
    /// and the parser then reports a missing input, which is no help to someone who gave one.
    static func main() {
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let arguments = CommandLine.arguments.dropFirst().prefix { $0 != "--" }
            if exitCode(for: error) == .validationFailure,
                let name = arguments.first(where: { $0.count > 1 && $0.hasPrefix("-") && isFile($0) })
            {
                printError("Error: '\(name)' was read as an option; to use the file of that name, write './\(name)' or put it after '--'.")
                exit(withError: ExitCode(64))
            }
            exit(withError: error)
        }
        do {
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    static func isFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT != S_IFDIR
    }
}

/// Options shared by every command that detects faces.
struct DetectionOptions: ParsableArguments {
    @Option(help: "Face detector: centerface (default, built in: finds the most faces), yunet (built in: the fastest) or haar (OpenCV cascade from opencv-data).")
    var detector: DetectorKind = .centerface

    @Option(help: "Detector confidence threshold, 0...1 (default: 0.5 for centerface, 0.75 for yunet, 0.5 for haar).")
    var threshold: Double?

    @Option(help: "Long side in pixels of the image faces are detected on (larger images are shrunk, smaller ones enlarged; default: 640).")
    var detectSize: Int?

    @Option(help: "Model file for the detector: a CenterFace or YuNet .onnx (instead of the built-in one) or a Haar cascade .xml.")
    var model: String?

    @Option(help: "Refuse inputs with more pixels than this (decompression bombs).")
    var maxPixels = FaceCropper.defaultMaxPixels

    @Option(help: "Refuse input files larger than this many bytes (default: 512 MiB).")
    var maxFileSize = FaceCropper.defaultMaxFileSize

    @Flag(help: "Print a JSON report on standard output.")
    var json = false

    @Flag(help: "Allow the loaders libvips marks untrusted (ImageMagick and other fuzz-prone formats). Blocked by default.")
    var allowUntrustedLoaders = false

    func validate() throws {
        if let threshold, !(0...1).contains(threshold) {
            throw ValidationError("Expected a number between 0 and 1 for --threshold but received '\(threshold)'.")
        }
        if let detectSize, !(32...4096).contains(detectSize) {
            throw ValidationError("Expected an integer between 32 and 4096 for --detect-size but received '\(detectSize)'.")
        }
        guard maxPixels > 0 else { throw ValidationError("Expected a positive integer for --max-pixels but received '\(maxPixels)'.") }
        guard maxFileSize > 0 else { throw ValidationError("Expected a positive integer for --max-file-size but received '\(maxFileSize)'.") }
    }

    /// The cropper; `quality` also loads the capture quality models (for --min-quality), with dlib's landmark
    /// model when it is installed (else a note on standard error).
    func makeCropper(quality: Bool = false) throws -> FaceCropper {
        // libvips' start-up (it loads its plugin modules) runs while OpenCV reads the model.
        let vipsStart = FaceCropper.startImageLibrary()
        let kind = detector, model = model
        let detector = try reportingErrors { () throws(FaceCropError) in try FaceDetector(kind: kind, modelPath: model) }
        try? vipsStart.value()
        FaceCropper.allowUntrustedLoaders(allowUntrustedLoaders)
        var cropper = FaceCropper(detector: detector, threshold: threshold, analysisSize: detectSize, maxPixels: maxPixels)
        cropper.maxFileSize = maxFileSize
        if quality {
            let analyzer = try reportingErrors { () throws(FaceCropError) in try QualityAnalyzer() }
            if analyzer.landmarkFitter == nil { printError(LandmarkFitter.missingModelNote) }
            if let note = analyzer.landmarkFitter?.cacheWrittenNote { printError(note) }
            cropper.qualityAnalyzer = analyzer
        }
        return cropper
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

/// One line on standard error. Control characters (a newline in a file name) are escaped, so it stays one line.
func printError(_ line: String) {
    let text = escapingControlCharacters(line) + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
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
