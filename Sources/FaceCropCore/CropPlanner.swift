/// Which faces the crop is planned around.
public enum CropStrategy: String, Sendable, Codable, CaseIterable {
    /// The union of every face box grown by the margin: no face is cut when that is geometrically possible.
    case all
    /// The reference algorithm of Ancestry's FaceCrop article, kept exact (see `CropPlanner.averageRegion`).
    case average
    /// The largest face plus margin.
    case largest
}

/// Space kept around the faces: pixels of the original image, or a percentage of the mean face height.
public enum Margin: Hashable, Sendable {
    /// Pixels of the upright full-resolution image, on every side.
    case pixels(Double)
    /// A percentage of the mean face height (40 for 40 %), on every side.
    case percentOfFaceHeight(Double)

    /// Parses "200" or "40%". Nil for anything else, negative or not finite.
    public init?(_ text: String) {
        let percent = text.hasSuffix("%")
        guard let value = decimalNumber(percent ? text.dropLast() : Substring(text)), value.isFinite, value >= 0 else { return nil }
        self = percent ? .percentOfFaceHeight(value) : .pixels(value)
    }

    /// The margin in pixels, for faces of mean height `meanFaceHeight` pixels.
    public func pixels(meanFaceHeight: Double) -> Double {
        switch self {
        case .pixels(let value): return value
        case .percentOfFaceHeight(let percent): return percent / 100 * meanFaceHeight
        }
    }
}

/// The width:height of the crop, or the input image's own.
public enum Aspect: Hashable, Sendable {
    /// The input image's own width:height.
    case original
    /// `width`:`height`, e.g. 16:9.
    case ratio(width: Double, height: Double)

    /// Parses "16:9", "1.91:1", "4/5", "16x9" or "original".
    public init?(_ text: String) {
        if text == "original" {
            self = .original
            return
        }
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "/" || $0 == "x" })
        guard parts.count == 2, let w = decimalNumber(parts[0]), let h = decimalNumber(parts[1]),
            w.isFinite, h.isFinite, w > 0, h > 0
        else { return nil }
        self = .ratio(width: w, height: h)
    }

    /// width / height for an image of `imageSize`.
    public func value(for imageSize: ImageSize) -> Double {
        switch self {
        case .original: return Double(imageSize.width) / Double(imageSize.height)
        case .ratio(let w, let h): return w / h
        }
    }

    /// The text `init?(_:)` reads back: "original", or "W:H" with whole numbers written without decimals
    /// ("16:9", "1.91:1").
    public var description: String {
        switch self {
        case .original: return "original"
        case .ratio(let w, let h): return "\(Self.format(w)):\(Self.format(h))"
        }
    }

    private static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(clampedInt(v)) : String(v)
    }
}

/// The outcome of planning: where to cut, and what that does to the faces.
public struct CropPlan: Hashable, Sendable {
    /// Faces plus margin as the strategy defines it, before fitting to the aspect (may leave the image).
    public var region: Rect
    /// The crop in pixels of the upright image, origin top-left. Always inside the image.
    public var rect: PixelRect
    /// Indices (into the faces given) of the faces not wholly inside `rect`.
    public var cutFaces: [Int]
    /// Whether the whole region (faces and margin, clipped to the image) is inside `rect`.
    public var regionFits: Bool
}

/// Crop planning as pure functions over pixel rectangles (origin top-left of the upright image).
public enum CropPlanner {
    /// A face counts as whole when it is inside the crop to within this many pixels (rounding).
    public static let wholeTolerance = 1.0

    /// Ancestry's FaceCrop region, exactly: the mean x, y, width and height over all faces;
    /// offset = margin + (mean x − min x); region = (mean x − offset, mean y − offset,
    /// mean width + 2·offset, mean height + 2·offset). Without faces, an empty rectangle at the origin.
    public static func averageRegion(faces: [Rect], margin: Double) -> Rect {
        guard !faces.isEmpty else { return .zero }
        let n = Double(faces.count)
        let meanX = faces.map(\.x).reduce(0, +) / n
        let meanY = faces.map(\.y).reduce(0, +) / n
        let meanW = faces.map(\.width).reduce(0, +) / n
        let meanH = faces.map(\.height).reduce(0, +) / n
        let minX = faces.map(\.x).min()!
        let offset = margin + (meanX - minX)
        return Rect(x: meanX - offset, y: meanY - offset, width: meanW + 2 * offset, height: meanH + 2 * offset)
    }

    /// The faces a strategy plans around (indices into `faces`).
    public static func targets(of strategy: CropStrategy, faces: [Rect]) -> [Int] {
        switch strategy {
        case .all, .average: return Array(faces.indices)
        case .largest:
            guard let best = faces.indices.max(by: { faces[$0].area < faces[$1].area }) else { return [] }
            return [best]
        }
    }

