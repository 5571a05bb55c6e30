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
