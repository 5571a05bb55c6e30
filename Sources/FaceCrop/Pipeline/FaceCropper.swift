// The face-aware crop pipeline: load, detect, plan, cut the full-resolution image, write.
import FaceCropCore
import Glibc

/// The face-aware crop pipeline: load → detect → plan → crop the full-resolution image → write.
public struct FaceCropper: Sendable {
    /// sharp's default input limit (0x3FFF × 0x3FFF).
    public static let defaultMaxPixels = 268_402_689
    /// 512 MiB: over 4 times the largest camera files (a 100 MP 16-bit TIFF is 600 MB uncompressed, but
    /// photos are compressed), small enough that a stray disk image or video is refused before it is read.
    public static let defaultMaxFileSize = 512 << 20

    public let detector: FaceDetector
    /// Detector score threshold, 0...1.
    public var threshold: Double
    /// Long side of the image the detector sees.
    public var analysisSize: Int
    public var maxPixels: Int
    /// Larger input files are refused before they are read.
    public var maxFileSize = FaceCropper.defaultMaxFileSize
    /// Inputs whose decoder holds the whole frame in memory (progressive JPEG, interlaced PNG, GIF, WebP, HEIF)
    /// are refused when that takes more bytes than this: the streaming budget cannot bound them.
    public var maxDecodeMemory = FaceCropper.defaultMaxDecodeMemory
    /// 256 MiB: a 44-megapixel progressive JPEG, a 67-megapixel WebP, a 33-megapixel GIF; with the rest of the
    /// process, a peak under 500 MB.
    public static let defaultMaxDecodeMemory = 256 << 20
    /// Images whose decoded pixels take at most this many bytes are decoded once, into memory (64 MiB: a
    /// 22-megapixel RGB photo); larger ones are read twice, sequentially, to bound memory.
    public var singlePassBytes = FaceCropper.defaultSinglePassBytes
    public static let defaultSinglePassBytes = 64 << 20
    /// Scores faces for `CropOptions.minQuality`, `detect --quality`, `rank` and `annotate`.
    public var qualityAnalyzer: QualityAnalyzer?

    /// - Parameters:
    ///   - threshold: the detector's score threshold (default: the detector's own, `DetectorProfile.threshold`).
    ///   - analysisSize: long side of the image the detector sees (default: `DetectorProfile.analysisSize`).
    public init(detector: FaceDetector, threshold: Double? = nil, analysisSize: Int? = nil, maxPixels: Int = FaceCropper.defaultMaxPixels) {
        self.detector = detector
        self.threshold = threshold ?? detector.kind.profile.threshold
        self.analysisSize = analysisSize ?? detector.kind.profile.analysisSize
        self.maxPixels = maxPixels
    }

    /// Starts libvips on another thread (it loads its plugin modules: tens of milliseconds); wait() on the
    /// result's value() before the first image call. Optional: libvips otherwise starts on first use.
    public static func startImageLibrary() -> BackgroundTask<Void> {
        BackgroundTask { VipsImage.start() }
    }

    /// libvips' untrusted loaders (ImageMagick and other formats not fuzzed for hostile input) are blocked
    /// unless allowed here. Process-wide.
    public static func allowUntrustedLoaders(_ allow: Bool) {
        VipsImage.setBlockUntrusted(!allow)
    }

    /// Reads the image and finds its faces: the header, a copy at the analysis size for the detector, and
    /// (within `singlePassBytes`) the decoded pixels the crop will be cut from.
    public func analyze(_ path: String) throws(FaceCropError) -> Analysis {
        let start = ContinuousClock.now
        try InputCheck.readableFile(path, maxBytes: maxFileSize)
        return try analyze(.file(path), since: start)
    }

    /// `analyze` on an encoded image (JPEG, PNG, WebP, TIFF, GIF, HEIC/AVIF, ...) held in memory: the same result
    /// as from a file holding these bytes, without writing anything to disk. The bytes are copied once; `name`
    /// stands for the path in messages and reports.
    public func analyze(bytes: [UInt8], name: String = FaceCropper.memoryName) throws(FaceCropError) -> Analysis {
        let start = ContinuousClock.now
        if bytes.isEmpty { throw .inputEmpty(name) }
        if bytes.count > maxFileSize { throw .fileTooLarge(name, bytes: bytes.count, limit: maxFileSize) }
        let blob: VipsBlob
        do { blob = try VipsBlob(bytes) } catch { throw .imageProcessing(error.message) }
        var analysis = try analyze(.memory(blob, name: name), since: start)
        analysis.memory = blob
        return analysis
    }