    /// The region `strategy` frames, in the faces' pixels, before fitting to the aspect (it may leave the
    /// image): the union of the faces grown by `margin` (`all`), the largest one grown by it (`largest`), or
    /// `averageRegion` (`average`). Without faces, an empty rectangle at the origin.
    public static func region(faces: [Rect], strategy: CropStrategy, margin: Double) -> Rect {
        switch strategy {
        case .average:
            return averageRegion(faces: faces, margin: margin)
        case .all, .largest:
            let chosen = targets(of: strategy, faces: faces).map { faces[$0].outsetBy(margin) }
            guard let first = chosen.first else { return .zero }
            return chosen.dropFirst().reduce(first) { $0.union($1) }
        }
    }

    /// Whole-pixel crop size of aspect `ratio` (width/height) that covers `region` (clipped to the image),
    /// growing its short side; or, when that does not fit, the largest of that aspect inside the image.
    /// The derived side is rounded, so the aspect holds to within one pixel.
    public static func cropSize(covering region: Rect, ratio: Double, in image: ImageSize) -> (width: Int, height: Int) {
        let clipped = region.intersection(image.bounds)
        var w = max(clipped.width, 1)
        var h = max(clipped.height, 1)
        if w / h < ratio { w = h * ratio } else { h = w / ratio }
        return wholePixelSize(width: w, height: h, ratio: ratio, in: image)
    }

    /// The largest whole-pixel size of aspect `ratio` inside the image.
    public static func largestSize(ratio: Double, in image: ImageSize) -> (width: Int, height: Int) {
        wholePixelSize(width: .infinity, height: .infinity, ratio: ratio, in: image)
    }

    private static func wholePixelSize(width: Double, height: Double, ratio: Double, in image: ImageSize) -> (width: Int, height: Int) {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        let W = max(1, image.width)
        // swift-format-ignore: AlwaysUseLowerCamelCase
        let H = max(1, image.height)
        // Any ratio (0, NaN, infinite: an aspect of 1e308:1) gives a size inside the image, never a trap.
        let ratio = ratio.isNaN || ratio <= 0 ? 1 : ratio
        // Round one side, derive the other from it, and shrink both if that leaves the image.
        if ratio >= 1 {
            var h = clampedInt(min(height, Double(H)), in: 1...H)
            var w = clampedInt(Double(h) * ratio, in: 1...Int.max)
            if w > W {
                w = W
                h = clampedInt(Double(W) / ratio, in: 1...H)
            }
            return (w, h)
        } else {
            var w = clampedInt(min(width, Double(W)), in: 1...W)
            var h = clampedInt(Double(w) / ratio, in: 1...Int.max)
            if h > H {
                h = H
                w = clampedInt(Double(H) * ratio, in: 1...W)
            }
            return (w, h)
        }
    }

    /// A crop of `size` centred on `point`, then moved inside the image (libvips' smartcrop placement).
    public static func centered(size: (width: Int, height: Int), on point: Point, in image: ImageSize) -> PixelRect {
        PixelRect(
            x: clampStart(point.x - Double(size.width) / 2, length: size.width, limit: image.width),
            y: clampStart(point.y - Double(size.height) / 2, length: size.height, limit: image.height),
            width: size.width, height: size.height)
    }

    private static func clampStart(_ start: Double, length: Int, limit: Int) -> Int {
        clampedInt(start, in: 0...max(limit - length, 0))
    }

    /// Plans the crop of aspect `ratio` around `faces` (pixels, origin top-left of the upright image).
    ///
    /// The region is fitted to the aspect by growing its short side around its centre, then moved inside
    /// the image. When the region cannot fit, the crop is the largest of that aspect in the image, placed to
    /// keep the most face area whole (a large face counts for more than a small background one), then the
    /// most margin, then centred on what it keeps. Returns nil without faces.
    public static func plan(faces: [Rect], image: ImageSize, strategy: CropStrategy, margin: Double, ratio: Double) -> CropPlan? {
        guard !faces.isEmpty, image.width > 0, image.height > 0 else { return nil }
        // Hostile values through the public API: a NaN margin counts as none; beyond 4 image sides every
        // margin frames the same (the region is clipped to the image), and stays finite.
        let cap = 4 * Double(max(image.width, image.height))
        let margin = margin.isNaN ? 0 : min(max(margin, -cap), cap)
        let region = region(faces: faces, strategy: strategy, margin: margin)
        let clippedRegion = region.intersection(image.bounds)
        let size = cropSize(covering: region, ratio: ratio, in: image)
        var crop = centered(size: size, on: Point(x: clippedRegion.midX, y: clippedRegion.midY), in: image)

        if !crop.rect.contains(clippedRegion, tolerance: wholeTolerance) {
            let targets = targets(of: strategy, faces: faces)
            let boxes = targets.map { faces[$0].intersection(image.bounds) }
            let margins = targets.map { faces[$0].outsetBy(margin).intersection(image.bounds) }
            if Double(crop.width) < clippedRegion.width - wholeTolerance {
                crop.x = bestStart(axis: \.x, extent: \.width, crop: crop, length: crop.width, limit: image.width, boxes: boxes, margins: margins)
            }
            if Double(crop.height) < clippedRegion.height - wholeTolerance {
                crop.y = bestStart(axis: \.y, extent: \.height, crop: crop, length: crop.height, limit: image.height, boxes: boxes, margins: margins)
            }
        }
        let cropRect = crop.rect
        let cut = faces.indices.filter { !cropRect.contains(faces[$0].intersection(image.bounds), tolerance: wholeTolerance) }
        return CropPlan(region: region, rect: crop, cutFaces: cut, regionFits: cropRect.contains(clippedRegion, tolerance: wholeTolerance))
    }

