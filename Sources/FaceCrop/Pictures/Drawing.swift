// Pictures for people: packed RGB images drawn on with COpenCV's OpenCV drawing (antialiased lines,
// the Hershey font), read from and written to files with libvips.
import COpenCV
import CVipsShim
import FaceCropCore

/// An 8-bit colour.
public struct Color: Hashable, Sendable {
    /// Red, green and blue, 0...255.
    public var r, g, b: UInt8
    /// The colour of red `r`, green `g` and blue `b`.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { (self.r, self.g, self.b) = (r, g, b) }

    /// White: contact sheets' background.
    public static let white = Color(255, 255, 255)
    /// Black: captions and score labels.
    public static let black = Color(0, 0, 0)
    /// Green: a capture quality of 0.6 or more, a face without a score, a contact sheet's highlighted tile.
    public static let good = Color(46, 204, 64)  // green
    /// Amber: a capture quality from 0.3 to under 0.6.
    public static let fair = Color(255, 176, 0)  // amber
    /// Red: a capture quality under 0.3.
    public static let poor = Color(230, 40, 40)  // red
    /// Cyan: landmark outlines and points.
    public static let landmarks = Color(0, 200, 255)  // cyan
    /// Magenta: the planned crop.
    public static let crop = Color(255, 0, 200)  // magenta
    /// Grey: faces under the minimum quality, left out of the crop.
    public static let ignored = Color(160, 160, 160)  // grey: below --min-quality

    /// Green, amber or red for a capture quality score.
    package static func forScore(_ score: Double) -> Color { score >= 0.6 ? .good : score >= 0.3 ? .fair : .poor }

    var components: [UInt8] { [r, g, b] }
}

/// Packed 8-bit RGB pixels, origin top-left, rows without padding.
public struct RGBImage: Hashable, Sendable {
    /// Width in pixels. Set only with `pixels` (by this module's drawing), so the three always agree.
    public internal(set) var width: Int
    /// Height in pixels.
    public internal(set) var height: Int
    /// `width * height * 3` bytes: red, green and blue of each pixel, row by row.
    public internal(set) var pixels: [UInt8]

