// How a crop is made: the options shared by crop, batch, best-frame and the library.
import FaceCropCore
import Glibc

/// What to do when no face is found.
public enum NoFacePolicy: String, Sendable, Codable, CaseIterable {
    /// The largest crop of the aspect, centred.
    case center
    /// The largest crop of the aspect, centred on libvips' attention point (its smartcrop).
    case attention
    /// Fail with exit status 2.
    case fail
}

/// How a crop is planned and written: which faces it keeps and with how much room, its aspect, its output
/// size and encoding. The defaults are the `facecrop` command's.
public struct CropOptions: Sendable {
    /// Which faces the crop is planned around (default: every face).
    public var strategy: CropStrategy = .all
    /// Room kept around the faces: pixels of the original, or a percentage of the mean face height.
    public var margin: Margin = .pixels(200)
    /// The crop's aspect (`.original` keeps the image's).
    public var aspect: Aspect = .ratio(width: 1, height: 1)
    /// What an image without a face gets.
    public var noFace: NoFacePolicy = .attention
    /// The written image's size; nil: the crop's own pixels.
    public var size: OutputSize?
    /// Encoder quality, 1...100, for every format; `formatQuality` overrides it per format. Default: the
    /// format's own (`ImageFormat.defaultQuality`).
    public var quality: Int?
    /// Encoder quality per format, 1...100, over `quality`.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// Drop metadata (EXIF, XMP, ICC profile); pixels with a profile are converted to sRGB first.
    public var strip = false
    /// An output asked larger than the crop keeps the crop's size, at the asked aspect (sharp's
    /// `withoutEnlargement`, vipsthumbnail's `>`); the default enlarges.
    public var withoutEnlargement = false
    /// Faces whose capture quality is below this are treated as absent (needs `FaceCropper.qualityAnalyzer`).
    public var minQuality: Double?
    /// Larger outputs (width x height) are refused before anything is decoded or written.
    public var maxOutputPixels = FaceCropper.defaultMaxPixels

    /// The defaults: every face, a 200-pixel margin, 1:1, libvips' attention point without a face.
    public init() {}

    /// The quality `format` is encoded with: its own setting, the common one, or the format's default.
    public func quality(for format: ImageFormat) -> Int? { formatQuality[format] ?? quality ?? format.defaultQuality }
}
