import FaceCropCore
import Testing

struct CoordinatesTests {
    struct RectRow: Sendable, CustomTestStringConvertible {
        let normalized: Rect, size: ImageSize, pixel: Rect
        var testDescription: String { "\(normalized) in \(size.width)x\(size.height)" }
    }

    static let rects: [RectRow] = [
        // x·W, (1 − y − h)·H, w·W, h·H
        RectRow(normalized: Rect(x: 0, y: 0, width: 1, height: 1), size: ImageSize(width: 640, height: 480), pixel: Rect(x: 0, y: 0, width: 640, height: 480)),
        RectRow(
            normalized: Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.25), size: ImageSize(width: 400, height: 200),
            pixel: Rect(x: 100, y: 50, width: 200, height: 50)),
        // A box at the bottom-left in Vision is at the bottom-left in pixels too: large y.
        RectRow(
            normalized: Rect(x: 0, y: 0, width: 0.1, height: 0.1), size: ImageSize(width: 1000, height: 500), pixel: Rect(x: 0, y: 450, width: 100, height: 50)),
        RectRow(
            normalized: Rect(x: 0.9, y: 0.9, width: 0.1, height: 0.1), size: ImageSize(width: 1000, height: 500),
            pixel: Rect(x: 900, y: 0, width: 100, height: 50)),
        // Degenerate: zero size, and a 1x1 image.
        RectRow(normalized: Rect(x: 0.5, y: 0.5, width: 0, height: 0), size: ImageSize(width: 10, height: 10), pixel: Rect(x: 5, y: 5, width: 0, height: 0)),
        RectRow(normalized: Rect(x: 0, y: 0, width: 1, height: 1), size: ImageSize(width: 1, height: 1), pixel: Rect(x: 0, y: 0, width: 1, height: 1)),
        // Out of range values stay linear (detections may poke out of the image).
        RectRow(
            normalized: Rect(x: -0.1, y: 0.95, width: 0.2, height: 0.1), size: ImageSize(width: 100, height: 100),
            pixel: Rect(x: -10, y: -5, width: 20, height: 10)),
    ]

    @Test(arguments: rects)
    func normalizedToPixelAndBack(_ row: RectRow) {
        expectClose(Coordinates.pixelRect(forNormalized: row.normalized, imageSize: row.size), row.pixel)
        expectClose(Coordinates.normalizedRect(forPixel: row.pixel, imageSize: row.size), row.normalized)
    }

    struct PointRow: Sendable {
        let normalized: Point, size: ImageSize, pixel: Point
    }

    static let points: [PointRow] = [
        PointRow(normalized: Point(x: 0, y: 0), size: ImageSize(width: 200, height: 100), pixel: Point(x: 0, y: 100)),
        PointRow(normalized: Point(x: 0, y: 1), size: ImageSize(width: 200, height: 100), pixel: Point(x: 0, y: 0)),
        PointRow(normalized: Point(x: 0.25, y: 0.75), size: ImageSize(width: 200, height: 100), pixel: Point(x: 50, y: 25)),
        PointRow(normalized: Point(x: 1, y: 0.5), size: ImageSize(width: 3, height: 3), pixel: Point(x: 3, y: 1.5)),
    ]

    @Test(arguments: points)
    func pointsConvertBothWays(_ row: PointRow) {
        let p = Coordinates.pixelPoint(forNormalized: row.normalized, imageSize: row.size)
        #expect(abs(p.x - row.pixel.x) < 1e-9 && abs(p.y - row.pixel.y) < 1e-9)
        let n = Coordinates.normalizedPoint(forPixel: row.pixel, imageSize: row.size)
        #expect(abs(n.x - row.normalized.x) < 1e-9 && abs(n.y - row.normalized.y) < 1e-9)
    }

    @Test func observationGivesPixelBoxAndLandmarks() {
        let size = ImageSize(width: 400, height: 200)
        let face = FaceObservation(
            boundingBox: Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.25), confidence: 0.9,
            landmarks: FaceLandmarks(
                rightEye: Point(x: 0.3, y: 0.7), leftEye: Point(x: 0.6, y: 0.7), nose: Point(x: 0.45, y: 0.6),
                mouthRight: Point(x: 0.35, y: 0.55), mouthLeft: Point(x: 0.55, y: 0.55)))
        expectClose(face.boundingBox(in: size), Rect(x: 100, y: 50, width: 200, height: 50))
        let points = face.landmarks!.points(in: size)
        #expect(points.count == 5)
        #expect(abs(points[0].x - 120) < 1e-9 && abs(points[0].y - 60) < 1e-9)
    }
}

func expectClose(_ a: Rect, _ b: Rect, tolerance: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance && abs(a.width - b.width) <= tolerance
            && abs(a.height - b.height) <= tolerance, "\(a) != \(b)", sourceLocation: sourceLocation)
}

/// Intersection over union, as detections are matched to known faces.
@Test(arguments: [
    (Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 0, y: 0, width: 10, height: 10), 1.0),  // the same
    (Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 5, y: 0, width: 10, height: 10), 50.0 / 150),  // half overlap
    (Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 2, y: 2, width: 5, height: 5), 0.25),  // inside
    (Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 10, y: 0, width: 10, height: 10), 0.0),  // touching
    (Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 30, y: 30, width: 5, height: 5), 0.0),  // apart
    (Rect(x: 0, y: 0, width: 0, height: 0), Rect(x: 0, y: 0, width: 0, height: 0), 0.0),  // empty
])
func intersectionOverUnion(_ a: Rect, _ b: Rect, _ expected: Double) {
    #expect(abs(a.iou(b) - expected) < 1e-12 && abs(b.iou(a) - expected) < 1e-12)
}

/// The pixels holding a rectangle, within the image: rounded outward, cut at the edges, zero-size outside.
@Test(arguments: [
    // (rect, expected)
    (Rect(x: 10, y: 5, width: 30, height: 40), PixelRect(x: 10, y: 5, width: 30, height: 40)),
    (Rect(x: 10.6, y: 5.2, width: 29.1, height: 39.5), PixelRect(x: 10, y: 5, width: 30, height: 40)),
    (Rect(x: -5, y: -5, width: 20, height: 20), PixelRect(x: 0, y: 0, width: 15, height: 15)),
    (Rect(x: 90, y: 40, width: 20, height: 20), PixelRect(x: 90, y: 40, width: 10, height: 10)),
    (Rect(x: 200, y: 0, width: 10, height: 10), PixelRect(x: 0, y: 0, width: 0, height: 0)),
    (Rect(x: .nan, y: 0, width: 10, height: 10), PixelRect(x: 0, y: 0, width: 0, height: 0)),
    (Rect(x: 0, y: 0, width: .infinity, height: 1e300), PixelRect(x: 0, y: 0, width: 100, height: 50)),
])
func enclosingPixels(_ rect: Rect, _ expected: PixelRect) {
    #expect(rect.enclosingPixels(in: ImageSize(width: 100, height: 50)) == expected)
}
