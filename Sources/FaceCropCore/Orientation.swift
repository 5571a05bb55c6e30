/// EXIF orientation: how the stored pixels must be transformed to show the picture upright. Case names
/// follow `CGImagePropertyOrientation`.
public enum Orientation: Int, Sendable, Codable, CaseIterable {
    /// 1: stored upright, shown as it is.
    case up = 1
    /// 2...8, in EXIF's order; 5...8 store the picture on its side.
    case upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Orientations 5...8 store the picture on its side: width and height swap.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The size of the upright picture for stored pixels of size `s`: width and height swap for 5...8.
    public func displaySize(storedSize s: ImageSize) -> ImageSize {
        swapsAxes ? ImageSize(width: s.height, height: s.width) : s
    }

    /// Where the display pixel (x, y) sits in the stored image.
    public func storedPixel(x: Int, y: Int, storedSize s: ImageSize) -> (x: Int, y: Int) {
        let w = s.width - 1
        let h = s.height - 1
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (w - x, y)
        case .down: return (w - x, h - y)
        case .downMirrored: return (x, h - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, h - x)
        case .rightMirrored: return (w - y, h - x)
        case .left: return (w - y, x)
        }
    }

    /// Where the display point `p` lies in the stored image, in continuous pixel coordinates (a pixel's centre
    /// at + 0.5): `storedPixel` for points.
    package func storedPoint(_ p: Point, storedSize s: ImageSize) -> Point {
        let w = Double(s.width)
        let h = Double(s.height)
        switch self {
        case .up: return p
        case .upMirrored: return Point(x: w - p.x, y: p.y)
        case .down: return Point(x: w - p.x, y: h - p.y)
        case .downMirrored: return Point(x: p.x, y: h - p.y)
        case .leftMirrored: return Point(x: p.y, y: p.x)
        case .right: return Point(x: p.y, y: h - p.x)
        case .rightMirrored: return Point(x: w - p.y, y: h - p.x)
        case .left: return Point(x: w - p.y, y: p.x)
        }
    }

    /// The stored-image rectangle holding the display rectangle `r`, so a crop can be cut from the stored
    /// pixels and then turned upright.
    public func storedRect(forDisplay r: PixelRect, storedSize s: ImageSize) -> PixelRect {
        let a = storedPixel(x: r.x, y: r.y, storedSize: s)
        let b = storedPixel(x: r.x + r.width - 1, y: r.y + r.height - 1, storedSize: s)
        return PixelRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
    }
}
