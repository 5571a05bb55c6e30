/// Conversions between Vision-style normalized coordinates and pixel coordinates.
///
/// Normalized coordinates are Apple Vision's: 0...1 on both axes with the origin at the **bottom-left** of
/// the image. Pixel coordinates have the origin at the **top-left** of the full-resolution upright image,
/// y growing downwards — what image libraries (libvips, OpenCV) use. For an image of W × H pixels:
///
///     pixel.x = x · W        pixel.y = (1 − y − h) · H        pixel.w = w · W        pixel.h = h · H
///
/// (Vision's own `VNImageRectForNormalizedRect` scales without flipping; these functions also flip.)
public enum Coordinates {
    /// The pixel rectangle (origin top-left) of the normalized `r` (origin bottom-left) in an image of `imageSize`:
    /// (x·W, (1 − y − h)·H, w·W, h·H). Not clamped: a rectangle reaching outside the image stays outside.
    public static func pixelRect(forNormalized r: Rect, imageSize: ImageSize) -> Rect {
        let w = Double(imageSize.width)
        let h = Double(imageSize.height)
        return Rect(x: r.x * w, y: (1 - r.y - r.height) * h, width: r.width * w, height: r.height * h)
    }

    /// The normalized rectangle (origin bottom-left) of the pixel rectangle `r` (origin top-left) in an image of
    /// `imageSize`: (x / W, 1 − (y + h) / H, w / W, h / H). Not clamped; an image with no width or height gives
    /// infinities or NaN.
    public static func normalizedRect(forPixel r: Rect, imageSize: ImageSize) -> Rect {
        let w = Double(imageSize.width)
        let h = Double(imageSize.height)
        return Rect(x: r.x / w, y: 1 - (r.y + r.height) / h, width: r.width / w, height: r.height / h)
    }

    /// The pixel point (origin top-left) of the normalized `p` (origin bottom-left): (x·W, (1 − y)·H).
    public static func pixelPoint(forNormalized p: Point, imageSize: ImageSize) -> Point {
        Point(x: p.x * Double(imageSize.width), y: (1 - p.y) * Double(imageSize.height))
    }

    /// The normalized point (origin bottom-left) of the pixel point `p` (origin top-left): (x / W, 1 − y / H).
    /// An image with no width or height gives infinities or NaN.
    public static func normalizedPoint(forPixel p: Point, imageSize: ImageSize) -> Point {
        Point(x: p.x / Double(imageSize.width), y: 1 - p.y / Double(imageSize.height))
    }
}
