// One image read and searched for faces.
import FaceCropCore
import Glibc

/// One image read and searched for faces: everything planning needs.
public struct Analysis: Sendable {
    /// The input's path, or the name given to bytes in memory (the video's path for a video frame).
    public var path: String
    /// Stored size (before EXIF orientation).
    public var storedSize: ImageSize
    /// EXIF orientation of the file (`.up` for a video frame): how the stored pixels turn upright.
    public var orientation: Orientation
    /// Upright size.
    public var size: ImageSize { orientation.displaySize(storedSize: storedSize) }
    /// The libvips loader that read the image, or `.video` for a video frame.
    public let loader: ImageLoader
    /// The detector that found `faces` (their boxes' shape and scores depend on it).
    public var detector: DetectorKind
    /// The faces found, Vision-style: normalized 0...1 in the upright image, origin bottom-left (after
    /// `FaceCropper.screen`, only those at or above the minimum quality).
    public var faces: [FaceObservation]
    /// Upright size in pixels of the copy the detector saw (long side `FaceCropper.analysisSize`).
    public var analysisSize: ImageSize
    /// The orientation that shows the upright image with its faces upright, when they were found on that copy
    /// turned so (they lay on their side or upside down: typically a picture stored turned without an EXIF
    /// orientation, `FaceTurn`); nil when it was searched as it is. `faces` are in the upright image's pixels
    /// either way.
    public var uprightOrientation: Orientation?
    /// Milliseconds per stage, filled in as the job goes.
    public var timings = Timings()
    /// Capture quality of `faces`, when it was measured (`--min-quality`).
    public var quality: [CaptureQuality]?
    /// Faces found but set aside by `--min-quality`, with their capture quality.
    public var ignoredFaces: [(face: FaceObservation, quality: CaptureQuality)] = []
    /// The shrunk upright image the detector saw (kept for libvips' attention fallback).
    let preview: VipsImage
    /// Where the full-resolution pixels come from, chosen once by `FaceCropper.analyze`: crops, quality
    /// measurements and `annotate`'s picture all take them from here.
    let pixels: PixelSource
    /// The file or bytes the image was read from, for messages and for reading it again after a failure.
    let input: ImageInput
    /// Pixels turned into sRGB on output (`VipsImage.needsSRGB`: CMYK, scRGB, CIELAB...). Decided once, from the
    /// header libvips read.
    let needsSRGB: Bool
    /// Samples of more than 8 bits (16-bit PNG or TIFF, floats): encoders that hold the whole picture take more
    /// (`ImageFormat.encoderMemory`).
    let highDepth: Bool
    /// The share of `FaceCropper.decodeBudget` a whole-frame input holds while it is analysed and cropped.
    let decodePermit: DecodeBudget.Permit?

    init(
        path: String, storedSize: ImageSize, orientation: Orientation, loader: ImageLoader, detector: DetectorKind, faces: [FaceObservation],
        analysisSize: ImageSize, preview: VipsImage, pixels: PixelSource, input: ImageInput, needsSRGB: Bool,
        highDepth: Bool = false, decodePermit: DecodeBudget.Permit? = nil
    ) {
        self.decodePermit = decodePermit
        (self.path, self.storedSize, self.orientation, self.loader, self.detector) = (path, storedSize, orientation, loader, detector)
        (self.faces, self.analysisSize, self.preview, self.pixels, self.input) = (faces, analysisSize, preview, pixels, input)
        (self.needsSRGB, self.highDepth) = (needsSRGB, highDepth)
    }

    /// An image whose pixels are all in memory already, in sRGB (a video frame, a still at the analysis size).
    init(
        path: String, storedSize: ImageSize, orientation: Orientation, loader: ImageLoader, detector: DetectorKind, faces: [FaceObservation],
        analysisSize: ImageSize, preview: VipsImage, decoded: VipsImage
    ) {
        self.init(
            path: path, storedSize: storedSize, orientation: orientation, loader: loader, detector: detector, faces: faces, analysisSize: analysisSize,
            preview: preview, pixels: .decoded(decoded), input: .file(path), needsSRGB: false)
    }

    /// Face boxes in pixels of the upright full-resolution image.
    public var faceRects: [Rect] { faces.map { $0.boundingBox(in: size) } }

    /// How each face stands in an image searched turned (`uprightOrientation`): the orientation that shows it
    /// upright, by its own 5 points (`FaceTurn.orientation`), nil for a face standing upright beside turned
    /// ones. All nil for an image searched as it is (a tilted head in an upright photo is measured as it is).
    var faceTurns: [Orientation?] {
        guard uprightOrientation != nil else { return faces.map { _ in nil } }
        return faces.map { face in
            face.landmarks.flatMap { landmarks in
                FaceTurn.orientation(of: [DetectedFace(box: face.boundingBox(in: size), score: face.confidence, landmarks: landmarks.points(in: size))])
            }
        }
    }

    /// The whole image (stored orientation): `pixels.image(shrink:)`.
    func reopen(shrink: Int = 1) throws(VipsError) -> VipsImage { try pixels.image(shrink: shrink) }
}

/// Where an analysed image's full-resolution pixels come from: decided once, when it is analysed.
enum PixelSource: Sendable {
    /// The whole image decoded in memory, in stored orientation: it fit `FaceCropper.singlePassBytes`, or it is
    /// a video frame.
    case decoded(VipsImage)
    /// Read again, sequentially, from the file or bytes it came from (decoding it whole would take more than
    /// `FaceCropper.singlePassBytes`); a JPEG (`Analysis.loader.isJPEG`) can be shrunk on load.
    case encoded(ImageInput)

    /// The whole image in stored orientation: the decoded pixels, or the input read again, shrunk on load by
    /// `shrink` (1, 2, 4 or 8; JPEG only).
    func image(shrink: Int = 1) throws(VipsError) -> VipsImage {
        switch self {
        case .decoded(let image): return image
        case .encoded(let input): return try input.open(sequential: true, shrink: shrink)
        }
    }

    /// The whole image upright, shrunk to fit a `box` x `box` square when it is larger (`size`: its upright size).
    func upright(fitting box: Int, size: ImageSize) throws(VipsError) -> VipsImage {
        let box = min(box, max(size.width, size.height))
        switch self {
        case .decoded(let image): return try image.preview(box: box)
        case .encoded(let input): return try input.thumbnail(box: box)
        }
    }
}
