// Capture quality: each face cut from the full-resolution pixels, measured by CFaceDetect, scored by
// FaceCropCore.QualityModel.
import CFaceDetect
import FaceCropCore
import Synchronization

/// Per image: the mean capture quality over its faces (as Apple's selfie sample ranks), with min and max.
public struct ImageQuality: Codable, Sendable, Hashable {
    public var mean: Double
    public var min: Double
    public var max: Double
    public var faces: Int

    public init?(_ faces: [CaptureQuality]) {
        guard !faces.isEmpty else { return nil }
        self.faces = faces.count
        let scores = faces.map(\.score)
        mean = scores.reduce(0, +) / Double(scores.count)
        min = scores.min()!
        max = scores.max()!
    }
}

/// Measures and scores faces. The expression model is not thread-safe: calls are serialised by a mutex.
public final class QualityAnalyzer: Sendable {
    public let model: QualityModel
    private let expression: Mutex<Handle>

    private struct Handle: ~Copyable, @unchecked Sendable {
        let pointer: OpaquePointer
        deinit { cfd_expression_free(pointer) }
    }

    /// Side of the square crop, in face sizes, and the height it is measured at.
    static let cropScale = 1.25
    static let measureHeight = 128

    public init(model: QualityModel = .defaults, expressionModelPath: String? = nil) throws(FaceCropError) {
        var error = [CChar](repeating: 0, count: 512)
        guard let pointer = cfd_expression_create(expressionModelPath, &error, error.count) else {
            throw .detector(cString(error))
        }
        self.model = model
        self.expression = Mutex(Handle(pointer: pointer))
    }

    /// The capture quality of every face of `analysis`, in the same order.
    public func assess(_ analysis: Analysis) throws(FaceCropError) -> [CaptureQuality] {
        let size = analysis.size
        return try analysis.faces.map { (face) throws(FaceCropError) -> CaptureQuality in
            let box = face.boundingBox(in: size)
            var m = try measure(analysis, box: box)
            m.faceHeight = box.height
            m.confidence = face.confidence
            m.blockiness = try blockiness(analysis, box: box)
            m.inside = box.area > 0 ? box.intersection(size.bounds).area / box.area : 0
            if let pose = face.landmarks.flatMap({ QualityModel.pose($0.points(in: size)) }) {
                (m.roll, m.yaw, m.pitch) = (pose.roll, pose.yaw, pose.pitch)
            }
            return model.score(m)
        }
    }

    /// Blocking on the face at full resolution, on a region whose stored origin sits on the 8x8 JPEG grid
    /// (at most 512x512 from its centre, to bound the work). 1 for images that are not JPEG.
    private func blockiness(_ analysis: Analysis, box: Rect) throws(FaceCropError) -> Double {
        guard analysis.loader.hasPrefix("jpegload") else { return 1 }
        let size = analysis.size
        let visible = box.intersection(size.bounds)
        let side = 512.0
        let region = Rect(
            x: max(visible.minX, visible.midX - side / 2), y: max(visible.minY, visible.midY - side / 2),
            width: min(visible.width, side), height: min(visible.height, side))
        let display = PixelRect(x: Int(region.minX), y: Int(region.minY), width: Int(region.width), height: Int(region.height))
        guard display.width >= 24, display.height >= 24 else { return 1 }
        var stored = analysis.orientation.storedRect(forDisplay: display, storedSize: analysis.storedSize)
        let dx = stored.x % 8, dy = stored.y % 8
        stored = PixelRect(x: stored.x - dx, y: stored.y - dy, width: stored.width + dx, height: stored.height + dy)
        var ratio: Float = 1
        do {
            let source = try analysis.decoded ?? VipsImage.open(analysis.path, sequential: true)
            var error = [CChar](repeating: 0, count: 512)
            let rc = try source.extract(stored).inMemory().withRGB8 { rgb, w, h in cfd_blockiness(rgb, Int32(w), Int32(h), &ratio, &error, error.count) }
            guard rc == 0 else { return 1 }
        } catch let error as VipsError {
            throw FaceCropper.readError(analysis.path, error)
        } catch {
            throw .imageProcessing("\(error)")
        }
        return Double(ratio)
    }

    private func measure(_ analysis: Analysis, box: Rect) throws(FaceCropError) -> QualityMeasurements {
        let size = analysis.size
        let side = Self.cropScale * max(box.width, box.height)
        let square = Rect(x: box.midX - side / 2, y: box.midY - side / 2, width: side, height: side).intersection(size.bounds)
        let x0 = Int(square.minX.rounded(.down)), y0 = Int(square.minY.rounded(.down))
        let clamped = PixelRect(
            x: x0, y: y0, width: max(1, min(size.width, Int(square.maxX.rounded(.up))) - x0),
            height: max(1, min(size.height, Int(square.maxY.rounded(.up))) - y0))
        let stored = analysis.orientation.storedRect(forDisplay: clamped, storedSize: analysis.storedSize)
        let h = Self.measureHeight
        let w = max(16, Int((Double(h) * Double(clamped.width) / Double(max(1, clamped.height))).rounded()))
        var metrics = CFDFaceMetrics()
        do {
            let source = try analysis.decoded ?? VipsImage.open(analysis.path, sequential: true)
            let storedSize = analysis.orientation.swapsAxes ? ImageSize(width: h, height: w) : ImageSize(width: w, height: h)
            let face = try source.extract(stored).resized(width: storedSize.width, height: storedSize.height).inMemory().upright()
            var error = [CChar](repeating: 0, count: 512)
            let rc = try face.withRGB8 { rgb, width, height in
                expression.withLock { e in cfd_face_metrics(rgb, Int32(width), Int32(height), e.pointer, &metrics, &error, error.count) }
            }
            guard rc == 0 else { throw FaceCropError.imageProcessing(cString(error)) }
        } catch let error as FaceCropError {
            throw error
        } catch let error as VipsError {
            throw FaceCropper.readError(analysis.path, error)
        } catch {
            throw .imageProcessing("\(error)")
        }
        let e = withUnsafeBytes(of: metrics.expression) { Array($0.bindMemory(to: Float.self)).map(Double.init) }
        return QualityMeasurements(
            blur: Double(metrics.blur), noise: Double(metrics.noise), brightness: Double(metrics.mean), contrast: Double(metrics.contrast),
            clipped: Double(metrics.clipped), imbalance: Double(metrics.imbalance), faceHeight: 0,
            expression: e.allSatisfy { $0 >= 0 } ? e : nil, inside: 1)
    }
}