    /// What stands for the path of an image given as bytes, unless the caller names it.
    public static let memoryName = "(memory)"

    private func analyze(_ input: ImageInput, since start: ContinuousClock.Instant) throws(FaceCropError) -> Analysis {
        try checkSettings()
        let path = input.name
        let header: VipsImage
        do { header = try input.open(sequential: true) } catch { throw Self.readError(input, error) }
        let stored = header.size
        guard stored.width > 0, stored.height > 0 else { throw .notAnImage(path) }
        if stored.width * stored.height > maxPixels {
            throw .tooManyPixels(path, width: stored.width, height: stored.height, limit: maxPixels)
        }
        if let whole = header.wholeFrameDecode, whole.bytes > maxDecodeMemory {
            throw .wholeFrameTooLarge(path, kind: whole.kind, width: stored.width, height: stored.height, bytes: whole.bytes, limit: maxDecodeMemory)
        }
        // Decode once when the image fits the budget and cut the crop from those pixels later. For a JPEG the
        // full decode runs on a second core while a shrink-on-load decode feeds the detector (cheaper than
        // shrinking the full image), so decoding and detection overlap; other formats take the preview from
        // the decoded pixels. Larger images are read twice, sequentially (shrunk now, cropped later), so
        // memory stays bounded.
        var full: BackgroundTask<VipsImage>?
        var decoded: VipsImage?
        let preview: VipsImage
        do {
            if header.decodedBytes > singlePassBytes {
                preview = try input.thumbnail(box: self.analysisSize).inMemory()
            } else if VipsImage.isJPEG(loader: header.loader) {
                full = BackgroundTask { try header.inMemory() }
                let shrink = ShrinkOnLoad.factor(from: stored, box: analysisSize, headroom: ShrinkOnLoad.detectionHeadroom)
                preview = try input.open(sequential: true, shrink: shrink).preview(box: analysisSize)
            } else {
                let pixels = try header.inMemory()
                decoded = pixels
                preview = try pixels.preview(box: self.analysisSize)
            }
        } catch {
            // The full decode is joined before anything is thrown, and its error, when it has one, is the one
            // reported (it read the whole file).
            var error: any Error = error
            if let full, case .failure(let fullError) = Result(catching: { try full.value() }) { error = fullError }
            if let error = error as? VipsError { throw Self.readError(input, error) }
            throw .imageProcessing("\(error)")
        }
        let loaded = ContinuousClock.now

        let orientation = header.orientation
        let analysisSize = preview.size
        let detected: Result<[DetectedFace], FaceCropError>
        do {
            detected = .success(try preview.withRGB8 { rgb, w, h in try detector.detect(rgb: rgb, width: w, height: h, threshold: threshold) })
        } catch let error as FaceCropError {
            detected = .failure(error)
        } catch {
            detected = .failure(.imageProcessing("\(error)"))
        }
        let detectedAt = ContinuousClock.now
        if let full {
            do { decoded = try full.value() } catch let error as VipsError { throw Self.readError(input, error) } catch {
                throw .imageProcessing("\(error)")
            }
        }
        let faces = Self.observations(Self.dropWeak(Self.plausible(try detected.get(), in: analysisSize), kind: detector.kind), analysisSize: analysisSize)
        var analysis = Analysis(
            path: path, storedSize: stored, orientation: orientation, loader: header.loader, detector: detector.kind, faces: faces,
            analysisSize: analysisSize, preview: preview, decoded: decoded, interpretation: header.interpretation)
        analysis.timings.load = Self.ms(start, loaded) + Self.ms(detectedAt, .now)
        analysis.timings.detect = Self.ms(loaded, detectedAt)
        return analysis
    }

