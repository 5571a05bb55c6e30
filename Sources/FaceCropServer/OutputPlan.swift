// From a URL's size options and the source's upright size to the library's terms: the crop's aspect, the output
// size and whether it may enlarge. Pure; table-tested.
import FaceCrop

extension ProcessingOptions {
    /// The crop's aspect: width:height with `fill`/`fill-down` and both sides, the whole image's with `force` and
    /// both sides; otherwise `aspect:` (the whole image's without it).
    public var cropAspect: Aspect {
        if width > 0, height > 0 {
            switch resize {
            case .fill, .fillDown:
                var (a, b) = (width, height)
                while b != 0 { (a, b) = (b, a % b) }
                return .ratio(width: Double(width / a), height: Double(height / a))
            case .force: return .original
            case .fit: break
            }
        }
        return aspect ?? .original
    }

    /// Whether the output shows the whole image, whatever the gravity: `force` with both sides, or no aspect at
    /// all (neither `fill`/`fill-down` with both sides nor `aspect:`).
    public var wholeImage: Bool {
        cropAspect == .original && (aspect == nil || (resize == .force && width > 0 && height > 0))
    }

    /// Refuses (400), before the source is read, what the URL alone shows cannot be made: `fill` sides outside
    /// 1:10000 to 10000:1, and an output side or size that will be exactly as asked (enlarging, or `force`) beyond
    /// what `format` holds, `maxOutputPixels` or what its encoder may take (`maxEncodeMemory`).
    public func checkBeforeWork(format: ImageFormat, maxOutputPixels: Int, maxEncodeMemory: Int) throws(ServerError) {
        if width > 0, height > 0, resize == .fill || resize == .fillDown {
            let ratio = Double(width) / Double(height)
            guard ratio >= 1 / Limits.maxAspect, ratio <= Limits.maxAspect else {
                throw .badOptions("Expected a width and height from 1:10000 to 10000:1 in shape for \(resize.rawValue) but received \(width)x\(height).")
            }
        }
        let both = width > 0 && height > 0
        guard both ? resize == .force || (resize == .fill && enlarge) : enlarge && resize != .fillDown else { return }
        guard both else {
            let side = max(width, height)
            if side > format.maxDimension {
                throw .badOptions("The output would have a side of \(side) pixels, over the \(format.maxDimension) \(format.withArticle) side can have.")
            }
            return
        }
        // The library's checks, in the words the same refusal has once the crop is planned.
        do {
            try OutputLimits.check(
                ImageSize(width: width, height: height), format: format, path: FaceCropper.memoryName, maxPixels: maxOutputPixels,
                maxEncodeMemory: maxEncodeMemory)
        } catch {
            throw ServerError(error)
        }
    }

    /// The output for a crop of `crop` pixels (planned at `cropAspect`):
    /// - `fill`/`fill-down` with width and height: exactly that size (`fill-down` or `el:0`: never enlarged, the
    ///   same aspect smaller).
    /// - `force` with width and height: exactly that size, the whole image stretched.
    /// - otherwise (`fit`, or one side given): the crop scaled to fit inside the sides given (not enlarged with
    ///   `el:0`); neither given: the crop's own size.
    public func output(for crop: ImageSize) -> (size: OutputSize?, withoutEnlargement: Bool) {
        let noEnlarge = !enlarge || resize == .fillDown
        if width > 0, height > 0, resize != .fit {
            return (.exact(width: width, height: height), resize == .force ? false : noEnlarge)
        }
        let cw = Double(max(1, crop.width))
        let ch = Double(max(1, crop.height))
        var scale: Double
        switch (width > 0, height > 0) {
        case (true, true): scale = min(Double(width) / cw, Double(height) / ch)
        case (true, false): scale = Double(width) / cw
        case (false, true): scale = Double(height) / ch
        case (false, false): return (nil, false)
        }
        if noEnlarge { scale = min(scale, 1) }
        let w = clampedInt((cw * scale).rounded(), in: 1...Limits.maxSide)
        let h = clampedInt((ch * scale).rounded(), in: 1...Limits.maxSide)
        return (.exact(width: w, height: h), false)
    }
}
