import ArgumentParser
import FaceCrop
import FoundationEssentials
import Glibc
import Synchronization

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

    struct Ranked: Codable {
        var path: String
        var score: Double
        var min: Double
        var max: Double
        var faces: Int
    }

    struct Failed: Codable {
        var path: String
        var error: String
        var exitCode: Int32
    }

    struct Result: Codable {
        var ranked: [Ranked] = []
        var noFace: [String] = []
        var failed: [Failed] = []
    }

    func validate() throws {
        if let top, top < 1 { throw ValidationError("Expected a positive integer for --top but received '\(top)'.") }
        if top != nil && copyTo == nil { throw ValidationError("--top needs --copy-to.") }
        if let sheet, ImageFormat(path: sheet) == nil {
            throw ValidationError("Unsupported extension in --sheet '\(sheet)'; use .jpg, .png, .webp, .tif, .heic or .avif.")
        }
    }

    func run() throws {
        Interruption.install()
        let cropper = try detection.makeCropper()
        let analyzer = try reportingErrors { () throws(FaceCropError) in try QualityAnalyzer() }
        let paths = try inputs.collect().map(\.path)
        let outcomes = Mutex([Swift.Result<Assessed, FaceCropError>?](repeating: nil, count: paths.count))
        let wantThumbnails = sheet != nil
        concurrentForEach(paths.count, jobs: inputs.jobs) { i in
            let outcome = Swift.Result { () throws(FaceCropError) -> Assessed in
                let analysis = try cropper.analyze(paths[i])
                let faces = try analyzer.assess(analysis)
                let thumbnail = wantThumbnails ? try Annotator.thumbnail(analysis, quality: faces, box: ContactSheet.defaultTileSize) : nil
                return Assessed(quality: ImageQuality(faces), thumbnail: thumbnail)
            }
            outcomes.withLock { $0[i] = outcome }
            return true
        }
        var result = Result()
        var thumbnails = [String: RGBImage]()
        for (path, outcome) in zip(paths, outcomes.withLock { $0 }) {
            switch outcome {
            case .success(let assessed)?:
                thumbnails[path] = assessed.thumbnail
                if let quality = assessed.quality {
                    result.ranked.append(Ranked(path: path, score: quality.mean, min: quality.min, max: quality.max, faces: quality.faces))
                } else {
                    result.noFace.append(path)
                }
            case .failure(let error)?:
                printError("Error: \(error.description)")
                result.failed.append(Failed(path: path, error: error.description, exitCode: error.exitCode))
            case nil:
                break
            }
        }
        result.ranked.sort { ($0.score, $1.path) > ($1.score, $0.path) }
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
            try writeSheet(result, thumbnails: thumbnails, to: sheet)
        }
        if let copyTo {
            try copyBest(result.ranked.prefix(top ?? result.ranked.count).map(\.path), to: copyTo)
        }
        if !result.failed.isEmpty { throw ExitCode(3) }
    }

    struct Assessed {
        var quality: ImageQuality?
        var thumbnail: RGBImage?
    }

    /// Ranked images first (the best framed), then those without a face.
    func writeSheet(_ result: Result, thumbnails: [String: RGBImage], to path: String) throws {
        var tiles = [ContactSheet.Tile]()
        for (i, r) in result.ranked.enumerated() {
            guard let image = thumbnails[r.path] else { continue }
            let faces = "\(r.faces) face\(r.faces == 1 ? "" : "s")"
            tiles.append(ContactSheet.Tile(image: image, caption: ["\(i + 1). \(threeDecimals(r.score))  \(faces)", r.path], highlighted: i == 0))
        }
        for p in result.noFace {
            guard let image = thumbnails[p] else { continue }
            tiles.append(ContactSheet.Tile(image: image, caption: ["no face", p]))
        }
        try reportingErrors { () throws(FaceCropError) in try ContactSheet.write(tiles, to: path) }
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
