import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One way to fail: the command line, the input to keep intact, and what is expected.
struct FailureScenario {
    var args: [String]
    /// Name (in the scratch folder) of an input file that must be byte-identical afterwards.
    var input: String?
    /// Output folder to search for leftover temporary files.
    var outputFolder: URL
}

/// Failing runs (of the crop command unless the case says otherwise). Each runs in its own scratch folder with `in.jpg` (a copy of
/// Samples/group.jpg unless the case says otherwise) and, where it makes sense, `-o out.jpg`.
enum Failure: String, CaseIterable, Sendable, CustomTestStringConvertible {
    // 64: bad arguments.
    case aspectZero, aspectWord, aspectNoHeight, marginWord, marginNegative, sizeZero, sizeNoX, sizeWords
    case widthZero, widthNegative, qualityZero, quality101, thresholdAboveOne, thresholdNegative
    case sizeAndWidth, sizeContradictsAspect, missingOutput, gifOutput, txtOutput, noExtensionOutput
    case outputIsInput, outputIsInputDotSlash, outputIsSymlinkToInput, inputIsSymlinkToOutput, outputIsHardLinkToInput
    // 64: an output whose encoder would take more than --max-encode-memory (found after the plan, or before any work).
    case cropOverEncodeMemory, annotateOverEncodeMemory, sheetOverEncodeMemory
    // 65: not a readable image.
    case emptyFile, textFileNamedJPEG, truncatedJPEG, truncatedJPEGDryRun, truncatedJPEGDetect, randomBytes, overMaxPixels
    // 66: input missing or not a file.
    case inputMissing, inputIsDirectory, inputIsFIFO
    // 73: output cannot be created.
    case outputFolderMissing, outputIsDirectory, outputFolderIsAFile
    // 2: no face with --no-face fail.
    case noFaceFail

    var testDescription: String { rawValue }

    var expectedStatus: Int32 {
        switch self {
        case .emptyFile, .textFileNamedJPEG, .truncatedJPEG, .truncatedJPEGDryRun, .truncatedJPEGDetect, .randomBytes, .overMaxPixels: 65
        case .inputMissing, .inputIsDirectory, .inputIsFIFO: 66
        case .outputFolderMissing, .outputIsDirectory, .outputFolderIsAFile: 73
        case .noFaceFail: 2
        default: 64
        }
    }

    /// Argument-parser validation errors may add a usage hint after the "Error: " line; facecrop's own
    /// errors are exactly one line.
    var singleLine: Bool {
        switch self {
        case .outputIsInput, .outputIsInputDotSlash, .outputIsSymlinkToInput, .inputIsSymlinkToOutput, .outputIsHardLinkToInput,
            .cropOverEncodeMemory, .annotateOverEncodeMemory, .sheetOverEncodeMemory:
            true
        default: expectedStatus != 64
        }
    }

    /// Text the error line must contain.
    var messageContains: String? {
        switch self {
        case .emptyFile: "'in.jpg'"
        case .textFileNamedJPEG, .truncatedJPEG, .truncatedJPEGDryRun, .truncatedJPEGDetect, .randomBytes, .overMaxPixels: "'in.jpg'"
        case .inputMissing: "'missing.jpg'"
        case .inputIsDirectory: "'folder.jpg'"
        case .inputIsFIFO: "'fifo.jpg'"
        case .outputFolderMissing: "'no-such-folder'"
        case .outputIsDirectory: "'existing.jpg'"
        case .outputIsInput, .outputIsInputDotSlash, .outputIsSymlinkToInput, .inputIsSymlinkToOutput, .outputIsHardLinkToInput:
            "never overwrites its input"
        case .gifOutput: ".gif"
        case .cropOverEncodeMemory:
            "'out.avif' would be 1350x1350 pixels, which the AVIF encoder holds whole in memory: about 257 MiB, over the limit of 95 MiB"
        case .annotateOverEncodeMemory: "which the HEIC encoder holds whole in memory"
        case .sheetOverEncodeMemory: "'sheet.webp' would be"
        case .txtOutput: ".txt"
        default: nil
        }
    }

