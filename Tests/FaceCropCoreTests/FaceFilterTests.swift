import FaceCropCore
import Testing

/// What cannot be a face is dropped: one row per face, in a 640x480 image.
@Test(arguments: [
    // (box, score, landmarks, kept)
    (Rect(x: 100, y: 100, width: 50, height: 60), 0.9, nil as [Point]?, true),
    (Rect(x: 100, y: 100, width: 50, height: 60), 0.9, [Point(x: 110, y: 120), Point(x: 140, y: 120)], true),
    (Rect(x: -40, y: -40, width: 50, height: 50), 0.9, nil, true),  // partly outside: kept
    (Rect(x: 630, y: 470, width: 50, height: 50), 0.9, nil, true),  // one corner inside
    (Rect(x: 640, y: 100, width: 50, height: 50), 0.9, nil, false),  // touches the right edge from outside
    (Rect(x: -50, y: 100, width: 50, height: 50), 0.9, nil, false),  // touches the left edge from outside
    (Rect(x: 100, y: 900, width: 50, height: 50), 0.9, nil, false),  // below the image
    (Rect(x: 100, y: 100, width: 0, height: 50), 0.9, nil, false),  // empty
    (Rect(x: 100, y: 100, width: 50, height: -5), 0.9, nil, false),  // negative
    (Rect(x: 0, y: 0, width: 10, height: 1e28), 0.9, nil, true),  // huge but finite and overlapping: kept here (the planner clamps)
    (Rect(x: .nan, y: 100, width: 50, height: 50), 0.9, nil, false),
    (Rect(x: 100, y: 100, width: .infinity, height: 50), 0.9, nil, false),
    (Rect(x: 100, y: 100, width: 50, height: 50), .nan, nil, false),  // score not a number
    (Rect(x: 100, y: 100, width: 50, height: 50), 0.9, [Point(x: .infinity, y: 0)], false),  // a landmark not finite
    (Rect(x: 100, y: 100, width: 50, height: 50), 0.9, [], true),  // no landmark points
])
func plausibleFaces(_ box: Rect, _ score: Double, _ landmarks: [Point]?, _ kept: Bool) {
    let face = DetectedFace(box: box, score: score, landmarks: landmarks)
    #expect(FaceFilter.plausible([face], in: ImageSize(width: 640, height: 480)).count == (kept ? 1 : 0))
}

@Test func plausibleKeepsOrderAndDropsOnlyTheImpossible() {
    let a = DetectedFace(box: Rect(x: 10, y: 10, width: 20, height: 20), score: 0.5)
    let b = DetectedFace(box: Rect(x: .nan, y: 10, width: 20, height: 20), score: 0.9)
    let c = DetectedFace(box: Rect(x: 50, y: 10, width: 20, height: 20), score: 0.7)
    #expect(FaceFilter.plausible([a, b, c], in: ImageSize(width: 100, height: 100)) == [a, c])
    #expect(FaceFilter.plausible([], in: ImageSize(width: 100, height: 100)).isEmpty)
    #expect(FaceFilter.plausible([a], in: ImageSize(width: 0, height: 0)).isEmpty)  // an empty image holds no face
}

/// Haar's faces under 80 % of the best score are dropped; the other detectors' are all kept.
@Test(arguments: [
    // (detector, scores, kept scores)
    (DetectorKind.haar, [1.0, 0.8, 0.79], [1.0, 0.8]),  // 80 % of the best is kept, just under is not
    (.haar, [10.0, 3.0, 9.0], [10.0, 9.0]),  // Haar's scores are not 0...1
    (.haar, [0.5], [0.5]),
    (.haar, [], []),
    (.haar, [0.0, 0.0], [0.0, 0.0]),  // a best of 0 keeps every face scoring 0
    (.haar, [-1.0, -2.0], []),  // a negative best drops every face: 80 % of it is above it
    (.yunet, [1.0, 0.1], [1.0, 0.1]),
    (.centerface, [0.9, 0.2, 0.05], [0.9, 0.2, 0.05]),
])
func weakHaarFacesDropped(_ kind: DetectorKind, _ scores: [Double], _ kept: [Double]) {
    let faces = scores.enumerated().map { i, s in DetectedFace(box: Rect(x: Double(i) * 10, y: 0, width: 10, height: 10), score: s) }
    #expect(FaceFilter.dropWeak(faces, kind: kind).map(\.score) == kept)
}