    /// `--min-quality`: faces scoring below `minimum` move to `ignoredFaces`, as if they had not been found.
    /// Without a minimum (or without faces) the analysis is returned as it is.
    public func screen(_ analysis: Analysis, minimum: Double?) throws(FaceCropError) -> Analysis {
        guard let minimum, !analysis.faces.isEmpty else { return analysis }
        var measured = analysis
        try measureQuality(&measured)
        var screened = measured
        screened.faces = []
        screened.quality = []
        for (face, quality) in zip(measured.faces, measured.quality ?? []) {
            if quality.score >= minimum {
                screened.faces.append(face)
                screened.quality?.append(quality)
            } else {
                screened.ignoredFaces.append((face, quality))
            }
        }
        return screened
    }

    /// Measures the capture quality of every face into `analysis.quality` (once), timed in `timings.quality`.
    public func measureQuality(_ analysis: inout Analysis) throws(FaceCropError) {
        guard analysis.quality == nil else { return }
        guard let analyzer = qualityAnalyzer else {
            throw .invalidSetting("Capture quality (CropOptions.minQuality, measureQuality) needs FaceCropper.qualityAnalyzer to be set.")
        }
        let start = ContinuousClock.now
        analysis.quality = try analyzer.assess(analysis)
        analysis.timings.quality = Self.ms(start, .now)
    }

    /// Drops what cannot be a face: non-finite numbers, empty boxes, boxes outside the image. (YuNet on a
    /// 640x1 image reports a "face" 10^28 pixels high.)
    static func plausible(_ faces: [DetectedFace], in size: ImageSize) -> [DetectedFace] {
        faces.filter { f in
            let numbers = [f.box.x, f.box.y, f.box.width, f.box.height, f.score] + (f.landmarks ?? []).flatMap { [$0.x, $0.y] }
            return numbers.allSatisfy(\.isFinite) && f.box.width > 0 && f.box.height > 0 && f.box.intersection(size.bounds).area > 0
        }
    }

    /// Haar reports weak duplicates and textures as faces; one far below the best blew crops up to the
    /// whole image. Keep faces scoring at least 80 % of the best one. YuNet's scores need no such help.
    static func dropWeak(_ faces: [DetectedFace], kind: DetectorKind) -> [DetectedFace] {
        guard kind == .haar, let best = faces.map(\.score).max() else { return faces }
        return faces.filter { $0.score >= 0.8 * best }
    }

    /// Detector pixels (origin top-left of the analysed image) → Vision-style normalized observations.
    static func observations(_ faces: [DetectedFace], analysisSize: ImageSize) -> [FaceObservation] {
        faces.map { f in
            FaceObservation(
                boundingBox: Coordinates.normalizedRect(forPixel: f.box, imageSize: analysisSize),
                confidence: f.score,
                landmarks: f.landmarks.map { points in
                    FaceLandmarks(points.map { Coordinates.normalizedPoint(forPixel: $0, imageSize: analysisSize) })
                })
        }
    }

    /// Plans the crop. Throws `.noFace` only with `NoFacePolicy.fail`.
    public func plan(_ analysis: Analysis, options: CropOptions) throws(FaceCropError) -> CropInfo {
        try options.check()
        let size = analysis.size
        let rects = analysis.faceRects
        let ratio = options.aspect.value(for: size)
        let meanHeight = rects.isEmpty ? 0 : rects.map(\.height).reduce(0, +) / Double(rects.count)
        let margin = options.margin.pixels(meanFaceHeight: meanHeight)
        if let plan = CropPlanner.plan(faces: rects, image: size, strategy: options.strategy, margin: margin, ratio: ratio) {
            return CropInfo(
                strategy: options.strategy, aspect: options.aspect.description, ratio: ratio, marginPixels: margin.rounded(2),
                region: plan.region.rounded(2), rect: plan.rect, cutFaces: plan.cutFaces, regionFits: plan.regionFits, fallback: nil)
        }
        let cropSize = CropPlanner.largestSize(ratio: ratio, in: size)
        var centre = Point(x: Double(size.width) / 2, y: Double(size.height) / 2)
        switch options.noFace {
        case .fail:
            throw .noFace(analysis.path)
        case .center:
            break
        case .attention:
            // libvips' smartcrop on the preview, scaled back to full resolution.
            let sx = Double(analysis.analysisSize.width) / Double(size.width)
            let sy = Double(analysis.analysisSize.height) / Double(size.height)
            let w = clampedInt(Double(cropSize.width) * sx, in: 1...max(1, analysis.analysisSize.width))
            let h = clampedInt(Double(cropSize.height) * sy, in: 1...max(1, analysis.analysisSize.height))
            // Where libvips finds no attention point (a float image of NaN pixels: "max: parameter out not
            // set"), the crop stays centred: the fallback is a heuristic, never a reason to fail.
            if let p = try? analysis.preview.attentionCentre(width: w, height: h), p.x.isFinite, p.y.isFinite {
                centre = Point(x: p.x / sx, y: p.y / sy)
            }
        }
        let rect = CropPlanner.centred(size: cropSize, on: centre, in: size)
        return CropInfo(
            strategy: options.strategy, aspect: options.aspect.description, ratio: ratio, marginPixels: margin.rounded(2),
            region: nil, rect: rect, cutFaces: [], regionFits: true, fallback: options.noFace)
    }

