import FaceCropCore

/// A contact sheet: thumbnails in a grid, each with caption lines under it; highlighted tiles get a
/// coloured frame. Used by `rank --sheet` and the best-frame picker.
public enum ContactSheet {
    /// One picture of a sheet with its caption lines; a highlighted tile is framed in green.
    public struct Tile: Sendable {
        /// The picture, shrunk to fit the tile when larger.
        public var image: RGBImage
        /// Lines under the picture, each shortened in the middle to fit the tile's width; non-ASCII characters are
        /// drawn as "?".
        public var caption: [String]
        /// Framed in green: the best image, the chosen frame.
        public var highlighted: Bool
        /// A tile, not highlighted unless asked.
        public init(image: RGBImage, caption: [String], highlighted: Bool = false) {
            (self.image, self.caption, self.highlighted) = (image, caption, highlighted)
        }
    }

    /// Side in pixels of the square each thumbnail fits unless asked otherwise; `write` shrinks it when a sheet of many
    /// tiles would be over `maxSheetPixels`.
    public static let defaultTileSize = 240
    /// Sheets are at most this many pixels (96 MB of RGB, as much again while libvips encodes it): with many
    /// tiles, the tiles shrink (down to `minTileSize`); a sheet that still does not fit is refused.
    public static let maxSheetPixels = 32_000_000
    /// The smallest tile side, in pixels: the least `render` accepts, and as far as `write` shrinks tiles.
    public static let minTileSize = 32
    /// The largest tile side `render` accepts, in pixels.
    public static let maxTileSize = 1024

    /// The tile size that keeps a sheet of `count` tiles within `maxSheetPixels`: `preferred` when it fits.
    package static func tileSize(for count: Int, preferred: Int = defaultTileSize) -> Int {
        var size = max(minTileSize, preferred)
        while size > minTileSize, (sheetPixels(count: count, tileSize: size, lines: 3) ?? .max) > maxSheetPixels {
            size = max(minTileSize, size * 7 / 8)
        }
        return size
    }

    /// Refuses a sheet of `count` tiles (at `tileSize(for:)`, three caption lines) over `maxSheetPixels` or, in
    /// its format, over `maxEncodeMemory` (`ImageFormat.encoderMemory`): before any work, so that the thumbnails
    /// kept for it are bounded too.
    package static func check(count: Int, path: String, maxEncodeMemory: Int) throws(FaceCropError) {
        let size = try check(layout(count: count, tileSize: tileSize(for: count), lines: 3), count: count, path: path)
        if let format = ImageFormat(path: path) {
            try OutputLimits.check(size, format: format, path: path, maxPixels: .max, maxEncodeMemory: maxEncodeMemory)
        }
    }

    @discardableResult
    private static func check(_ l: (cols: Int, rows: Int, cellWidth: Int, cellHeight: Int, lineHeight: Int), count: Int, path: String) throws(FaceCropError)
        -> ImageSize
    {
        let (width, height) = (l.cols * l.cellWidth + 10, l.rows * l.cellHeight + 10)
        guard let pixels = checkedProduct(width, height), pixels <= maxSheetPixels else {
            throw .outputTooLarge(
                path, width: width, height: height,
                reason: "over the limit of \(maxSheetPixels) pixels for a contact sheet (\(count) tiles); give fewer inputs or frames")
        }
        return ImageSize(width: width, height: height)
    }

    static func columns(count: Int, requested: Int?) -> Int {
        // A square grid by default (10 columns for 100 tiles), so the sheet does not grow into a tall strip.
        max(1, min(count, requested ?? Int(Double(count).squareRoot().rounded(.up))))
    }

    static func layout(count: Int, tileSize: Int, lines: Int, columns: Int? = nil) -> (cols: Int, rows: Int, cellWidth: Int, cellHeight: Int, lineHeight: Int) {
        let padding = 10
        let lineHeight = RGBImage.textSize("Ag", scale: Double(tileSize) / 600).height + 4
        let cols = Self.columns(count: max(1, count), requested: columns)
        let rows = max(1, count) / cols + (max(1, count) % cols == 0 ? 0 : 1)  // no overflow near Int.max
        return (cols, rows, tileSize + 2 * padding, tileSize + 2 * padding + lines * lineHeight, lineHeight)
    }

