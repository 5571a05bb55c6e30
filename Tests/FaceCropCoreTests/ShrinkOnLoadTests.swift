import FaceCropCore
import Testing

/// Shrink-on-load factors: the largest of 8, 4, 2 that leaves `headroom` times the target on both axes.
@Test(arguments: [
    // (source, target, headroom, factor)
    (ImageSize(width: 4000, height: 3000), ImageSize(width: 1920, height: 1080), 2.0, 1),  // 2.08x: no room for 2 with headroom
    (ImageSize(width: 4000, height: 3000), ImageSize(width: 1920, height: 1080), 1.0, 2),  // without headroom, 2
    (ImageSize(width: 8000, height: 6000), ImageSize(width: 1920, height: 1080), 2.0, 2),  // 4.2x: 2
    (ImageSize(width: 16000, height: 9000), ImageSize(width: 1000, height: 562), 2.0, 8),  // 16x: 8
    (ImageSize(width: 16000, height: 9000), ImageSize(width: 1000, height: 563), 2.0, 4),  // a pixel short of 16x vertically: 4
    (ImageSize(width: 3000, height: 4000), ImageSize(width: 600, height: 600), 2.0, 2),  // the shorter axis decides
    (ImageSize(width: 100, height: 100), ImageSize(width: 200, height: 200), 1.0, 1),  // enlarging: 1
    (ImageSize(width: 100, height: 100), ImageSize(width: 0, height: 50), 1.0, 1),  // degenerate target
    (ImageSize(width: 100, height: 100), ImageSize(width: 10, height: 10), 0.0, 1),  // degenerate headroom
])
func shrinkOnLoadFactor(_ source: ImageSize, _ target: ImageSize, _ headroom: Double, _ expected: Int) {
    #expect(ShrinkOnLoad.factor(from: source, to: target, headroom: headroom) == expected)
}

/// The detector's copy: long side `box`, no headroom needed.
@Test(arguments: [
    (ImageSize(width: 4000, height: 3000), 640, 4),  // 1000x750 decoded, then resized to 640x480
    (ImageSize(width: 6000, height: 4000), 640, 8),  // 750x500
    (ImageSize(width: 1600, height: 900), 640, 2),  // 800x450
    (ImageSize(width: 1000, height: 700), 640, 1),
    (ImageSize(width: 500, height: 375), 640, 1),  // small images are enlarged, never shrunk
    (ImageSize(width: 0, height: 0), 640, 1),
])
func detectionShrinkFactor(_ source: ImageSize, _ box: Int, _ expected: Int) {
    #expect(ShrinkOnLoad.factor(from: source, box: box, headroom: ShrinkOnLoad.detectionHeadroom) == expected)
}