    /// The output size for a crop: exact, from a width, or the crop's own.
    public static func outputSize(for crop: PixelRect, _ options: CropOptions) -> ImageSize {
        OutputSize.resolve(options.size, crop: crop.size, withoutEnlargement: options.withoutEnlargement)
    }

    /// `OutputInfo.notEnlarged` for an output of `size`: nil unless enlargement was avoided.
    static func notEnlarged(_ size: ImageSize, crop: PixelRect, _ options: CropOptions) -> Bool? {
        options.withoutEnlargement && size != OutputSize.resolve(options.size, crop: crop.size, withoutEnlargement: false) ? true : nil
    }

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

    /// `write` to several paths, each in the format of its extension, from one cut and resize: the resized crop
    /// is kept in memory and encoded once per output (a batch's formats of one size). Every path is checked
    /// before any pixel is read; `written` hears of each output as it lands. `rendered`: earlier renderings of
    /// this input's crops to resize from (and keep this one in).
    func write(
        _ analysis: Analysis, crop: PixelRect, to outputs: [String], options: CropOptions, protecting inputs: InputSet = InputSet(),
        rendered: RenderedCrops? = nil, written: (String) -> Void = { _ in }
    ) throws(FaceCropError) -> [OutputInfo] {
        var inputs = inputs
        inputs.insert(analysis.path)
        let outSize = Self.outputSize(for: crop, options)
        var infos = [OutputInfo]()
        for output in outputs {
            let format = try OutputCheck.writable(output, inputs: inputs)
            try Self.checkOutput(analysis, crop: crop, size: outSize, format: format, path: output, options: options)
            infos.append(
                OutputInfo(
                    path: output, width: outSize.width, height: outSize.height, format: format, notEnlarged: Self.notEnlarged(outSize, crop: crop, options)))
        }
        var current = outputs.first ?? ""
        do {
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
        } catch let error as VipsError {
            // Saving evaluates the whole pipeline: with the pixels already in memory only the write can fail;
            // otherwise the second read of the file may be what failed, which a read of it alone tells. An
            // input that reads well is never blamed for a failed write.
            if analysis.decoded == nil, let reread = Self.rereadFailure(analysis.input) { throw Self.readError(analysis.input, reread) }
            throw .writeFailed(current, detail: error.message)
        } catch let error as FaceCropError {
            throw error
        } catch {
            throw .writeFailed(current, detail: "\(error)")
        }
        return infos
    }

    /// `write` into memory: the bytes it would write to a file of that format, byte for byte; no file is touched.
    /// `OutputInfo.path` is `FaceCropper.memoryName`.
    public func encode(_ analysis: Analysis, crop: PixelRect, as format: ImageFormat, options: CropOptions) throws(FaceCropError) -> (
        bytes: [UInt8], info: OutputInfo
    ) {
        guard VipsImage.canSave(format) else { throw .unsupportedOutputFormat(Self.memoryName + "." + format.rawValue) }
        let outSize = Self.outputSize(for: crop, options)
        try Self.checkOutput(analysis, crop: crop, size: outSize, format: format, path: Self.memoryName, options: options)
        let bytes: [UInt8]
        do throws(VipsError) {
            var image = try Self.output(analysis, crop: crop, size: outSize, options: options)
            if !format.supportsAlpha { image = try image.flattenedOnWhite() }
            bytes = try image.encoded(format: format, quality: options.quality(for: format), strip: options.strip)
        } catch {
            throw analysis.decoded != nil ? .imageProcessing(error.message) : Self.readError(analysis.input, error)
        }
        let info = OutputInfo(
            path: Self.memoryName, width: outSize.width, height: outSize.height, format: format, notEnlarged: Self.notEnlarged(outSize, crop: crop, options))
        return (bytes, info)
    }

