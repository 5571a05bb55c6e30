/// A point. Which space it lives in (normalized with the origin at the bottom-left, or pixels with the
/// origin at the top-left) is said by the API that hands it out.
public struct Point: Hashable, Sendable, Codable {
    /// The horizontal coordinate, growing to the right.
    public var x: Double
    /// The vertical coordinate: growing upwards in normalized coordinates, downwards in pixels.
    public var y: Double
    /// The point (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle with a floating-point origin and size, like `CGRect`.
public struct Rect: Hashable, Sendable, Codable {
    /// The origin's x: the left edge when `width` is not negative.
    public var x: Double
    /// The origin's y: the top edge in pixels (origin top-left), the bottom edge in normalized coordinates
    /// (origin bottom-left), when `height` is not negative.
    public var y: Double
    /// The extent along x, in the units of `x`. Not checked: it may be negative (`area` then counts 0).
    public var width: Double
    /// The extent along y, in the units of `y`. Not checked: it may be negative (`area` then counts 0).
    public var height: Double

    /// The rectangle with its origin at (`x`, `y`) and the size given, kept as given (not standardised).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// `x`: the left edge (not standardised as `CGRect`'s is: with a negative width it is the right one).
    public var minX: Double { x }
    /// `y`: the top edge in pixels, the bottom one in normalized coordinates (not standardised either).
    public var minY: Double { y }
    /// `x + width`: the right edge.
    public var maxX: Double { x + width }
    /// `y + height`: the bottom edge in pixels, the top one in normalized coordinates.
    public var maxY: Double { y + height }
    /// The centre's x.
    public var midX: Double { x + width / 2 }
    /// The centre's y.
    public var midY: Double { y + height / 2 }
    /// `width × height`, counting a negative width or height as 0.
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

    /// Shrunk by `amount` on every side (grown when negative).
    public func insetBy(_ amount: Double) -> Rect {
        Rect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
    }

    /// Grown by `amount` on every side (shrunk when negative): `insetBy(-amount)`.
    public func outsetBy(_ amount: Double) -> Rect { insetBy(-amount) }

    /// Whether `other` lies inside this rectangle, allowing `tolerance` on every side.
    public func contains(_ other: Rect, tolerance: Double = 0) -> Bool {
        other.minX >= minX - tolerance && other.minY >= minY - tolerance
            && other.maxX <= maxX + tolerance && other.maxY <= maxY + tolerance
    }
}

/// The size of an image in pixels.
public struct ImageSize: Hashable, Sendable, Codable {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// A size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// The whole image as a rectangle: origin (0, 0) at the top-left, this size.
    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(width), height: Double(height)) }
    /// The number of pixels, `width × height`; `Int.max` when the product overflows `Int`.
    public var pixels: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }
}

/// A whole-pixel rectangle, origin top-left: what is cut out of an image.
public struct PixelRect: Hashable, Sendable, Codable {
    /// The left edge, in pixels.
    public var x: Int
    /// The top edge, in pixels.
    public var y: Int
    /// The width, in pixels.
    public var width: Int
    /// The height, in pixels.
    public var height: Int
    /// The rectangle with its top-left corner at (`x`, `y`) and the size given, in whole pixels.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    /// The same rectangle in floating point.
    public var rect: Rect { Rect(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }
    /// The width and height, as an image size.
    public var size: ImageSize { ImageSize(width: width, height: height) }
}
