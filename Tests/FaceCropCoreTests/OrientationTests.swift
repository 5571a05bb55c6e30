import FaceCropCore
import Testing

struct OrientationTests {
    @Test(arguments: Orientation.allCases)
    func displaySizeSwapsForQuarterTurns(_ o: Orientation) {
        let d = o.displaySize(storedSize: ImageSize(width: 5, height: 3))
        #expect(d == (o.rawValue >= 5 ? ImageSize(width: 3, height: 5) : ImageSize(width: 5, height: 3)))
    }

    /// Where the stored image's top-left pixel shows up, per EXIF's definition of each orientation.
    @Test(arguments: [
        (Orientation.up, 0, 0), (.upMirrored, 4, 0), (.down, 4, 2), (.downMirrored, 0, 2),
        (.leftMirrored, 0, 0), (.right, 2, 0), (.rightMirrored, 2, 4), (.left, 0, 4),
    ])
    func storedOriginLandsWhereExifSays(_ o: Orientation, _ dx: Int, _ dy: Int) {
        let stored = ImageSize(width: 5, height: 3)
        let p = o.storedPixel(x: dx, y: dy, storedSize: stored)
        #expect(p.x == 0 && p.y == 0)
    }

    /// Every display rectangle maps to the stored rectangle holding exactly its pixels.
    @Test(arguments: Orientation.allCases)
    func storedRectHoldsExactlyTheDisplayPixels(_ o: Orientation) {
        let stored = ImageSize(width: 5, height: 3)
        let display = o.displaySize(storedSize: stored)
        for x in 0..<display.width {
            for y in 0..<display.height {
                for w in 1...(display.width - x) {
                    for h in 1...(display.height - y) {
                        let r = o.storedRect(forDisplay: PixelRect(x: x, y: y, width: w, height: h), storedSize: stored)
                        var mapped = Set<[Int]>()
                        for px in x..<(x + w) {
                            for py in y..<(y + h) {
                                let s = o.storedPixel(x: px, y: py, storedSize: stored)
                                mapped.insert([s.x, s.y])
                            }
                        }
                        var inRect = Set<[Int]>()
                        for sx in r.x..<(r.x + r.width) { for sy in r.y..<(r.y + r.height) { inRect.insert([sx, sy]) } }
                        #expect(mapped == inRect, "\(o) display \(x),\(y) \(w)x\(h) -> \(r)")
                    }
                }
            }
        }
    }
}
