import ArgumentParser
import FaceCrop
import Glibc

struct Rank: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rank images by the capture quality of their faces, best first.",
        discussion: """
            The score of an image is the mean capture quality over its faces. Images without a face are listed \
            apart. Exit status: 0, 3 when some images could not be read, 64 bad arguments, 66 no image found.
            """
    )

    @OptionGroup var inputs: InputArguments

    @Option(name: .customLong("top"), parsing: .unconditional, help: "With --copy-to: how many of the best images to copy.")
    var topText: NumberText<Int>?
    var top: Int? { get throws { try topText?.value("--top", Limits.count.range, expected: Limits.count.expected) } }

    @Option(help: "Copy the best images here, named by rank (01-name.jpg, 02-...).")
    var copyTo: String?

    @Option(help: "Also write a contact sheet: every image's thumbnail with its faces, rank and score, best first.")
    var sheet: String?

    @Flag(name: [.short, .long], help: "No progress line.")
    var quiet = false

    @OptionGroup var detection: DetectionOptions
    @OptionGroup var encode: EncodeOptions

    func validate() throws {
        _ = try top
        if topText != nil && copyTo == nil { throw ValidationError("--top needs --copy-to.") }
        if let sheet { try Crop.checkExtension(sheet, option: "--sheet") }
    }

    func run() throws {
        Interruption.install()
        let collected = try inputs.collect()
        try inputs.requireImages(collected)
        let paths = collected.inputs.map(\.path)
        let protected = inputs.protected(paths, reading: detection.readFiles)
        try refuseStandardOutputOnto(protected)
        let maxEncodeMemory = try encode.maxEncodeMemory
        // The sheet and the copies are checked against every input before any work.
        try reportingErrors { () throws(FaceCropError) in
            if let sheet {
                try OutputCheck.destination(sheet, inputs: protected)
                try ContactSheet.check(count: paths.count, path: sheet, maxEncodeMemory: maxEncodeMemory)
            }
            if let copyTo {
                if let input = protected.input(at: copyTo) { throw .outputSameAsInput(input) }
                if let folder = FileIdentity(copyTo) {
                    // Copies are named by rank ("01-a.jpg"): among inputs, one of them could be replaced.
                    if let input = paths.first(where: { FileIdentity(Self.folder($0)) == folder }) {
                        throw .outputFolderHoldsInput(copyTo, input: input)
                    }
                }
                // The folder is made now, as batch makes its output folder, so one that cannot be made or
                // written fails before the ranking rather than after it.
                if !paths.isEmpty {
                    try BatchRunner.makeDirectories(copyTo)
                    if access(copyTo, W_OK) != 0 { throw .outputNotWritable(copyTo, reason: String(cString: strerror(errno)).lowercased()) }
                }
                // Nor is the sheet among the copies: one named by rank could replace it, or it one of them.
                if let sheet, let folder = FileIdentity(copyTo), FileIdentity(Self.folder(sheet)) == folder {
                    throw .invalidSetting(
                        "--sheet '\(sheet)' is in the --copy-to folder '\(copyTo)', where a copy named by rank could replace it; write it elsewhere.")
                }
            }
        }
        let cropper = try detection.makeCropper(quality: true, maxEncodeMemory: maxEncodeMemory)
        // Thumbnails are made at the sheet's tile size: at most the sheet's pixels are kept.
        let tileSize = ContactSheet.tileSize(for: paths.count)
        let progress = Progress(total: paths.count, enabled: !quiet && isatty(STDERR_FILENO) != 0)
        var (result, thumbnails) = cropper.rank(paths, jobs: try inputs.jobs, thumbnails: sheet != nil ? tileSize : nil) { progress.step(failed: $0) }
        progress.clear()
        // What could not be listed failed too (a folder that cannot be read, a name that is not UTF-8), first.
        result.failed.insert(contentsOf: collected.problems.map { .init(path: $0.path, error: $0.error) }, at: 0)
        for failure in result.failed { printError("Error: \(failure.error)") }
        if detection.json {
            try printJSON(result)
        } else {
            for (i, r) in result.ranked.enumerated() {
                printLine("\(i + 1). \(threeDecimals(r.score))  (\(r.faces) face\(r.faces == 1 ? "" : "s"))  \(r.path)")
            }
            if !result.noFace.isEmpty {
                print("No face:")
                for path in result.noFace { printLine("   \(path)") }
            }
        }
        if let sheet {
            // No image could be read: a blank sheet would say nothing, and an earlier one stays as it was.
            let tiles = result.sheetTiles(thumbnails)
            if tiles.isEmpty {
                printError("Note: no sheet written to '\(sheet)': no image could be read.")
            } else {
                try reportingErrors { () throws(FaceCropError) in
                    try ContactSheet.write(tiles, to: sheet, tileSize: tileSize, inputs: protected, maxEncodeMemory: cropper.maxEncodeMemory)
                }
            }
        }
        if let copyTo {
            try copyBest(result.ranked.prefix(try top ?? result.ranked.count).map(\.path), to: copyTo, inputs: protected)
        }
        if !result.failed.isEmpty { throw ExitCode(3) }
    }

    static func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
    static func folder(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    func copyBest(_ paths: [String], to folder: String, inputs: InputSet) throws {
        let width = String(paths.count).count < 2 ? 2 : String(paths.count).count
        try reportingErrors { () throws(FaceCropError) in
            if !paths.isEmpty { try BatchRunner.makeDirectories(folder) }
            for (i, path) in paths.enumerated() {
                let rank = String(repeating: "0", count: max(0, width - String(i + 1).count)) + String(i + 1)
                try FileCopy.copy(path, to: "\(folder)/\(rank)-\(Self.name(path))", inputs: inputs)
            }
        }
    }
}
