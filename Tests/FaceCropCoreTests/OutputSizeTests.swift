import FaceCropCore
import Testing

/// Output sizes: asked, or (without enlargement) shrunk at the asked aspect to fit the crop.
@Test(arguments: [
    // (asked, crop, withoutEnlargement, expected)
    (OutputSize.exact(width: 1600, height: 900), ImageSize(width: 461, height: 259), false, ImageSize(width: 1600, height: 900)),
    (OutputSize.exact(width: 1600, height: 900), ImageSize(width: 461, height: 259), true, ImageSize(width: 460, height: 259)),  // 16:9 inside 461x259, rounded
    (OutputSize.exact(width: 400, height: 225), ImageSize(width: 461, height: 259), true, ImageSize(width: 400, height: 225)),  // fits: as asked
    (OutputSize.exact(width: 461, height: 259), ImageSize(width: 461, height: 259), true, ImageSize(width: 461, height: 259)),  // equal: as asked
    (OutputSize.width(800), ImageSize(width: 400, height: 300), false, ImageSize(width: 800, height: 600)),
    (OutputSize.width(800), ImageSize(width: 400, height: 300), true, ImageSize(width: 400, height: 300)),
    (OutputSize.width(200), ImageSize(width: 400, height: 300), true, ImageSize(width: 200, height: 150)),
    (nil, ImageSize(width: 400, height: 300), true, ImageSize(width: 400, height: 300)),
    (OutputSize.exact(width: 1000, height: 10), ImageSize(width: 50, height: 50), true, ImageSize(width: 50, height: 1)),  // never below 1
    (OutputSize.exact(width: 10_000_000, height: 10_000_000), ImageSize(width: 3, height: 2), true, ImageSize(width: 2, height: 2)),
    (OutputSize.width(10_000_000), ImageSize(width: 1, height: 10_000_000), false, ImageSize(width: 10_000_000, height: 100_000_000_000_000)),
])
func outputSizes(_ asked: OutputSize?, _ crop: ImageSize, _ withoutEnlargement: Bool, _ expected: ImageSize) {
    #expect(OutputSize.resolve(asked, crop: crop, withoutEnlargement: withoutEnlargement) == expected)
}
