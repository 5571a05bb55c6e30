import FaceCropCore
import Synchronization

/// `facecrop rank`: images ordered by the mean capture quality of their faces, best first; images
/// without a face and unreadable ones listed apart. The `--json` output.
public struct Ranking: Codable, Sendable {
    /// An image with a face, with its score (the mean of its faces') and the range of its faces' scores.
    public struct Ranked: Codable, Sendable, Equatable {
        /// The image's path, as given or found.
        public var path: String
        /// The mean capture quality of its faces, 0...1: what the ranking orders by.
        public var score: Double
        /// The lowest score among its faces.
        public var min: Double
        /// The highest score among its faces.
        public var max: Double
        /// How many faces it has.
        public var faces: Int
    }

    /// An image that could not be ranked, with the error and its exit status.
    public struct Failed: Codable, Sendable, Equatable {
        /// The image's path, as given or found.
        public var path: String
        /// The error message, a full sentence.
        public var error: String
        /// The exit status of that error (`FaceCropError.exitCode`).
        public var exitCode: Int32

        /// The image at `path` failed with `error`.
        public init(path: String, error: FaceCropError) {
            (self.path, self.error, exitCode) = (path, error.description, error.exitCode)
        }
    }

    /// facecrop's version, as in every JSON report.
    public var version = FaceCropper.version
    /// Images with a face, best first (equal scores in path order).
    public var ranked: [Ranked] = []
    /// Images in which no face was found, in input order.
    public var noFace: [String] = []
    /// Images that could not be analysed, in input order.
    public var failed: [Failed] = []

    /// An empty ranking of this version.
    public init() {}

    /// Reads a ranking, also one written before rankings carried a version (its `version` is then "").
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? ""
        ranked = try container.decode([Ranked].self, forKey: .ranked)
        noFace = try container.decode([String].self, forKey: .noFace)
        failed = try container.decode([Failed].self, forKey: .failed)
    }
}

extension FaceCropper {
    /// Ranks `paths`, `jobs` at a time (at most 256; their whole-frame decodes share `maxDecodeMemory`). With
    /// `thumbnails`, also returns each readable image's picture (faces drawn) fitting that many pixels, for a
    /// contact sheet. Needs `qualityAnalyzer`. `progress` is called (serially) as each image is done, with whether
    /// it failed. The detector keeps its nets for two input sizes meanwhile (`FaceDetector.keepsNetsForTwoSizes`),
    /// as a batch does.
    public func rank(
        _ paths: [String], jobs: Int, thumbnails: Int? = nil, progress: (@Sendable (_ failed: Bool) -> Void)? = nil
    ) -> (ranking: Ranking, thumbnails: [String: RGBImage]) {
        detector.keepsNetsForTwoSizes(true)
        defer { detector.keepsNetsForTwoSizes(false) }
        let outcomes = Mutex([Result<(ImageQuality?, RGBImage?), FaceCropError>?](repeating: nil, count: paths.count))
        let cropper = sharingDecodeMemory()
        concurrentForEach(paths.count, jobs: jobs) { i in
            let outcome = Result { () throws(FaceCropError) -> (ImageQuality?, RGBImage?) in
                var analysis = try cropper.analyze(paths[i])
                try cropper.measureQuality(&analysis)
                let faces = analysis.quality ?? []
                let picture = try thumbnails.map { (box) throws(FaceCropError) in try Annotator.thumbnail(analysis, quality: faces, box: box) }
                return (ImageQuality(faces), picture)
            }
            outcomes.withLock {
                $0[i] = outcome
                if case .failure = outcome { progress?(true) } else { progress?(false) }
            }
            return true
        }
        var ranking = Ranking()
        var pictures = [String: RGBImage]()
        for (path, outcome) in zip(paths, outcomes.withLock { $0 }) {
            switch outcome {
            case .success(let (quality, picture))?:
                pictures[path] = picture
                if let q = quality {
                    ranking.ranked.append(.init(path: path, score: q.mean, min: q.min, max: q.max, faces: q.faces))
                } else {
                    ranking.noFace.append(path)
                }
            case .failure(let error)?:
                ranking.failed.append(.init(path: path, error: error))
            case nil:
                break
            }
        }
        ranking.ranked.sort { ($0.score, $1.path) > ($1.score, $0.path) }
        return (ranking, pictures)
    }
}

extension Ranking {
    /// Contact sheet tiles: ranked images first (the best one framed), then those without a face.
    public func sheetTiles(_ pictures: [String: RGBImage]) -> [ContactSheet.Tile] {
        var tiles = [ContactSheet.Tile]()
        for (i, r) in ranked.enumerated() {
            guard let image = pictures[r.path] else { continue }
            let faces = "\(r.faces) face\(r.faces == 1 ? "" : "s")"
            tiles.append(ContactSheet.Tile(image: image, caption: ["\(i + 1). \(threeDecimals(r.score))  \(faces)", r.path], highlighted: i == 0))
        }
        for path in noFace {
            guard let image = pictures[path] else { continue }
            tiles.append(ContactSheet.Tile(image: image, caption: ["no face", path]))
        }
        return tiles
    }
}
