/// A point. Which space it lives in (normalized with the origin at the bottom-left, or pixels with the
/// origin at the top-left) is said by the API that hands it out.
public struct Point: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle with a floating-point origin and size, like `CGRect`.
public struct Rect: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var area: Double { max(0, width) * max(0, height) }

    /// The smallest rectangle containing both.
    public func union(_ other: Rect) -> Rect {
        let x0 = min(minX, other.minX)
        let y0 = min(minY, other.minY)
        return Rect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    /// The overlap, or a zero-size rectangle when there is none.
    public func intersection(_ other: Rect) -> Rect {
        let x0 = max(minX, other.minX)
        let y0 = max(minY, other.minY)
        return Rect(x: x0, y: y0, width: max(0, min(maxX, other.maxX) - x0), height: max(0, min(maxY, other.maxY) - y0))
    }

    /// Intersection over union: 1 for the same rect, 0 for rects that do not overlap.
    public func iou(_ other: Rect) -> Double {
        let i = intersection(other).area
        let u = area + other.area - i
        return u > 0 ? i / u : 0
    }

    /// The smallest pixel rectangle holding the part of this one inside an image of `size` (zero-size at the
    /// origin when none of it is).
    public func enclosingPixels(in size: ImageSize) -> PixelRect {
        let inside = intersection(size.bounds)
        guard inside.area > 0 else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        let x0 = clampedInt(inside.minX, in: 0...size.width, rounding: .down)
        let y0 = clampedInt(inside.minY, in: 0...size.height, rounding: .down)
        let x1 = clampedInt(inside.maxX, in: x0...size.width, rounding: .up)
        let y1 = clampedInt(inside.maxY, in: y0...size.height, rounding: .up)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Grown by `amount` on every side (shrunk when negative).
    public func insetBy(_ amount: Double) -> Rect {
        Rect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
    }

    public func outsetBy(_ amount: Double) -> Rect { insetBy(-amount) }

    /// Whether `other` lies inside this rectangle, allowing `tolerance` on every side.
    public func contains(_ other: Rect, tolerance: Double = 0) -> Bool {
        other.minX >= minX - tolerance && other.minY >= minY - tolerance
            && other.maxX <= maxX + tolerance && other.maxY <= maxY + tolerance
    }
}

/// The size of an image in pixels.
public struct ImageSize: Hashable, Sendable, Codable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(width), height: Double(height)) }
    public var pixels: Int { width * height }
}

/// A whole-pixel rectangle, origin top-left: what is cut out of an image.
public struct PixelRect: Hashable, Sendable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var rect: Rect { Rect(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }
    public var size: ImageSize { ImageSize(width: width, height: height) }
}
