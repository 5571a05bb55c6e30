/// The size asked of an output: exact, a width (the height follows the crop), or nil for the crop's own.
public enum OutputSize: Hashable, Sendable {
    /// Exactly width x height.
    case exact(width: Int, height: Int)
    /// This width; the height follows the crop's aspect.
    case width(Int)

    /// The output's size for a crop of `crop` pixels. `withoutEnlargement`: a size larger than the crop on
    /// either side shrinks, at its own aspect, until it fits the crop (never below 1 pixel).
    public static func resolve(_ size: OutputSize?, crop: ImageSize, withoutEnlargement: Bool) -> ImageSize {
        let asked: ImageSize =
            switch size {
            case .exact(let w, let h): ImageSize(width: w, height: h)
            case .width(let w): ImageSize(width: w, height: clampedInt(Double(w) * Double(crop.height) / Double(max(1, crop.width)), in: 1...Int.max))
            case nil: crop
            }
        guard withoutEnlargement, asked.width > crop.width || asked.height > crop.height else { return asked }
        let scale = min(Double(crop.width) / Double(asked.width), Double(crop.height) / Double(asked.height))
        return ImageSize(
            width: clampedInt(Double(asked.width) * scale, in: 1...max(1, crop.width)),
            height: clampedInt(Double(asked.height) * scale, in: 1...max(1, crop.height)))
    }
}
