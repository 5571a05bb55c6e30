// One output's pixels: its size, the checks made before any pixel is read, and the crop cut from the
// full-resolution image, resized and upright.
import FaceCropCore

extension FaceCropper {
    /// The output size for a crop: exact, from a width, or the crop's own.
    public static func outputSize(for crop: PixelRect, _ options: CropOptions) -> ImageSize {
        OutputSize.resolve(options.size, crop: crop.size, withoutEnlargement: options.withoutEnlargement)
    }

    /// `OutputInfo.notEnlarged` for an output of `size`: nil unless enlargement was avoided.
    static func notEnlarged(_ size: ImageSize, crop: PixelRect, _ options: CropOptions) -> Bool? {
        options.withoutEnlargement && size != OutputSize.resolve(options.size, crop: crop.size, withoutEnlargement: false) ? true : nil
    }

    /// Before any pixel is read: the output's size within the format's, `--max-output-pixels`' and
    /// `maxEncodeMemory`'s limits, and the crop inside the image.
    func checkOutput(
        _ analysis: Analysis, crop: PixelRect, size outSize: ImageSize, format: ImageFormat, path: String, options: CropOptions
    ) throws(FaceCropError) {
        try options.check()
        try OutputLimits.check(
            outSize, format: format, path: path, maxPixels: options.maxOutputPixels, maxEncodeMemory: maxEncodeMemory,
            highDepth: analysis.highDepth)
        guard crop.width > 0, crop.height > 0, crop.x >= 0, crop.y >= 0, crop.x <= analysis.size.width - crop.width,
            crop.y <= analysis.size.height - crop.height
        else {
            throw .imageProcessing(
                "the crop \(crop.width)x\(crop.height)+\(crop.x)+\(crop.y) is not inside the \(analysis.size.width)x\(analysis.size.height) image")
        }
    }

    /// The whole image an output of `outSize` is cut from, and the factor it was shrunk by on load: the decoded
    /// pixels as they are, or a JPEG read again shrunk on load when the output is resized and the crop leaves
    /// libvips' headroom for the final resize (`ShrinkOnLoad`); other inputs are read again whole.
    static func source(_ analysis: Analysis, crop: PixelRect, size outSize: ImageSize, options: CropOptions) throws(VipsError) -> (
        image: VipsImage, shrink: Int
    ) {
        var shrink = 1
        if case .encoded = analysis.pixels, analysis.loader.isJPEG, options.size != nil {
            shrink = ShrinkOnLoad.factor(
                from: ImageSize(width: crop.width, height: crop.height), to: outSize, headroom: ShrinkOnLoad.outputHeadroom)
        }
        return (try analysis.pixels.image(shrink: shrink), shrink)
    }

    /// The crop cut from the full-resolution image, resized to `size`, upright, in sRGB where it must be; alpha
    /// is kept (each format's save flattens it when the format has none).
    static func output(_ analysis: Analysis, crop: PixelRect, size outSize: ImageSize, options: CropOptions) throws(VipsError) -> VipsImage {
        let o = analysis.orientation
        let stored = o.storedRect(forDisplay: crop, storedSize: analysis.storedSize)
        let source = try Self.source(analysis, crop: crop, size: outSize, options: options).image
        let sx = Double(source.width) / Double(analysis.storedSize.width)
        let sy = Double(source.height) / Double(analysis.storedSize.height)
        let x0 = clampedInt(Double(stored.x) * sx, in: 0...max(0, source.width - 1), rounding: .down)
        let y0 = clampedInt(Double(stored.y) * sy, in: 0...max(0, source.height - 1), rounding: .down)
        let x1 = clampedInt(Double(stored.x + stored.width) * sx, in: 0...source.width, rounding: .up)
        let y1 = clampedInt(Double(stored.y + stored.height) * sy, in: 0...source.height, rounding: .up)
        var image = try source.extract(PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0)))
        let storedOut = o.swapsAxes ? ImageSize(width: outSize.height, height: outSize.width) : outSize
        image = try image.resized(width: storedOut.width, height: storedOut.height)
        // autorot needs random access for quarter turns: rotate the (small) crop in memory.
        if o != .up { image = try image.inMemory().upright() }
        // CMYK, scRGB and the like always; with --strip, pixels described by a profile (Display P3, Adobe RGB)
        // too, or they would be read as sRGB once the profile is gone.
        if analysis.needsSRGB {
            image = try image.sRGB()
        } else if options.strip {
            image = try image.profileToSRGB()
        }
        return image
    }
}
