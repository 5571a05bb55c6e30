// dlib's 68-point landmarks, through CLandmarks (the only user of that shim).
import CLandmarks
import FaceCropCore
import Glibc

/// dlib's 68-point face landmark predictor (Debian libdlib-data). Fitting is thread-safe: the predictor is
/// read-only once loaded, and every fit works on its own buffers, so one fitter serves every task at once.
///
/// The model takes 0.7–1 s to parse in dlib's format; the first load writes a raw copy to a cache folder, and
/// later loads read that in 0.02–0.06 s (see README, Landmarks). Load it once and share it.
public final class LandmarkFitter: Sendable {
    /// Where Debian's `libdlib-data` installs dlib's 68-point model: the default model.
    public static let defaultModelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    /// What to tell the user when `loadDefault()` finds no model.
    public static let missingModelNote =
        "Note: dlib's 68-point landmark model is not installed (\(defaultModelPath), Debian package libdlib-data); using the detector's 5 landmarks."

    /// The model file asked for, in dlib's format (`loadedFromCache`: its raw copy was read instead).
    public let modelPath: String
    /// Points per face (68 for the default model).
    public let pointCount: Int
    /// Whether the model came from the raw cache rather than from dlib's file.
    public let loadedFromCache: Bool
    /// The cache file this load wrote (dlib parsed the model, and its raw copy was saved for later loads); nil
    /// when it wrote none. Tell the user `cacheWrittenNote`.
    public let writtenCachePath: String?
    private let handle: Handle

    private struct Handle: ~Copyable, @unchecked Sendable {  // the C++ predictor is immutable after loading
        let pointer: OpaquePointer
        deinit { clm_free(pointer) }
    }

    /// - Parameters:
    ///   - modelPath: dlib's 68-point shape predictor (default: Debian's `libdlib-data`).
    ///   - cacheDirectory: where the raw copy of the model is kept (created if needed); nil for none.
    ///     A cache that cannot be read or written is ignored.
    public init(modelPath: String = LandmarkFitter.defaultModelPath, cacheDirectory: String? = LandmarkFitter.defaultCacheDirectory) throws(FaceCropError) {
        try FaceDetector.checkModelFile(modelPath)
        let (created, message) = withErrorBuffer { clm_create(modelPath, cacheDirectory, $0, $1) }
        guard let pointer = created else { throw .modelUnusable(modelPath, reason: message) }
        self.modelPath = modelPath
        self.pointCount = Int(clm_parts(pointer))
        self.loadedFromCache = clm_loaded_from_cache(pointer) != 0
        self.writtenCachePath = clm_written_cache(pointer).map { String(cString: $0) }
        self.handle = Handle(pointer: pointer)
    }

    /// The default model with the default cache, or nil when the model is not installed (then use the
    /// detector's 5 points and tell the user `missingModelNote`). Throws when the file is there but unusable.
    public static func loadDefault(cacheDirectory: String? = defaultCacheDirectory) throws(FaceCropError) -> LandmarkFitter? {
        guard defaultModelInstalled else { return nil }
        return try LandmarkFitter(cacheDirectory: cacheDirectory)
    }

    /// Whether the default model is there (`loadDefault()` loads it rather than returning nil).
    public static var defaultModelInstalled: Bool { access(defaultModelPath, F_OK) == 0 }

    /// What to tell the user, once, when this load wrote the cache (nil when it did not): where the file is, how
    /// large, and how to move or remove it.
    public var cacheWrittenNote: String? {
        guard let path = writtenCachePath else { return nil }
        var info = stat()
        let size = stat(path, &info) == 0 ? " \((Int(info.st_size) + 500_000) / 1_000_000) MB" : ""
        return
            "Note: saved a\(size) copy of dlib's landmark model as '\(path)', so that later runs load it in a fraction of a second; set FACECROP_CACHE_DIR to keep it elsewhere, or delete it (it is made again when needed)."
    }

    /// `$FACECROP_CACHE_DIR`, else `$XDG_CACHE_HOME/facecrop`, else `$HOME/.cache/facecrop`; nil without any.
    public static var defaultCacheDirectory: String? {
        func env(_ name: String) -> String? {
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
            return value
        }
        if let dir = env("FACECROP_CACHE_DIR") { return dir }
        if let xdg = env("XDG_CACHE_HOME"), xdg.hasPrefix("/") { return xdg + "/facecrop" }
        if let home = env("HOME") { return home + "/.cache/facecrop" }
        return nil
    }

    /// Fits the landmarks of the face in `faceBox` (pixels of this image, origin top-left) on packed 8-bit RGB.
    /// Returns `pointCount` points in the same pixels, sub-pixel (for the default model, iBUG 300-W order:
    /// build a `FaceLandmarks2D(ibug68:faceBox:)` from them).
    public func fit(rgb: UnsafePointer<UInt8>, width: Int, height: Int, faceBox: Rect) throws(FaceCropError) -> [Point] {
        try run(clm_fit, rgb: rgb, width: width, height: height, faceBox: faceBox)
    }

    /// dlib's own `shape_predictor::operator()`, which rounds to whole pixels: for tests of `fit`.
    func fitReference(rgb: UnsafePointer<UInt8>, width: Int, height: Int, faceBox: Rect) throws(FaceCropError) -> [Point] {
        try run(clm_fit_reference, rgb: rgb, width: width, height: height, faceBox: faceBox)
    }

    private typealias FitFunction = (
        OpaquePointer?, UnsafePointer<UInt8>?, Int32, Int32, Float, Float, Float, Float, UnsafeMutablePointer<Float>?,
        UnsafeMutablePointer<CChar>?, Int
    ) -> Int32

    private func run(_ function: FitFunction, rgb: UnsafePointer<UInt8>, width: Int, height: Int, faceBox b: Rect) throws(FaceCropError) -> [Point] {
        var xy = [Float](repeating: 0, count: 2 * pointCount)
        let (rc, message) = withErrorBuffer { error, size in
            function(handle.pointer, rgb, Int32(width), Int32(height), Float(b.x), Float(b.y), Float(b.width), Float(b.height), &xy, error, size)
        }
        guard rc == 0 else { throw .detector("the face landmarks cannot be fitted: \(message)") }
        return (0..<pointCount).map { Point(x: Double(xy[2 * $0]), y: Double(xy[2 * $0 + 1])) }
    }
}
