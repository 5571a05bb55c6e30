import Testing

@testable import FaceCropCore

/// A face whose mouth lies `(dx, dy)` from its eyes (image pixels, y down), in `allPoints` order: right eye,
/// left eye, nose, mouth right, mouth left.
private func face(mouthFromEyes dx: Double, _ dy: Double) -> DetectedFace {
    let eyes = Point(x: 100, y: 100)
    let mouth = Point(x: eyes.x + dx, y: eyes.y + dy)
    // The eyes and the mouth corners lie across the eyes-to-mouth line.
    let across = Point(x: -dy / 4, y: dx / 4)
    return DetectedFace(
        box: Rect(x: 50, y: 50, width: 100, height: 100), score: 0.9,
        landmarks: [
            Point(x: eyes.x - across.x, y: eyes.y - across.y), Point(x: eyes.x + across.x, y: eyes.y + across.y),
            Point(x: (eyes.x + mouth.x) / 2, y: (eyes.y + mouth.y) / 2),
            Point(x: mouth.x - across.x / 2, y: mouth.y - across.y / 2), Point(x: mouth.x + across.x / 2, y: mouth.y + across.y / 2),
        ])
}

/// Which way the faces say the picture turns upright: one row per set of faces, by their eyes-to-mouth directions.
@Test(arguments: [
    // (directions, orientation that shows them upright)
    ([(0.0, 40.0)], nil as Orientation?),  // upright
    ([(-40.0, 0.0)], .left),  // mouth left of the eyes: the picture was turned clockwise; shown turned back
    ([(40.0, 0.0)], .right),
    ([(0.0, -40.0)], .down),  // upside down
    ([(-40.0, 10.0), (-35.0, -8.0), (-40.0, 0.0)], .left),  // rolled a little either way
    ([(30.0, 30.0)], nil),  // at 45°: counts as upright
    ([(-40.0, 0.0), (0.0, 40.0)], nil),  // one of two: not more than half
    ([(-40.0, 0.0), (-40.0, 0.0), (0.0, 40.0)], .left),  // two of three
    ([(-40.0, 0.0), (40.0, 0.0), (0.0, -40.0)], nil),  // no majority
    ([(-40.0, 0.0), (40.0, 0.0), (0.0, 40.0)], nil),
    ([(0.0, 0.0)], nil),  // eyes on the mouth: says nothing
    ([], nil),
])
func faceTurn(_ directions: [(Double, Double)], _ expected: Orientation?) {
    #expect(FaceTurn.orientation(of: directions.map { face(mouthFromEyes: $0.0, $0.1) }) == expected)
}

@Test func facesWithoutPointsOrWithBadOnesDoNotVote() {
    let sideways = face(mouthFromEyes: -40, 0)
    let haar = DetectedFace(box: Rect(x: 0, y: 0, width: 10, height: 10), score: 1)
    let nan = DetectedFace(box: sideways.box, score: 1, landmarks: sideways.landmarks!.map { _ in Point(x: .nan, y: 0) })
    let three = DetectedFace(box: sideways.box, score: 1, landmarks: Array(sideways.landmarks!.prefix(3)))
    #expect(FaceTurn.orientation(of: [haar]) == nil)
    #expect(FaceTurn.orientation(of: [sideways, haar, haar, nan, three]) == .left)
}

/// A face found in the shown picture lands on the same pixels of the stored one: its box's and points' pixel
/// centres map as `storedPixel` maps pixels.
@Test(arguments: Orientation.allCases)
func facesMapBackToTheStoredPicture(_ o: Orientation) {
    let size = ImageSize(width: 40, height: 30)
    let shownFace = DetectedFace(box: Rect(x: 5, y: 7, width: 10, height: 4), score: 0.7, landmarks: [Point(x: 6.5, y: 8.5), Point(x: 12.5, y: 9.5)])
    let back = FaceTurn.stored(shownFace, shownAs: o, size: size)
    #expect(back.score == 0.7)
    #expect(back.box.width * back.box.height == 40)
    // The box's corner pixels, and each point, map where storedPixel maps them.
    for (x, y) in [(5, 7), (14, 10)] {
        let s = o.storedPixel(x: x, y: y, storedSize: size)
        #expect(back.box.contains(Rect(x: Double(s.x) + 0.5, y: Double(s.y) + 0.5, width: 0, height: 0)), "\(o): pixel \(x),\(y) → \(s)")
    }
    for (p, q) in zip(shownFace.landmarks!, back.landmarks!) {
        let s = o.storedPixel(x: Int(p.x), y: Int(p.y), storedSize: size)
        #expect(q == Point(x: Double(s.x) + 0.5, y: Double(s.y) + 0.5), "\(o): point \(p)")
    }
}

/// What the turned search adds up to: one row per case, faces as boxes (x only; 10x10 at y 0).
@Test(arguments: [
    // (first search, turned search, result: nil keeps the first search)
    ([0.0], [], nil as [Double]?),  // the turned search found nothing
    ([0.0], [1.0], [1.0]),  // the same face, found upright: its box
    ([0.0], [1.0, 50.0], [1.0, 50.0]),  // more faces
    ([0.0, 100.0], [1.0, 50.0], [1.0, 50.0, 100.0]),  // an upright face beside turned ones stays
    ([0.0, 100.0], [1.0], [1.0, 100.0]),
    ([0.0, 4.0], [2.0], nil),  // two first faces on one turned face: fewer
    ([], [5.0], [5.0]),
])
func turnedSearchAddsUp(_ first: [Double], _ turned: [Double], _ expected: [Double]?) {
    func faces(_ xs: [Double]) -> [DetectedFace] { xs.map { DetectedFace(box: Rect(x: $0, y: 0, width: 10, height: 10), score: 0.8) } }
    #expect(FaceTurn.merged(first: faces(first), turned: faces(turned)).map { $0.map(\.box.x) } == expected)
}

/// `shown` undoes `storedPoint` in every orientation, for points and rectangles.
@Test(arguments: Orientation.allCases)
func shownUndoesStored(_ o: Orientation) {
    let size = ImageSize(width: 40, height: 30)
    let shownSize = o.displaySize(storedSize: size)
    for p in [Point(x: 0, y: 0), Point(x: 3.25, y: 7.5), Point(x: Double(shownSize.width), y: Double(shownSize.height))] {
        #expect(FaceTurn.shown(o.storedPoint(p, storedSize: size), by: o, size: size) == p, "\(o) \(p)")
    }
    let r = Rect(x: 2, y: 3, width: 10, height: 4)
    let face = FaceTurn.stored(DetectedFace(box: r, score: 1), shownAs: o, size: size)
    #expect(FaceTurn.shown(face.box, by: o, size: size) == r, "\(o)")
}

/// A first-search box around a smaller turned one (IoU under 0.3, but the smaller one covered) is the same face.
@Test func aLargerFirstBoxAroundATurnedOneIsTheSameFace() {
    let big = DetectedFace(box: Rect(x: 0, y: 0, width: 20, height: 20), score: 0.6)
    let small = DetectedFace(box: Rect(x: 5, y: 5, width: 9, height: 9), score: 0.9)
    #expect(big.box.iou(small.box) < 0.3)
    #expect(FaceTurn.merged(first: [big], turned: [small]) == [small])
}
