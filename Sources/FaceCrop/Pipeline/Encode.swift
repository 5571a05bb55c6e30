// Crops encoded in memory: the bytes a file of that format would hold.
import FaceCropCore

extension FaceCropper {
    /// `write` into memory: the bytes it would write to a file of that format, byte for byte; no file is touched.
    /// `name` stands for the output in errors and is `OutputInfo.path` ("-" for standard output).
    public func encode(
        _ analysis: Analysis, crop: PixelRect, as format: ImageFormat, options: CropOptions, name: String = FaceCropper.memoryName
    ) throws(FaceCropError) -> (bytes: [UInt8], info: OutputInfo) {
        let outSize = try checkEncoding(analysis, crop: crop, as: format, options: options, name: name)
        let bytes: [UInt8]
        do throws(VipsError) {
            var image = try Self.output(analysis, crop: crop, size: outSize, options: options)
            if !format.supportsAlpha { image = try image.flattenedOnWhite() }
            bytes = try image.encoded(format: format, quality: options.quality(for: format), strip: options.strip)
        } catch {
            switch analysis.pixels {
            case .decoded: throw .imageProcessing(error.message)
            case .encoded(let input): throw Self.readError(input, error)
            }
        }
        let info = OutputInfo(
            path: name, width: outSize.width, height: outSize.height, format: format, notEnlarged: Self.notEnlarged(outSize, crop: crop, options))
        return (bytes, info)
    }

    /// What `encode` checks before any pixel is read: this libvips writes `format`, and the output, whose size it
    /// returns, is within the format's, `options.maxOutputPixels`' and `maxEncodeMemory`'s limits.
    public func checkEncoding(
        _ analysis: Analysis, crop: PixelRect, as format: ImageFormat, options: CropOptions, name: String = FaceCropper.memoryName
    ) throws(FaceCropError) -> ImageSize {
        guard VipsImage.canSave(format) else { throw .unsupportedOutputFormat(name + "." + format.rawValue) }
        let outSize = Self.outputSize(for: crop, options)
        try checkOutput(analysis, crop: crop, size: outSize, format: format, path: name, options: options)
        return outSize
    }
}
