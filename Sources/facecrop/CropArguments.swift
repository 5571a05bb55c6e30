import ArgumentParser
import FaceCrop

/// Crop options shared by `crop` and `batch`, with the parsing of sizes and aspects both use.
struct CropArguments: ParsableArguments {
    @Option(help: "Space around the faces: pixels of the original image (200) or a percentage of the mean face height (40%).")
    var margin = "200"

    @Option(help: "Faces to frame: all (every face), average (Ancestry's FaceCrop reference) or largest.")
    var strategy: CropStrategy = .all

    @Option(help: "Without a face: attention (libvips' smartcrop), center, or fail (exit status 2; in a batch, the input fails).")
    var noFace: NoFacePolicy = .attention

    @Option(help: "JPEG/WebP/HEIF quality, 1...100 (default 80).")
    var quality: Int?

    @Flag(help: "Drop metadata (EXIF, XMP, ICC profile) from the output.")
    var strip = false

    @Option(help: "Treat faces whose capture quality (0...1, see 'detect --quality') is below this as absent.")
    var minQuality: Double?

    func validate() throws { _ = try options() }

    /// The shared part of the library's options; aspect and size are the caller's.
    func options() throws -> CropOptions {
        var options = CropOptions()
        options.strategy = strategy
        options.noFace = noFace
        options.strip = strip
        if let minQuality {
            guard (0...1).contains(minQuality) else {
                throw ValidationError("Expected a number between 0 and 1 for --min-quality but received '\(minQuality)'.")
            }
            options.minQuality = minQuality
        }
        guard let margin = Margin(self.margin) else {
            throw ValidationError("Expected a number of pixels (200) or a percentage (40%) for --margin but received '\(self.margin)'.")
        }
        options.margin = margin
        if let quality {
            guard (1...100).contains(quality) else { throw ValidationError("Expected an integer from 1 to 100 for --quality but received '\(quality)'.") }
            options.quality = quality
        }
        return options
    }

    /// "1920x1080" → an exact output size and its aspect, reduced (16:9).
    static func size(_ text: String) throws -> (size: OutputSize, aspect: Aspect) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw ValidationError("Expected WIDTHxHEIGHT with positive integers for --size but received '\(text)'.")
        }
        var (a, b) = (w, h)
        while b != 0 { (a, b) = (b, a % b) }
        return (.exact(width: w, height: h), .ratio(width: Double(w / a), height: Double(h / a)))
    }

    static func aspect(_ text: String) throws -> Aspect {
        guard let aspect = Aspect(text) else {
            throw ValidationError("Expected a ratio like 16:9, 1.91:1 or 'original' for --aspect but received '\(text)'.")
        }
        return aspect
    }
}