    /// Chooses the crop's start on one axis (the other axis of `crop` stays as it is).
    private static func bestStart(
        axis: WritableKeyPath<Rect, Double>, extent: KeyPath<Rect, Double>, crop: PixelRect, length: Int, limit: Int,
        boxes: [Rect], margins: [Rect]
    ) -> Int {
        let maxStart = Double(limit - length)
        // swift-format-ignore: AlwaysUseLowerCamelCase
        let L = Double(length)
        func clamp(_ s: Double) -> Double { min(max(s, 0), maxStart) }
        func window(_ start: Double) -> Rect {
            var r = crop.rect
            r[keyPath: axis] = start
            return r
        }
        // Whole-face weight first, then margin weight. The optimum of a sum of interval weights is at an
        // interval end, so each box's and margin's ends are the only candidates needed.
        func score(_ start: Double) -> (Double, Double) {
            let w = window(start)
            var faces = 0.0
            var kept = 0.0
            for (box, margin) in zip(boxes, margins) {
                // Larger faces weigh more; the + 1 keeps a sliver of a face at the border from weighing nothing.
                if w.contains(box, tolerance: wholeTolerance) { faces += box.area + 1 }
                if w.contains(margin, tolerance: wholeTolerance) { kept += box.area + 1 }
            }
            return (faces, kept)
        }
        var candidates = [Double]()
        for r in boxes + margins {
            let lo = r[keyPath: axis]
            let hi = lo + r[keyPath: extent]
            candidates += [clamp(lo), clamp(hi - L)]
        }
        let best = candidates.max(by: { score($0) < score($1) })!
        // Nothing can be whole (the crop is thinner than any face): stay centred on the region.
        if score(best) == (0, 0) { return clampedInt(crop.rect[keyPath: axis], rounding: .towardZero) }
        // Centre on what the best placement keeps, without losing any of it.
        let w = window(best)
        var lo = 0.0
        var hi = maxStart
        var keptUnion: Rect?
        for (box, margin) in zip(boxes, margins) {
            for r in [box, margin] where w.contains(r, tolerance: wholeTolerance) {
                let r0 = r[keyPath: axis]
                let r1 = r0 + r[keyPath: extent]
                lo = max(lo, r1 - L)
                hi = min(hi, r0)
                keptUnion = keptUnion.map { $0.union(r) } ?? r
            }
        }
        guard let union = keptUnion, lo <= hi else { return clampedInt(best) }
        let ideal = union[keyPath: axis] + union[keyPath: extent] / 2 - L / 2
        return clampedInt(min(max(ideal, lo), hi))
    }
}

/// The warning for faces a crop cuts: one wording for `crop` and `batch`, agreeing with `regionFits`.
package enum CutFaces {
    /// nil when no face is cut. `cut` holds 0-based indices (the first 10 are named); `regionFits` is the plan's:
    /// when the faces the strategy frames fit, the cut ones are those it leaves out, which the warning says
    /// instead of "cannot fit".
    package static func warning(input: String, cut: [Int], faceCount: Int, aspect: String, strategy: CropStrategy, regionFits: Bool) -> String? {
        guard !cut.isEmpty else { return nil }
        // At most `listed` numbers: a crop of hundreds of faces (a low --threshold on texture) stays one readable line.
        let listed = 10
        let list = cut.prefix(listed).map { "#\($0 + 1)" }.joined(separator: ", ") + (cut.count > listed ? " and \(cut.count - listed) more" : "")
        let (face, verb) = cut.count == 1 ? ("face", "is") : ("faces", "are")
        if regionFits && strategy != .all {
            let framed = strategy == .largest ? "only the largest face" : "the faces around their average"
            return "Warning: \(input): \(face) \(list) of \(faceCount) \(verb) cut from the \(aspect) crop: --strategy \(strategy.rawValue) frames \(framed)."
        }
        return "Warning: \(input): \(face) \(list) of \(faceCount) cannot fit in a \(aspect) crop and \(verb) cut."
    }
}
