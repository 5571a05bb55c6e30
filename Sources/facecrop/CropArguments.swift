import ArgumentParser
import FaceCrop

/// Crop options shared by `crop` and `batch`, with the parsing of sizes and aspects both use.
struct CropArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: "Space around the faces: pixels of the original image (200) or a percentage of the mean face height (40%).")
    var margin = "200"

    @Option(help: "Faces to frame: all (every face), average (Ancestry's FaceCrop reference) or largest.")
    var strategy: CropStrategy = .all

    @Option(help: "Without a face: attention (libvips' smartcrop), center, or fail (exit status 2; in a batch, the input fails).")
    var noFace: NoFacePolicy = .attention

    @Option(
        name: .customLong("quality"), parsing: .unconditionalSingleValue,
        help: "Encoder quality, 1...100: N for every format or FORMAT=N for one, e.g. avif=45 (repeatable). Default: jpg 80, webp 80, heic 50, avif 50.")
    var qualityTexts: [String] = []

    @Flag(help: "Drop metadata (EXIF, XMP, ICC profile) from the output, converting the pixels to sRGB first.")
    var strip = false

    @Flag(name: .customLong("no-enlarge"), help: "Never enlarge: an output asked larger than the crop keeps the crop's size, at the asked aspect.")
    var noEnlarge = false

    @Option(
        name: .customLong("min-quality"), parsing: .unconditional,
        help: "Treat faces whose capture quality (0...1, see 'detect --quality') is below this as absent.")
    var minQualityText: NumberText<Double>?

    @Option(
        name: .customLong("max-output-pixels"), parsing: .unconditional, help: "Refuse outputs with more pixels than this (width x height), before any work.")
    var maxOutputPixelsText = NumberText(FaceCropper.defaultMaxPixels)

    @OptionGroup var encode: EncodeOptions

    /// --quality N (every format) and FORMAT=N (one format), each at most once.
    var qualities: (all: Int?, byFormat: [ImageFormat: Int]) {
        get throws {
            var result: (all: Int?, byFormat: [ImageFormat: Int]) = (nil, [:])
            for text in qualityTexts {
                let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = try NumberText<Int>(argument: String(parts.last!)).value("--quality", Limits.quality.range, expected: Limits.quality.expected)
                if parts.count == 1 {
                    guard result.all == nil else { throw ValidationError("--quality N is given twice; use FORMAT=N for one format.") }
                    result.all = value
                    continue
                }
                guard let format = ImageFormat(pathExtension: String(parts[0])), format.defaultQuality != nil else {
                    throw ValidationError("Expected jpg, webp, heic or avif before '=' in --quality but received '\(text)'.")
                }
                guard result.byFormat.updateValue(value, forKey: format) == nil else { throw ValidationError("--quality gives \(parts[0]) twice.") }
            }
            return result
        }
    }
    var minQuality: Double? { get throws { try minQualityText?.value("--min-quality", Limits.unit.range, expected: Limits.unit.expected) } }
    var maxOutputPixels: Int { get throws { try maxOutputPixelsText.value("--max-output-pixels", Limits.pixels.range, expected: Limits.pixels.expected) } }

    func validate() throws { _ = try options() }

    /// The shared part of the library's options; aspect and size are the caller's.
    func options() throws -> CropOptions {
        var options = CropOptions()
        options.strategy = strategy
        options.noFace = noFace
        options.strip = strip
        options.minQuality = try minQuality
        (options.quality, options.formatQuality) = try qualities
        options.withoutEnlargement = noEnlarge
        options.maxOutputPixels = try maxOutputPixels
        guard let margin = Margin(self.margin) else {
            throw ValidationError("Expected a number of pixels (200) or a percentage (40%) for --margin but received '\(self.margin)'.")
        }
        switch margin {
        case .pixels(let v) where v > Limits.maxMarginPixels, .percentOfFaceHeight(let v) where v > Limits.maxMarginPercent:
            throw ValidationError("Expected at most 1000000 pixels or 10000% for --margin but received '\(self.margin)'.")
        default: break
        }
        options.margin = margin
        return options
    }

    /// "1920x1080" → an exact output size and its aspect, reduced (16:9).
    static func size(_ text: String, option: String = "--size") throws -> (size: OutputSize, aspect: Aspect) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw ValidationError("Expected WIDTHxHEIGHT with positive integers for \(option) but received '\(text)'.")
        }
        guard w <= Limits.maxSide, h <= Limits.maxSide else {
            throw ValidationError("Expected WIDTHxHEIGHT with sides of at most \(Limits.maxSide) pixels for \(option) but received '\(text)'.")
        }
        guard Double(w) / Double(h) >= 1 / Limits.maxAspect, Double(w) / Double(h) <= Limits.maxAspect else {
            throw ValidationError("Expected WIDTHxHEIGHT from 1:10000 to 10000:1 in shape for \(option) but received '\(text)'.")
        }
        var (a, b) = (w, h)
        while b != 0 { (a, b) = (b, a % b) }
        return (.exact(width: w, height: h), .ratio(width: Double(w / a), height: Double(h / a)))
    }

    static func aspect(_ text: String, option: String = "--aspect") throws -> Aspect {
        guard let aspect = Aspect(text) else {
            throw ValidationError("Expected a ratio like 16:9, 1.91:1 or 'original' for \(option) but received '\(text)'.")
        }
        let ratio = aspect.value(for: ImageSize(width: 1, height: 1))
        guard aspect == .original || (ratio.isFinite && ratio >= 1 / Limits.maxAspect && ratio <= Limits.maxAspect) else {
            throw ValidationError("Expected a ratio from 1:10000 to 10000:1 for \(option) but received '\(text)'.")
        }
        return aspect
    }

    /// Refuses, before any work, an output size the format cannot hold, over --max-output-pixels or over
    /// --max-encode-memory: an exact size, or a width whose height follows from a fixed aspect.
    func checkOutput(_ options: CropOptions, format: ImageFormat?, path: String) throws {
        let side = format?.maxDimension ?? Limits.maxSide
        var size: ImageSize?
        switch options.size {
        case .exact(let w, let h): size = ImageSize(width: w, height: h)
        case .width(let w):
            guard w <= side else {
                throw ValidationError("Expected at most \(side) for --width (the largest \(format?.displayName ?? "image") side) but received '\(w)'.")
            }
            if case .ratio = options.aspect {
                let ratio = options.aspect.value(for: ImageSize(width: 1, height: 1))
                size = ImageSize(width: w, height: max(1, Int((Double(w) / ratio).rounded())))
            }
        case nil: break
        }
        guard let size else { return }
        guard let format else {  // a dry run without -o: no format's limits, the pixel limit still
            guard let pixels = checkedProduct(size.width, size.height), pixels <= options.maxOutputPixels else {
                throw ValidationError(
                    "The output would be \(size.width)x\(size.height) pixels, over the limit of \(options.maxOutputPixels) output pixels; raise it with --max-output-pixels."
                )
            }
            return
        }
        let maxEncodeMemory = try encode.maxEncodeMemory
        do {
            try OutputLimits.check(size, format: format, path: path, maxPixels: options.maxOutputPixels, maxEncodeMemory: maxEncodeMemory)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// The bound on encoders that hold the whole picture, for every command that writes images.
struct EncodeOptions: ParsableArguments {
    @Option(
        name: .customLong("max-encode-memory"), parsing: .unconditional,
        help: "Refuse outputs whose encoder holds the whole picture in memory (WebP, HEIC, AVIF) when that would take more bytes than this (default: 2 GiB).")
    var maxEncodeMemoryText = NumberText(FaceCropper.defaultMaxEncodeMemory)
    var maxEncodeMemory: Int { get throws { try maxEncodeMemoryText.value("--max-encode-memory", Limits.bytes.range, expected: Limits.bytes.expected) } }

    func validate() throws { _ = try maxEncodeMemory }
}
