// Writing crops to files: one or several formats from one cut and resize, smaller sizes from larger ones
// (RenderedCrops), each written atomically.
import FaceCropCore

extension FaceCropper {
    /// Cuts `crop` from the full-resolution image, resizes it and writes it atomically (temp file + rename).
    /// `protecting`: more files the output must not be (a batch's every input), besides the analysed one.
    public func write(
        _ analysis: Analysis, crop: PixelRect, to output: String, options: CropOptions, protecting inputs: InputSet = InputSet()
    ) throws(FaceCropError) -> OutputInfo {
        try write(analysis, crop: crop, to: [output], options: options, protecting: inputs)[0]
    }

    /// Crops of one input already cut and resized, upright, in memory (alpha kept): a batch makes smaller sizes
    /// of the same crop from them rather than from the full image.
    final class RenderedCrops {
        private var images = [PixelRect: VipsImage]()

        /// The rendering of `crop` when it is at least twice `size` on both sides: resampled again it looks the
        /// same, at a fraction of the cost of the full image.
        func source(for crop: PixelRect, _ size: ImageSize) -> VipsImage? {
            images[crop].flatMap { $0.width >= 2 * size.width && $0.height >= 2 * size.height ? $0 : nil }
        }

        /// Keeps the largest rendering of each crop.
        func keep(_ image: VipsImage, for crop: PixelRect) {
            if image.width > images[crop]?.width ?? 0 { images[crop] = image }
        }
    }

    /// What `write` would write to `outputs`, each checked as it checks them before any pixel is read: writable,
    /// none of `inputs` (nor the analysed image or the model), within the limits (`checkOutput`).
    func checkedOutputs(
        _ analysis: Analysis, crop: PixelRect, to outputs: [String], options: CropOptions, protecting inputs: InputSet = InputSet()
    ) throws(FaceCropError) -> [OutputInfo] {
        var inputs = inputs
        inputs.insert(analysis.path)
        if let model = detector.modelPath { inputs.insert(model) }
        let outSize = Self.outputSize(for: crop, options)
        return try outputs.map { (output) throws(FaceCropError) in
            let format = try OutputCheck.writable(output, inputs: inputs)
            try checkOutput(analysis, crop: crop, size: outSize, format: format, path: output, options: options)
            return OutputInfo(
                path: output, width: outSize.width, height: outSize.height, format: format, notEnlarged: Self.notEnlarged(outSize, crop: crop, options))
        }
    }

    /// `write` to several paths, each in the format of its extension, from one cut and resize: the resized crop
    /// is kept in memory and encoded once per output (a batch's formats of one size). Every path is checked
    /// before any pixel is read; `written` hears of each output as it lands. `rendered`: earlier renderings of
    /// this input's crops to resize from (and keep this one in).
    func write(
        _ analysis: Analysis, crop: PixelRect, to outputs: [String], options: CropOptions, protecting inputs: InputSet = InputSet(),
        rendered: RenderedCrops? = nil, written: (String) -> Void = { _ in }
    ) throws(FaceCropError) -> [OutputInfo] {
        let infos = try checkedOutputs(analysis, crop: crop, to: outputs, options: options, protecting: inputs)
        let outSize = Self.outputSize(for: crop, options)
        var current = outputs.first ?? ""
        try withVipsErrors(
            {
                var image: VipsImage
                if let larger = rendered?.source(for: crop, outSize) {
                    image = try larger.resized(width: outSize.width, height: outSize.height).inMemory()
                } else {
                    image = try Self.output(analysis, crop: crop, size: outSize, options: options)
                    if infos.count > 1 || rendered != nil { image = try image.inMemory() }
                }
                rendered?.keep(image, for: crop)
                for info in infos {
                    current = info.path
                    let encoded = info.format.supportsAlpha ? image : try image.flattenedOnWhite()
                    try AtomicFile.write(to: info.path) { tmp throws(VipsError) in
                        try encoded.save(to: tmp, format: info.format, quality: options.quality(for: info.format), strip: options.strip)
                    }
                    written(info.path)
                }
            },
            vips: { error in
                // Saving evaluates the whole pipeline: with the pixels already in memory only the write can fail;
                // otherwise the second read of the file may be what failed, which a read of it alone tells. An
                // input that reads well is never blamed for a failed write.
                if case .encoded(let input) = analysis.pixels, let reread = Self.rereadFailure(input) { return Self.readError(input, reread) }
                return .writeFailed(current, detail: error.message)
            })
        return infos
    }
}
