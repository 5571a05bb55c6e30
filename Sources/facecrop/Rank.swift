import ArgumentParser
import FaceCrop
import FoundationEssentials
import Glibc

struct Rank: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rank images by the capture quality of their faces, best first.",
        discussion: """
            The score of an image is the mean capture quality over its faces. Images without a face are listed \
            apart. Exit status: 0, 3 when some images could not be read, 64 bad arguments.
            """
    )

    @OptionGroup var inputs: InputArguments

    @Option(help: "With --copy-to: how many of the best images to copy.")
    var top: Int?

    @Option(help: "Copy the best images here, named by rank (01-name.jpg, 02-...).")
    var copyTo: String?

    @Option(help: "Also write a contact sheet: every image's thumbnail with its faces, rank and score, best first.")
    var sheet: String?

    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        if let top, top < 1 { throw ValidationError("Expected a positive integer for --top but received '\(top)'.") }
        if top != nil && copyTo == nil { throw ValidationError("--top needs --copy-to.") }
        if let sheet, ImageFormat(path: sheet) == nil {
            throw ValidationError("Unsupported extension in --sheet '\(sheet)'; use .jpg, .png, .webp, .tif, .heic or .avif.")
        }
    }

    func run() throws {
        Interruption.install()
        let cropper = try detection.makeCropper(quality: true)
        let paths = try inputs.collect().map(\.path)
        let (result, thumbnails) = cropper.rank(paths, jobs: inputs.jobs, thumbnails: sheet != nil ? ContactSheet.defaultTileSize : nil)
        for failure in result.failed { printError("Error: \(failure.error)") }
        if detection.json {
            try printJSON(result)
        } else {
            for (i, r) in result.ranked.enumerated() {
                print("\(i + 1). \(threeDecimals(r.score))  (\(r.faces) face\(r.faces == 1 ? "" : "s"))  \(r.path)")
            }
            if !result.noFace.isEmpty {
                print("No face:")
                for path in result.noFace { print("   \(path)") }
            }
        }
        if let sheet {
            try reportingErrors { () throws(FaceCropError) in try ContactSheet.write(result.sheetTiles(thumbnails), to: sheet) }
        }
        if let copyTo {
            try copyBest(result.ranked.prefix(top ?? result.ranked.count).map(\.path), to: copyTo)
        }
        if !result.failed.isEmpty { throw ExitCode(3) }
    }

    static func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    func copyBest(_ paths: [String], to folder: String) throws {
        let width = String(paths.count).count < 2 ? 2 : String(paths.count).count
        for (i, path) in paths.enumerated() {
            let name = Self.name(path)
            let rank = String(repeating: "0", count: max(0, width - String(i + 1).count)) + String(i + 1)
            let target = "\(folder)/\(rank)-\(name)"
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(contentsOf: URL(fileURLWithPath: path)).write(to: URL(fileURLWithPath: target), options: .atomic)
            } catch {
                printError("Error: Cannot copy '\(path)' to '\(target)': \(error).")
                throw ExitCode(73)
            }
        }
    }
}
