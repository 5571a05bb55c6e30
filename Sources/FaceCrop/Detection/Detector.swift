// The face detectors (OpenCV through COpenCV).
import COpenCV
import FaceCropCore
import Glibc
import Synchronization

/// An OpenCV face detector. OpenCV detectors are not thread-safe, so calls are serialised by a mutex
/// (measured as fast as one detector per task on this kind of machine, and far lighter on memory).
public final class FaceDetector: Sendable {
    /// The cascade the Haar detector reads unless given another: OpenCV's frontal-face cascade, from Debian's
    /// `opencv-data`.
    public static let defaultHaarCascade = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"

    /// Which detector it is: CenterFace, YuNet or Haar.
    public let kind: DetectorKind
    /// The model file given instead of the built-in model (or cascade), if any: an input, never an output.
    public let modelPath: String?
    private let handle: Mutex<Handle>

    private struct Handle: ~Copyable, @unchecked Sendable {
        let pointer: OpaquePointer
        deinit { ocv_free(pointer) }
    }

    /// A model file is read whole: it must be a regular file (a FIFO would never end, a device never be a model)
    /// of at most `Limits.maxModelBytes`. A missing one is left to the loader, which says so.
    package static func checkModelFile(_ path: String) throws(FaceCropError) {
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        guard st.st_mode & S_IFMT == S_IFREG else { throw .modelUnusable(path, reason: "it is not a regular file") }
        if Int(st.st_size) > Limits.maxModelBytes {
            throw .modelUnusable(path, reason: "it is \(st.st_size) bytes, over the \(Limits.maxModelBytes) a model may be")
        }
    }

    /// - Parameters:
    ///   - kind: the detector (default: CenterFace).
    ///   - modelPath: an ONNX file for CenterFace or YuNet (default: the built-in model), or a cascade
    ///     XML for Haar (default: `defaultHaarCascade`).
    ///   - readsNetOnFirstUse: CenterFace's built-in net is read by the first detection rather than now, for
    ///     callers that detect later or not at all. A model file is read now either way, to check it.
    public init(kind: DetectorKind = .centerface, modelPath: String? = nil, readsNetOnFirstUse: Bool = false) throws(FaceCropError) {
        if let modelPath { try Self.checkModelFile(modelPath) }
        let (pointer, message) = withErrorBuffer { error, size in
            switch kind {
            case .centerface: ocv_centerface_create(modelPath, readsNetOnFirstUse ? 1 : 0, Limits.maxModelBytes, error, size)
            case .yunet: ocv_yunet_create(modelPath, error, size)
            case .haar: ocv_haar_create(modelPath ?? Self.defaultHaarCascade, error, size)
            }
        }
        guard let pointer else {
            if let modelPath { throw .modelUnusable(modelPath, reason: message) }
            throw .detector(kind == .haar ? "the Haar cascade '\(Self.defaultHaarCascade)' cannot be used: \(message)" : message)
        }
        self.kind = kind
        self.modelPath = modelPath
        self.handle = Mutex(Handle(pointer: pointer))
    }

    /// Lets go of the memory earlier detections allocated, for a pause in detection when other work needs it:
    /// CenterFace's net and its intermediate buffers (tens of megabytes; the net is read again before the next
    /// detection, a few tens of milliseconds). Nothing for YuNet and Haar, which hold little.
    public func releaseWorkingMemory() {
        handle.withLock { ocv_release_working_memory($0.pointer) }
    }

    /// Whether CenterFace also keeps its net for the input size before the current one, so that inputs
    /// alternating between two sizes (a batch of landscape and portrait photos) do not read the net again at
    /// each switch, for the second net's buffers (tens of megabytes). Off by default; nothing for YuNet and Haar.
    public func keepsNetsForTwoSizes(_ keep: Bool) {
        handle.withLock { ocv_keep_spare_net($0.pointer, keep ? 1 : 0) }
    }

    /// Faces in packed RGB, in its pixels; found on a copy scaled down to `maxSide` (long side) when it is
    /// longer (0: as given).
    func detect(rgb: UnsafePointer<UInt8>, width: Int, height: Int, maxSide: Int = 0, threshold: Double) throws(FaceCropError) -> [DetectedFace] {
        var faces = [OCVFace](repeating: OCVFace(), count: 2048)
        var count: Int32 = 0
        let (rc, message) = withErrorBuffer { error, size in
            handle.withLock { h in
                ocv_detect(
                    h.pointer, rgb, Int32(width), Int32(height), Int32(clamping: maxSide), Float(threshold), &faces, Int32(faces.count), &count, error, size)
            }
        }
        guard rc == 0 else { throw .detector(message) }
        return faces.prefix(Int(count)).map { f in
            let points: [Point]? =
                f.has_landmarks == 0
                ? nil
                : withUnsafeBytes(of: f.landmarks) { raw in
                    let v = raw.bindMemory(to: Float.self)
                    return (0..<5).map { Point(x: Double(v[2 * $0]), y: Double(v[2 * $0 + 1])) }
                }
            return DetectedFace(
                box: Rect(x: Double(f.x), y: Double(f.y), width: Double(f.width), height: Double(f.height)),
                score: Double(f.score), landmarks: points)
        }
    }
}
