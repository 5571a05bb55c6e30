// The face-aware crop pipeline: the cropper, its settings, and the whole job for one image (run). Its steps are
// extensions in this folder: Analyze (read and detect), Screen (--min-quality), Plan, Output (the cut), Write,
// Encode (in memory), Report, ReadErrors.
import FaceCropCore
import Glibc

/// The face-aware crop pipeline: load → detect → plan → crop the full-resolution image → write.
public struct FaceCropper: Sendable {
    /// sharp's default input limit (0x3FFF × 0x3FFF).
    public static let defaultMaxPixels = 268_402_689
    /// 512 MiB: over 4 times the largest camera files (a 100 MP 16-bit TIFF is 600 MB uncompressed, but
    /// photos are compressed), small enough that a stray disk image or video is refused before it is read.
    public static let defaultMaxFileSize = 512 << 20

    /// Finds the faces; its calls are serialised, so one detector can serve many croppers and threads.
    public let detector: FaceDetector
    /// Detector score threshold, 0...1.
    public var threshold: Double
    /// Long side of the image the detector sees.
    public var analysisSize: Int
    /// Larger images (width x height, from the header) are refused before they are decoded (`--max-pixels`).
    public var maxPixels: Int
    /// Larger input files are refused before they are read.
    public var maxFileSize = FaceCropper.defaultMaxFileSize
    /// Inputs whose decoder holds the whole frame in memory (progressive JPEG, interlaced PNG, GIF, WebP, HEIF)
    /// are refused when that takes more bytes than this: the streaming budget cannot bound them.
    public var maxDecodeMemory = FaceCropper.defaultMaxDecodeMemory
    /// 256 MiB: a 44-megapixel progressive JPEG, a 67-megapixel WebP, a 33-megapixel GIF; with the rest of the
    /// process, a peak under 500 MB.
    public static let defaultMaxDecodeMemory = 256 << 20
    /// Outputs whose encoder holds the whole picture (WebP, HEIC, AVIF: `ImageFormat.encoderMemory`) are refused
    /// when that would take more bytes than this, before the crop is cut: crops, annotated images, contact sheets.
    public var maxEncodeMemory = FaceCropper.defaultMaxEncodeMemory
    /// 2 GiB: an AVIF of 17 megapixels (a 16:9 crop of a 20-megapixel photo), a HEIC of 105, any WebP.
    public static let defaultMaxEncodeMemory = 2 << 30
    /// Images whose decoded pixels take at most this many bytes are decoded once, into memory (64 MiB: a
    /// 22-megapixel RGB photo); larger ones are read twice, sequentially, to bound memory.
    public var singlePassBytes = FaceCropper.defaultSinglePassBytes
    /// 64 MiB: the default `singlePassBytes`.
    public static let defaultSinglePassBytes = 64 << 20
    /// Shared by the threads of a run (`batch`, `rank`; `sharingDecodeMemory`): whole-frame decodes together stay
    /// within it. Set it only where each thread holds one analysis at a time (see `DecodeBudget`).
    package var decodeBudget: DecodeBudget?
    /// Scores faces for `CropOptions.minQuality`, `detect --quality`, `rank` and `annotate`.
    public var qualityAnalyzer: QualityAnalyzer?
    /// Lets go of the detector's working memory (`FaceDetector.releaseWorkingMemory`) as soon as an image's
    /// faces are found, while its full-size decode may still run: a lower peak for a process that analyses one
    /// image. Off by default: a cropper analysing many images would read CenterFace's net again for each.
    public var releasesDetectorMemory = false

    /// - Parameters:
    ///   - detector: finds the faces; one detector can be shared by many croppers and tasks.
    ///   - threshold: the detector's score threshold (default: the detector's own, `DetectorProfile.threshold`).
    ///   - analysisSize: long side of the image the detector sees (default: `DetectorProfile.analysisSize`).
    ///   - maxPixels: larger images (width x height) are refused before they are decoded.
    public init(detector: FaceDetector, threshold: Double? = nil, analysisSize: Int? = nil, maxPixels: Int = FaceCropper.defaultMaxPixels) {
        self.detector = detector
        self.threshold = threshold ?? detector.kind.profile.threshold
        self.analysisSize = analysisSize ?? detector.kind.profile.analysisSize
        self.maxPixels = maxPixels
    }

    /// This cropper for a run of several threads, each holding one analysis at a time: their whole-frame decodes
    /// share `maxDecodeMemory` (a `decodeBudget` of their own unless one is set).
    package func sharingDecodeMemory() -> FaceCropper {
        var shared = self
        if shared.decodeBudget == nil { shared.decodeBudget = DecodeBudget(limit: maxDecodeMemory) }
        return shared
    }

    /// The files a run reads, which no output may be (by identity): `inputs` and the detector's model file.
    public func readFiles(_ inputs: [String]) -> InputSet {
        InputSet(inputs + (detector.modelPath.map { [$0] } ?? []))
    }

    /// Starts libvips on another thread (tens of milliseconds, more when it opens all its modules); wait() on the
    /// result's value() before the first image call. Optional: libvips otherwise starts on first use.
    package static func startImageLibrary() -> BackgroundTask<Void> {
        BackgroundTask { VipsImage.start() }
    }

    /// For a command's `main`, before any other thread starts (it sets `VIPSHOME` to `/dev/null`): libvips then
    /// opens its format modules, from beside the libvips library that runs, when they are needed instead of all
    /// of them at start (about 7 MB and 15 ms a process on Debian). HEIF's and OpenSlide's open with libvips;
    /// ImageMagick's, PDF's and JPEG XL's once untrusted loaders are allowed or a file comes that no other loader
    /// knows.
    package static func openImageModulesOnDemand() { VipsImage.loadModulesOnDemand() }

    /// For a command that analyses one image and exits: every block of 64 KiB or more goes back to the system
    /// when freed, instead of glibc keeping blocks up to tens of megabytes in its heap (a lower peak for the
    /// process, at the same speed: docs/performance.md). Process-wide.
    package static func returnLargeBlocksWhenFreed() { VipsImage.mapLargeBlocks() }

    /// libvips' untrusted loaders (ImageMagick and other formats not fuzzed for hostile input) are blocked
    /// unless allowed here. Process-wide.
    public static func allowUntrustedLoaders(_ allow: Bool) {
        VipsImage.setBlockUntrusted(!allow)
    }

    /// What stands for the path of an image given as bytes, unless the caller names it.
    public static let memoryName = "(memory)"

    /// The whole job for one image. `output` nil plans without writing (dry run).
    public func run(_ input: String, output: String?, options: CropOptions) throws(FaceCropError) -> CropReport {
        let start = ContinuousClock.now
        try options.check()
        if let output {
            let format = try OutputCheck.writable(output, inputs: readFiles([input]))
            if case .exact(let w, let h) = options.size {
                try OutputLimits.check(
                    ImageSize(width: w, height: h), format: format, path: output, maxPixels: options.maxOutputPixels, maxEncodeMemory: maxEncodeMemory)
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

    /// Milliseconds from `a` to `b`, for `Timings`.
    package static func ms(_ a: ContinuousClock.Instant, _ b: ContinuousClock.Instant) -> Double {
        let d = (b - a).components
        return Double(d.seconds) * 1000 + Double(d.attoseconds) / 1e15
    }
}