    func prepare(in dir: URL) throws -> FailureScenario {
        let fm = FileManager.default
        let input = dir.appendingPathComponent("in.jpg")
        var inputName: String? = "in.jpg"
        let group = "Samples/group.jpg"
        func standard(_ options: [String]) throws -> [String] {
            try copySample(group, to: dir, as: "in.jpg")
            return options + ["in.jpg", "-o", "out.jpg"]
        }
        let args: [String]
        switch self {
        case .aspectZero: args = try standard(["--aspect", "0:1"])
        case .aspectWord: args = try standard(["--aspect", "wide"])
        case .aspectNoHeight: args = try standard(["--aspect", "16:"])
        case .marginWord: args = try standard(["--margin", "lots"])
        case .marginNegative: args = try standard(["--margin=-5"])
        case .sizeZero: args = try standard(["--size", "640x0"])
        case .sizeNoX: args = try standard(["--size", "640"])
        case .sizeWords: args = try standard(["--size", "axb"])
        case .widthZero: args = try standard(["--width", "0"])
        case .widthNegative: args = try standard(["--width=-3"])
        case .qualityZero: args = try standard(["--quality", "0"])
        case .quality101: args = try standard(["--quality", "101"])
        case .thresholdAboveOne: args = try standard(["--threshold", "1.5"])
        case .thresholdNegative: args = try standard(["--threshold=-0.1"])
        case .sizeAndWidth: args = try standard(["--size", "640x360", "--width", "300"])
        case .sizeContradictsAspect: args = try standard(["--size", "640x360", "--aspect", "1:1"])
        case .missingOutput:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["in.jpg"]
        case .gifOutput:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["in.jpg", "-o", "out.gif"]
        case .txtOutput:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["in.jpg", "-o", "out.txt"]
        case .noExtensionOutput:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["in.jpg", "-o", "out"]
        case .outputIsInput:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["in.jpg", "-o", "in.jpg"]
        case .outputIsInputDotSlash:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["in.jpg", "-o", "./in.jpg"]
        case .outputIsSymlinkToInput:
            try copySample(group, to: dir, as: "in.jpg")
            try fm.createSymbolicLink(atPath: dir.appendingPathComponent("link.jpg").path, withDestinationPath: "in.jpg")
            args = ["in.jpg", "-o", "link.jpg"]
        case .inputIsSymlinkToOutput:
            try copySample(group, to: dir, as: "in.jpg")
            try fm.createSymbolicLink(atPath: dir.appendingPathComponent("link.jpg").path, withDestinationPath: "in.jpg")
            args = ["link.jpg", "-o", "in.jpg"]
        case .outputIsHardLinkToInput:
            try copySample(group, to: dir, as: "in.jpg")
            try fm.linkItem(at: input, to: dir.appendingPathComponent("hard.jpg"))
            args = ["in.jpg", "-o", "hard.jpg"]
        case .cropOverEncodeMemory, .annotateOverEncodeMemory, .sheetOverEncodeMemory:
            try copySample(group, to: dir, as: "in.jpg")
            args =
                switch self {
                case .cropOverEncodeMemory: ["--max-encode-memory", "100000000", "in.jpg", "-o", "out.avif"]
                case .annotateOverEncodeMemory: ["annotate", "--max-encode-memory", "1000000", "in.jpg", "-o", "out.heic"]
                default: ["rank", "--max-encode-memory", "1000", "in.jpg", "--sheet", "sheet.webp"]
                }
        case .emptyFile:
            try Data().write(to: input)
            args = ["in.jpg", "-o", "out.jpg"]
        case .textFileNamedJPEG:
            try Data("This is not a picture, only text.\n".utf8).write(to: input)
            args = ["in.jpg", "-o", "out.jpg"]
        case .truncatedJPEG, .truncatedJPEGDryRun, .truncatedJPEGDetect:
            // A real JPEG cut to half its bytes.
            let whole = try Data(contentsOf: CLI.repoFile(group))
            try whole.prefix(whole.count / 2).write(to: input)
            args =
                switch self {
                case .truncatedJPEGDryRun: ["--dry-run", "in.jpg", "-o", "out.jpg"]
                case .truncatedJPEGDetect: ["detect", "in.jpg"]
                default: ["in.jpg", "-o", "out.jpg"]
                }
        case .randomBytes:
            var generator = SystemRandomNumberGenerator()
            try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: input)
            args = ["in.jpg", "-o", "out.jpg"]
        case .overMaxPixels:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["--max-pixels", "1000", "in.jpg", "-o", "out.jpg"]
        case .inputMissing:
            inputName = nil
            args = ["missing.jpg", "-o", "out.jpg"]
        case .inputIsDirectory:
            inputName = nil
            try fm.createDirectory(at: dir.appendingPathComponent("folder.jpg"), withIntermediateDirectories: false)
            args = ["folder.jpg", "-o", "out.jpg"]
        case .inputIsFIFO:
            inputName = nil
            guard mkfifo(dir.appendingPathComponent("fifo.jpg").path, 0o644) == 0 else { throw CLITestError("mkfifo failed") }
            args = ["fifo.jpg", "-o", "out.jpg"]
        case .outputFolderMissing:
            try copySample(group, to: dir, as: "in.jpg")
            args = ["in.jpg", "-o", "no-such-folder/out.jpg"]
        case .outputIsDirectory:
            try copySample(group, to: dir, as: "in.jpg")
            try fm.createDirectory(at: dir.appendingPathComponent("existing.jpg"), withIntermediateDirectories: false)
            args = ["in.jpg", "-o", "existing.jpg"]
        case .outputFolderIsAFile:
            try copySample(group, to: dir, as: "in.jpg")
            try Data("x".utf8).write(to: dir.appendingPathComponent("plain"))
            args = ["in.jpg", "-o", "plain/out.jpg"]
        case .noFaceFail:
            try copySample("Samples/landscape-no-face.jpg", to: dir, as: "in.jpg")
            args = ["--no-face", "fail", "in.jpg", "-o", "out.jpg"]
        }
        return FailureScenario(args: args, input: inputName, outputFolder: dir)
    }
}

