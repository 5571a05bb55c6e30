// One image read and searched for faces.
import FaceCropCore
import Glibc

/// One image read and searched for faces: everything planning needs.
public struct Analysis: Sendable {
    public var path: String
    /// Stored size (before EXIF orientation).
    public var storedSize: ImageSize
    public var orientation: Orientation
    /// Upright size.
    public var size: ImageSize { orientation.displaySize(storedSize: storedSize) }
    /// The libvips loader that read the image ("jpegload", "pngload", ...; "video" for a video frame), as the
    /// report names it.
    public let loader: String
    /// The detector that found `faces` (their boxes' shape and scores depend on it).
    public var detector: DetectorKind
    public var faces: [FaceObservation]
    public var analysisSize: ImageSize
    public var timings = Timings()
    /// Capture quality of `faces`, when it was measured (`--min-quality`).
    public var quality: [CaptureQuality]?
    /// Faces found but set aside by `--min-quality`, with their capture quality.
    public var ignoredFaces: [(face: FaceObservation, quality: CaptureQuality)] = []
    /// The shrunk upright image the detector saw (kept for libvips' attention fallback).
    let preview: VipsImage
    /// The whole image decoded in memory (stored orientation) when it fit `FaceCropper.singlePassBytes`.
    let decoded: VipsImage?
    /// Read by libvips' JPEG loader: it can shrink on load, and its pixels sit on an 8x8 block grid. Decided
    /// once, from `loader`.
    let isJPEG: Bool
    /// CMYK pixels, turned into sRGB on output. Decided once, from libvips' interpretation.
    let isCMYK: Bool
    /// The encoded bytes the image came from when it was read from memory (`analyze(bytes:name:)`); nil when it
    /// came from the file at `path`.
    var memory: VipsBlob? = nil

    init(
        path: String, storedSize: ImageSize, orientation: Orientation, loader: String, detector: DetectorKind, faces: [FaceObservation],
        analysisSize: ImageSize, preview: VipsImage, decoded: VipsImage?, interpretation: String
    ) {
        (self.path, self.storedSize, self.orientation, self.loader, self.detector) = (path, storedSize, orientation, loader, detector)
        (self.faces, self.analysisSize, self.preview, self.decoded) = (faces, analysisSize, preview, decoded)
        isJPEG = VipsImage.isJPEG(loader: loader)
        isCMYK = VipsImage.isCMYK(interpretation: interpretation)
    }

    /// Face boxes in pixels of the upright full-resolution image.
    public var faceRects: [Rect] { faces.map { $0.boundingBox(in: size) } }

    /// Where the image can be read again.
    var input: ImageInput { memory.map { .memory($0, name: path) } ?? .file(path) }

    /// The whole image: the decoded pixels when they were kept, else read again (sequentially).
    func reopen(shrink: Int = 1) throws(VipsError) -> VipsImage {
        if let decoded { return decoded }
        return try input.open(sequential: true, shrink: shrink)
    }
}