    /// The image of `pixels`; `.invalidSetting` unless both sides are positive, the pixels at most
    /// `FaceCropper.defaultMaxPixels`, and `pixels` holds `width * height * 3` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) throws(FaceCropError) {
        try Self.checkSize(width: width, height: height)
        guard pixels.count == width * height * 3 else {
            throw .invalidSetting("RGBImage: \(pixels.count) bytes for \(width)x\(height) pixels (\(width * height * 3) needed)")
        }
        self.init(trusted: width, height: height, pixels: pixels)
    }

    /// An image of one colour; `.invalidSetting` unless both sides are positive and the pixels at most
    /// `FaceCropper.defaultMaxPixels`.
    public init(width: Int, height: Int, fill: Color) throws(FaceCropError) {
        try Self.checkSize(width: width, height: height)
        self.init(trusted: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 3))
        self.fill(PixelRect(x: 0, y: 0, width: width, height: height), color: fill)
    }

    /// Pixels this module made to size.
    init(trusted width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3, "RGBImage: \(pixels.count) bytes for \(width)x\(height)")
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }

    private static func checkSize(width: Int, height: Int) throws(FaceCropError) {
        let limit = FaceCropper.defaultMaxPixels
        guard width > 0, height > 0, let area = checkedProduct(width, height), area <= limit else {
            throw .invalidSetting("RGBImage: \(width)x\(height) pixels (each side at least 1, at most \(limit) in all)")
        }
    }

    init(_ image: VipsImage) throws(VipsError) {
        do {
            self = try image.withRGB8 { rgb, w, h in RGBImage(trusted: w, height: h, pixels: Array(UnsafeBufferPointer(start: rgb, count: w * h * 3))) }
        } catch let error as VipsError {
            throw error
        } catch {
            throw VipsError(kind: .other, message: "\(error)")
        }
    }

    /// An analysed image upright (EXIF orientation applied), shrunk to fit a `box` x `box` square when larger,
    /// from the pixels the analysis chose (`Analysis.pixels`): those in memory, else the input read again.
    init(_ analysis: Analysis, fitting box: Int) throws(FaceCropError) {
        do {
            self = try RGBImage(analysis.pixels.upright(fitting: box, size: analysis.size))
        } catch {
            switch analysis.pixels {
            case .decoded: throw .imageProcessing(error.message)
            case .encoded(let input): throw FaceCropper.readError(input, error)
            }
        }
    }

    var vipsImage: VipsImage {
        get throws(VipsError) {
            let (w, h) = (try cInt(width), try cInt(height))
            return try pixels.withUnsafeBufferPointer { p throws(VipsError) in try VipsImage.make { fc_from_rgb8(p.baseAddress, w, h, $0) } }
        }
    }

    /// Resized (lanczos3) so that it fits a `box` x `box` square; unchanged when it already does.
    public func fitting(_ box: Int) throws(FaceCropError) -> RGBImage {
        guard let (w, h) = fittingSize(box) else { return self }
        do { return try RGBImage(vipsImage.resized(width: w, height: h)) } catch { throw .imageProcessing(error.message) }
    }

    /// Shrunk by area (OpenCV) so that it fits a `box` x `box` square; unchanged when it already does. A little
    /// softer than `fitting`, and a small fraction of its cost: for many small thumbnails, such as the frames of
    /// a contact sheet.
    public func thumbnail(_ box: Int) throws(FaceCropError) -> RGBImage {
        guard let (w, h) = fittingSize(box) else { return self }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let rc = pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { ocv_shrink_rgb(p.baseAddress, Int32(width), Int32(height), $0.baseAddress, Int32(w), Int32(h)) }
        }
        guard rc == 0 else { throw .imageProcessing("a \(width)x\(height) picture could not be shrunk to \(w)x\(h)") }
        return RGBImage(trusted: w, height: h, pixels: out)
    }

    /// The size that fits a `box` x `box` square, or nil when this one already does.
    private func fittingSize(_ box: Int) -> (Int, Int)? {
        guard max(width, height) > box else { return nil }
        let scale = Double(box) / Double(max(width, height))
        return (clampedInt(Double(width) * scale, in: 1...max(1, box)), clampedInt(Double(height) * scale, in: 1...max(1, box)))
    }

    /// Writes atomically; the format follows the extension (.png, .jpg, ...). Refused (`outputTooLarge`) when the
    /// format's encoder would take more than `maxEncodeMemory` bytes (`ImageFormat.encoderMemory`).
    public func write(
        to path: String, quality: Int? = nil, inputs: InputSet = InputSet(), maxEncodeMemory: Int = FaceCropper.defaultMaxEncodeMemory
    ) throws(FaceCropError) {
        let format = try OutputCheck.writable(path, inputs: inputs)
        try OutputLimits.check(ImageSize(width: width, height: height), format: format, path: path, maxPixels: .max, maxEncodeMemory: maxEncodeMemory)
        try withVipsErrors(
            {
                let image = try vipsImage
                try AtomicFile.write(to: path) { tmp throws(VipsError) in
                    try image.save(to: tmp, format: format, quality: quality ?? format.defaultQuality, strip: true)
                }
            }, vips: { .writeFailed(path, detail: $0.message) })
    }

    // MARK: Drawing (coordinates in pixels, origin top-left; parts outside the image are clipped)

    /// A line through `points`, closed back to the first when `closed`; a single point is drawn as a dot.
    public mutating func stroke(_ points: [Point], closed: Bool, color: Color, thickness: Int = 2) {
        let xy = points.flatMap { [Float($0.x), Float($0.y)] }
        let (w, h) = (width, height)
        pixels.withUnsafeMutableBufferPointer { p in
            _ = ocv_draw_polyline(
                p.baseAddress, Int32(clamping: w), Int32(clamping: h), xy, Int32(clamping: points.count), closed ? 1 : 0, color.components,
                Int32(clamping: thickness))
        }
    }

    /// The outline of `r`.
    public mutating func stroke(_ r: Rect, color: Color, thickness: Int = 2) {
        stroke(
            [Point(x: r.minX, y: r.minY), Point(x: r.maxX, y: r.minY), Point(x: r.maxX, y: r.maxY), Point(x: r.minX, y: r.maxY)], closed: true, color: color,
            thickness: thickness)
    }

    /// Fills `r` with `color`.
    public mutating func fill(_ r: PixelRect, color: Color) {
        let (w, h) = (width, height)
        pixels.withUnsafeMutableBufferPointer { p in
            _ = ocv_fill_rect(
                p.baseAddress, Int32(clamping: w), Int32(clamping: h), Int32(clamping: r.x), Int32(clamping: r.y), Int32(clamping: r.width),
                Int32(clamping: r.height), color.components)
        }
    }

    /// The box `text` takes at `scale` (Hershey font: about 22 px tall at scale 1), descenders included.
    package static func textSize(_ text: String, scale: Double, thickness: Int = 1) -> (width: Int, height: Int) {
        var w: Int32 = 0
        var h: Int32 = 0
        var base: Int32 = 0
        ocv_text_size(ascii(text), scale, Int32(clamping: thickness), &w, &h, &base)
        return (Int(w), Int(h + base))
    }

    /// Text with its top-left corner at (x, y), on a filled box with `padding` around it when `background`
    /// is given. Non-ASCII characters are drawn as '?'. Returns the box drawn.
    @discardableResult
    public mutating func label(
        _ text: String, x: Int, y: Int, scale: Double, color: Color, background: Color? = nil, thickness: Int = 1, padding: Int = 0
    ) -> PixelRect {
        let size = Self.textSize(text, scale: scale, thickness: thickness)
        let box = PixelRect(x: x, y: y, width: size.width + 2 * padding, height: size.height + 2 * padding)
        if let background { fill(box, color: background) }
        let (w, h) = (width, height)
        pixels.withUnsafeMutableBufferPointer { p in
            _ = ocv_draw_text(
                p.baseAddress, Int32(clamping: w), Int32(clamping: h), Self.ascii(text), Int32(clamping: x + padding), Int32(clamping: y + padding), scale,
                Int32(clamping: thickness), color.components)
        }
        return box
    }

    /// Copies `image` with its top-left corner at (x, y), clipped to this image.
    public mutating func paste(_ image: RGBImage, x: Int, y: Int) {
        let x0 = max(0, x)
        let x1 = min(width, x + image.width)
        guard x0 < x1 else { return }
        for row in max(0, y)..<min(height, y + image.height) {
            let src = ((row - y) * image.width + (x0 - x)) * 3
            let dst = (row * width + x0) * 3
            pixels.replaceSubrange(dst..<dst + (x1 - x0) * 3, with: image.pixels[src..<src + (x1 - x0) * 3])
        }
    }

    static func ascii(_ text: String) -> String { String(text.unicodeScalars.map { $0.isASCII && $0.value >= 32 ? Character($0) : "?" }) }
}