/// Runs `scenario` and checks everything a failure promises: exit status, one "Error: " line on standard
/// error, nothing on standard output, no new file (output or temporary) and an untouched input.
func expectFailure(
    _ scenario: FailureScenario, in dir: URL, status: Int32, singleLine: Bool, contains: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> RunResult {
    let before = listing(dir)
    let inputBefore = try scenario.input.map { try FileSnapshot(dir.appendingPathComponent($0)) }
    let result = try runFaceCrop(scenario.args, in: dir)

    #expect(!result.timedOut, "facecrop \(scenario.args) did not finish", sourceLocation: sourceLocation)
    #expect(result.status == status, "facecrop \(scenario.args): \(result)", sourceLocation: sourceLocation)
    let lines = result.stderrLines
    #expect(lines.first?.hasPrefix("Error: ") == true, "first line of stderr: \(result.stderr)", sourceLocation: sourceLocation)
    if singleLine {
        #expect(lines.count == 1, "stderr must be exactly one line, got \(lines.count):\n\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasSuffix("\n") && !result.stderr.hasSuffix("\n\n"), sourceLocation: sourceLocation)
    }
    if let contains {
        #expect(lines.first?.contains(contains) == true, "expected '\(contains)' in: \(result.stderr)", sourceLocation: sourceLocation)
    }
    #expect(result.stdout.isEmpty, "stdout should be empty: \(result.stdout)", sourceLocation: sourceLocation)
    #expect(listing(dir) == before, "files appeared or vanished: \(listing(dir).symmetricDifference(before))", sourceLocation: sourceLocation)
    #expect(leftoverTempFiles(scenario.outputFolder).isEmpty, sourceLocation: sourceLocation)
    if let name = scenario.input, let inputBefore {
        #expect(try FileSnapshot(dir.appendingPathComponent(name)) == inputBefore, "input \(name) changed", sourceLocation: sourceLocation)
    }
    return result
}

struct FailureTests {
    @Test(arguments: Failure.allCases)
    func fails(_ failure: Failure) throws {
        try withScratch { dir in
            let scenario = try failure.prepare(in: dir)
            let result = try expectFailure(
                scenario, in: dir, status: failure.expectedStatus, singleLine: failure.singleLine, contains: failure.messageContains)
            switch failure {
            case .noFaceFail:
                #expect(result.stderr == "Error: No face found in 'in.jpg'.\n")
            case .outputIsDirectory:
                let contents = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("existing.jpg").path)
                #expect(contents.isEmpty, "the output folder was written into: \(contents)")
            case .outputFolderMissing:
                #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("no-such-folder").path))
            default:
                break
            }
        }
    }

    /// As root, access() grants everything: permission checks cannot fail.
    static let isRoot = geteuid() == 0

    @Test(.disabled(if: isRoot, "root can read a chmod 000 file"))
    func unreadableInput() throws {
        try withScratch { dir in
            let input = try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            chmod(input.path, 0)
            defer { chmod(input.path, 0o644) }
            let before = listing(dir)
            let r = try runFaceCrop(["in.jpg", "-o", "out.jpg"], in: dir)
            #expect(r.status == 66, "\(r)")
            #expect(r.stderrLines.count == 1 && r.stderrLines[0].hasPrefix("Error: "), "\(r.stderr)")
            #expect(listing(dir) == before)
        }
    }

    @Test(.disabled(if: isRoot, "root can write into a read-only folder"))
    func unwritableOutputFolder() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            let locked = dir.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
            chmod(locked.path, 0o555)
            defer { chmod(locked.path, 0o755) }
            let scenario = FailureScenario(args: ["in.jpg", "-o", "locked/out.jpg"], input: "in.jpg", outputFolder: locked)
            _ = try expectFailure(scenario, in: dir, status: 73, singleLine: true)
            #expect(listing(locked).isEmpty)
        }
    }
}