    /// Before any pixel is read: the output's size within the format's and `--max-output-pixels`' limits, and the
    /// crop inside the image.
    private static func checkOutput(
        _ analysis: Analysis, crop: PixelRect, size outSize: ImageSize, format: ImageFormat, path: String, options: CropOptions
    ) throws(FaceCropError) {
        try options.check()
        try OutputLimits.check(outSize, format: format, path: path, maxPixels: options.maxOutputPixels)
        guard crop.width > 0, crop.height > 0, crop.x >= 0, crop.y >= 0, crop.x <= analysis.size.width - crop.width,
            crop.y <= analysis.size.height - crop.height
        else {
            throw .imageProcessing(
                "the crop \(crop.width)x\(crop.height)+\(crop.x)+\(crop.y) is not inside the \(analysis.size.width)x\(analysis.size.height) image")
        }
    }

    /// The crop cut from the full-resolution image, resized to `size`, upright, in sRGB where it must be; alpha
    /// is kept (each format's save flattens it when the format has none).
    private static func output(_ analysis: Analysis, crop: PixelRect, size outSize: ImageSize, options: CropOptions) throws(VipsError) -> VipsImage {
        let o = analysis.orientation
        let stored = o.storedRect(forDisplay: crop, storedSize: analysis.storedSize)
        // Read again only when the first pass did not keep the pixels: then with JPEG shrink-on-load when the
        // crop leaves libvips' headroom for the final resize (`ShrinkOnLoad`).
        var shrink = 1
        if analysis.decoded == nil, options.size != nil, analysis.isJPEG {
            shrink = ShrinkOnLoad.factor(
                from: ImageSize(width: crop.width, height: crop.height), to: outSize, headroom: ShrinkOnLoad.outputHeadroom)
        }
        let source = try analysis.reopen(shrink: shrink)
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
        // CMYK always; with --strip, pixels described by a profile (Display P3, Adobe RGB) too, or they would be
        // read as sRGB once the profile is gone.
        if analysis.isCMYK {
            image = try image.sRGB()
        } else if options.strip {
            image = try image.profileToSRGB()
        }
        return image
    }

    /// The whole job for one image. `output` nil plans without writing (dry run).
    public func run(_ input: String, output: String?, options: CropOptions) throws(FaceCropError) -> CropReport {
        let start = ContinuousClock.now
        try options.check()
        if let output {
            let format = try OutputCheck.writable(output, input: input)
            if case .exact(let w, let h) = options.size {
                try OutputLimits.check(ImageSize(width: w, height: h), format: format, path: output, maxPixels: options.maxOutputPixels)
            }
        }
        var analysis = try screen(analyze(input), minimum: options.minQuality)
        let planStart = ContinuousClock.now
        let crop = try plan(analysis, options: options)
        analysis.timings.plan = Self.ms(planStart, .now)
        var out: OutputInfo?
        if let output {
            let writeStart = ContinuousClock.now
            out = try write(analysis, crop: crop.rect, to: output, options: options)
            analysis.timings.write = Self.ms(writeStart, .now)
        }
        analysis.timings.total = Self.ms(start, .now)
        return report(analysis, crop: crop, output: out)
    }

    /// The whole job in memory: an encoded image in, its crop encoded as `format` out, with the report. The
    /// bytes are those `run` would write to a file of that format for the same image, and no file is read or
    /// written. `name` stands for the input's path in messages and the report.
    public func run(bytes: [UInt8], name: String = FaceCropper.memoryName, format: ImageFormat, options: CropOptions) throws(FaceCropError) -> CroppedImage {
        let start = ContinuousClock.now
        try options.check()
        var analysis = try screen(analyze(bytes: bytes, name: name), minimum: options.minQuality)
        let planStart = ContinuousClock.now
        let crop = try plan(analysis, options: options)
        analysis.timings.plan = Self.ms(planStart, .now)
        let writeStart = ContinuousClock.now
        let (output, info) = try encode(analysis, crop: crop.rect, as: format, options: options)
        analysis.timings.write = Self.ms(writeStart, .now)
        analysis.timings.total = Self.ms(start, .now)
        return CroppedImage(bytes: output, report: report(analysis, crop: crop, output: info))
    }