    /// Width x height of a sheet, or nil when it does not even fit in an Int.
    static func sheetPixels(count: Int, tileSize: Int, lines: Int, columns: Int? = nil) -> Int? {
        let l = layout(count: count, tileSize: tileSize, lines: lines, columns: columns)
        return checkedProduct(l.cols * l.cellWidth + 10, l.rows * l.cellHeight + 10)
    }

    /// Layout: thumbnails fit a `tileSize` square; `columns` defaults to the square root of the count, rounded up.
    public static func render(_ tiles: [Tile], tileSize: Int = defaultTileSize, columns: Int? = nil) throws(FaceCropError) -> RGBImage {
        try checkSetting(tileSize, (minTileSize...maxTileSize, "an integer from \(minTileSize) to \(maxTileSize)"), "the contact sheet's tile size")
        if let columns { try checkSetting(columns, (1...Int.max, "a positive integer"), "the contact sheet's columns") }
        let padding = 10
        let frame = 4
        let scale = Double(tileSize) / 600  // 0.4 at 240 px: about 9 px capitals
        let lines = max(1, tiles.map(\.caption.count).max() ?? 1)
        let l = layout(count: tiles.count, tileSize: tileSize, lines: lines, columns: columns)
        try check(l, count: tiles.count, path: "contact sheet")
        let (cols, cellWidth, cellHeight, lineHeight) = (l.cols, l.cellWidth, l.cellHeight, l.lineHeight)
        let (width, height) = (cols * cellWidth + padding, l.rows * cellHeight + padding)
        var sheet = try RGBImage(width: width, height: height, fill: .white)
        for (i, tile) in tiles.enumerated() {
            let x = padding + (i % cols) * cellWidth
            let y = padding + (i / cols) * cellHeight
            let thumb = try tile.image.fitting(tileSize)
            let tx = x + padding + (tileSize - thumb.width) / 2
            let ty = y + padding + (tileSize - thumb.height) / 2
            sheet.fill(PixelRect(x: x + padding, y: y + padding, width: tileSize, height: tileSize), color: Color(235, 235, 235))
            sheet.paste(thumb, x: tx, y: ty)
            if tile.highlighted {
                sheet.stroke(
                    PixelRect(x: x + frame / 2, y: y + frame / 2, width: cellWidth - frame, height: cellHeight - frame).rect, color: .good, thickness: frame)
            }
            for (n, line) in tile.caption.enumerated() {
                sheet.label(
                    fitted(line, width: tileSize, scale: scale), x: x + padding, y: y + 2 * padding + tileSize - 4 + n * lineHeight, scale: scale,
                    color: .black)
            }
        }
        return sheet
    }

    /// Renders and writes atomically; the format follows the extension.
    public static func write(
        _ tiles: [Tile], to path: String, tileSize: Int = defaultTileSize, columns: Int? = nil, quality: Int? = nil, inputs: InputSet = InputSet(),
        maxEncodeMemory: Int = FaceCropper.defaultMaxEncodeMemory
    ) throws(FaceCropError) {
        try OutputCheck.writable(path, inputs: inputs)
        let size = tileSize == defaultTileSize ? Self.tileSize(for: tiles.count) : tileSize
        try render(tiles, tileSize: size, columns: columns).write(to: path, quality: quality, inputs: inputs, maxEncodeMemory: maxEncodeMemory)
    }

    /// The line shortened in the middle ("long…name.jpg") until it fits `width` pixels.
    static func fitted(_ text: String, width: Int, scale: Double) -> String {
        var chars = Array(RGBImage.ascii(text))
        guard RGBImage.textSize(String(chars), scale: scale).width > width else { return String(chars) }
        while chars.count > 4 {
            chars.remove(at: chars.count / 2)
            let half = chars.count / 2
            let candidate = String(chars[..<half]) + ".." + String(chars[half...])
            if RGBImage.textSize(candidate, scale: scale).width <= width { return candidate }
        }
        return String(chars)
    }
}
