import FaceCropCore

/// A contact sheet: thumbnails in a grid, each with caption lines under it; highlighted tiles get a
/// coloured frame. Used by `rank --sheet` and the best-frame picker.
public enum ContactSheet {
    public struct Tile: Sendable {
        public var image: RGBImage
        public var caption: [String]
        public var highlighted: Bool
        public init(image: RGBImage, caption: [String], highlighted: Bool = false) {
            (self.image, self.caption, self.highlighted) = (image, caption, highlighted)
        }
    }

    public static let defaultTileSize = 240

    /// Layout: thumbnails fit a `tileSize` square; `columns` defaults to about the square root of the count (at most 10).
    public static func render(_ tiles: [Tile], tileSize: Int = defaultTileSize, columns: Int? = nil) throws(FaceCropError) -> RGBImage {
        let padding = 10, frame = 4
        let scale = Double(tileSize) / 600  // 0.4 at 240 px: about 9 px capitals
        let lineHeight = RGBImage.textSize("Ag", scale: scale).height + 4
        let lines = max(1, tiles.map(\.caption.count).max() ?? 1)
        let count = max(1, tiles.count)
        let cols = max(1, min(count, columns ?? min(10, Int(Double(count).squareRoot().rounded(.up)))))
        let rows = (count + cols - 1) / cols
        let cellWidth = tileSize + 2 * padding, cellHeight = tileSize + 2 * padding + lines * lineHeight
        var sheet = RGBImage(width: cols * cellWidth + padding, height: rows * cellHeight + padding, fill: .white)
        for (i, tile) in tiles.enumerated() {
            let x = padding + (i % cols) * cellWidth, y = padding + (i / cols) * cellHeight
            let thumb = try tile.image.fitting(tileSize)
            let tx = x + padding + (tileSize - thumb.width) / 2, ty = y + padding + (tileSize - thumb.height) / 2
            sheet.fill(PixelRect(x: x + padding, y: y + padding, width: tileSize, height: tileSize), colour: Colour(235, 235, 235))
            sheet.paste(thumb, x: tx, y: ty)
            if tile.highlighted {
                sheet.stroke(PixelRect(x: x + frame / 2, y: y + frame / 2, width: cellWidth - frame, height: cellHeight - frame).rect, colour: .good, thickness: frame)
            }
            for (n, line) in tile.caption.enumerated() {
                sheet.label(fitted(line, width: tileSize, scale: scale), x: x + padding, y: y + 2 * padding + tileSize - 4 + n * lineHeight, scale: scale, colour: .black)
            }
        }
        return sheet
    }

    /// Renders and writes atomically; the format follows the extension.
    public static func write(_ tiles: [Tile], to path: String, tileSize: Int = defaultTileSize, columns: Int? = nil, quality: Int? = nil) throws(FaceCropError) {
        try render(tiles, tileSize: tileSize, columns: columns).write(to: path, quality: quality)
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