    /// The `--json` report. `landmarks` adds each face's landmark regions (measured with its quality).
    public func report(
        _ analysis: Analysis, crop: CropInfo?, output: OutputInfo?, quality: [CaptureQuality]? = nil, landmarks: Bool = false
    ) -> CropReport {
        let size = analysis.size
        func faceReport(_ f: FaceObservation, _ quality: CaptureQuality?) -> FaceReport {
            FaceReport(
                boundingBox: f.boundingBox.rounded(6), rect: f.boundingBox(in: size).rounded(2), confidence: f.confidence.rounded(4),
                landmarks: f.landmarks.map { FaceLandmarks($0.allPoints.map { $0.rounded(6) }) },
                landmarkPoints: f.landmarks.map { FaceLandmarks($0.points(in: size).map { $0.rounded(2) }) },
                quality: quality, landmarkRegions: landmarks ? quality?.landmarks?.mapped { $0.rounded(6) } : nil)
        }
        let quality = quality ?? analysis.quality
        let faces = analysis.faces.enumerated().map { i, f in faceReport(f, quality?[i]) }
        let ignored = analysis.ignoredFaces.map { faceReport($0.face, $0.quality) }
        var timings = analysis.timings
        for k in [\Timings.load, \.detect, \.quality, \.plan, \.write, \.total] { timings[keyPath: k] = timings[keyPath: k].rounded(2) }
        return CropReport(
            input: InputInfo(path: analysis.path, width: size.width, height: size.height, orientation: analysis.orientation.rawValue, loader: analysis.loader),
            analysis: AnalysisInfo(width: analysis.analysisSize.width, height: analysis.analysisSize.height, detector: detector.kind, threshold: threshold),
            faces: faces, ignoredFaces: ignored.isEmpty ? nil : ignored, crop: crop, output: output, quality: quality.flatMap(ImageQuality.init),
            timings: timings)
    }

    public static func ms(_ a: ContinuousClock.Instant, _ b: ContinuousClock.Instant) -> Double {
        let d = (b - a).components
        return Double(d.seconds) * 1000 + Double(d.attoseconds) / 1e15
    }

    /// Reads `path` once more with libvips to itself (its header, then all its pixels: in memory within the
    /// single-pass budget, else shrunk on load); the error, if that fails.
    static func rereadFailure(_ input: ImageInput) -> VipsError? {
        VipsImage.exclusively { () -> VipsError? in
            _ = VipsError.take()  // messages of calls that overlapped the failure: their threads read again too
            do throws(VipsError) {
                let header = try input.open(sequential: true)
                _ = try header.decodedBytes > defaultSinglePassBytes ? input.thumbnail(box: 640) : header.inMemory()
                return nil
            } catch {
                return error
            }
        }
    }

    /// libvips' reading errors in facecrop's words. A message may belong to another thread's failure
    /// (libvips' error buffer is process-wide), so a failed file is read once more with libvips to itself:
    /// its header, then all its pixels (in memory within the single-pass budget, else shrunk on load).
    static func readError(_ path: String, _ error: VipsError) -> FaceCropError { readError(.file(path), error) }

    static func readError(_ input: ImageInput, _ error: VipsError) -> FaceCropError {
        let path = input.name
        var error = error
        if error.kind == .other, let again = rereadFailure(input) { error = again }
        switch error.kind {
        case .notAnImage:
            guard case .file = input, let format = InputCheck.announcedFormat(path) else { return .notAnImage(path) }
            if format == InputCheck.video { return .inputIsVideo(path) }
            return .corruptImage(path, detail: "it starts like a \(format) file, but its header cannot be read")
        case .blocked: return .blockedLoader(path)
        case .other: break
        }
        let m = error.message
        if m.contains("operation is blocked") { return .blockedLoader(path) }
        if m.contains("not in a known format") || m.contains("is not a known") {
            return .notAnImage(path)
        }
        var detail = m
        if let colon = m.firstIndex(of: ":"), !m[..<colon].contains(" ") { detail = String(m[m.index(after: colon)...]) }
        detail = String(detail.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        while detail.hasSuffix(".") { detail.removeLast() }
        return .corruptImage(path, detail: detail.isEmpty ? m : detail)
    }
}
