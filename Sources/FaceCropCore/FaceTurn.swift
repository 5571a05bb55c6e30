// Pictures stored on their side or upside down without saying so (no EXIF orientation: a scan, a photo whose
// metadata was stripped). The detectors learnt upright faces and find few turned ones, but where the mouth lies
// from the eyes in those they find tells which way the picture is turned.

package enum FaceTurn {
    /// The orientation that shows the picture with its faces upright (`.right`, `.down` or `.left`), when more
    /// than half of the faces with the detector's 5 points say so; nil when they stand upright, disagree, or
    /// have no points (Haar).
    package static func orientation(of faces: [DetectedFace]) -> Orientation? {
        var votes: [Orientation: Int] = [:]
        var voters = 0
        for face in faces {
            guard let p = face.landmarks, p.count == 5 else { continue }
            // Eyes' midpoint to the mouth corners' midpoint, in `FaceLandmarks.allPoints` order.
            let dx = (p[3].x + p[4].x - p[0].x - p[1].x) / 2
            let dy = (p[3].y + p[4].y - p[0].y - p[1].y) / 2
            guard dx.isFinite, dy.isFinite, dx != 0 || dy != 0 else { continue }
            let shown: Orientation = abs(dy) >= abs(dx) ? (dy > 0 ? .up : .down) : (dx < 0 ? .left : .right)
            votes[shown, default: 0] += 1
            voters += 1
        }
        guard let (shown, count) = votes.max(by: { $0.value < $1.value }), shown != .up, 2 * count > voters else { return nil }
        return shown
    }

    /// What a second search, of the picture turned upright, adds up to: its faces (`turned`, mapped back to the
    /// picture's pixels), then the first search's faces that none of them overlaps (upright faces beside turned
    /// ones; overlapping: IoU ≥ 0.3, or half the smaller box covered, for boxes of different sizes on one face).
    /// Nil when the turned search found nothing, or when that leaves fewer faces than the first search found; on
    /// a tie the turned search's boxes are kept (found upright, they fit the faces better).
    package static func merged(first: [DetectedFace], turned: [DetectedFace]) -> [DetectedFace]? {
        guard !turned.isEmpty else { return nil }
        func overlap(_ a: Rect, _ b: Rect) -> Bool {
            a.iou(b) >= 0.3 || a.intersection(b).area >= 0.5 * min(a.area, b.area)
        }
        let all = turned + first.filter { f in !turned.contains { overlap($0.box, f.box) } }
        return all.count >= first.count ? all : nil
    }

    /// A face found in the picture as `orientation` shows it, in the stored picture's pixels (of `size`).
    package static func stored(_ face: DetectedFace, shownAs orientation: Orientation, size: ImageSize) -> DetectedFace {
        let map = { (p: Point) in orientation.storedPoint(p, storedSize: size) }
        return DetectedFace(box: mapped(face.box, map), score: face.score, landmarks: face.landmarks?.map(map))
    }

    /// Where the point `p` of a picture of `size` lies in the picture as `orientation` shows it: the inverse of
    /// `Orientation.storedPoint`.
    package static func shown(_ p: Point, by orientation: Orientation, size: ImageSize) -> Point {
        // Each orientation undoes itself but the two quarter turns, which undo each other.
        let inverse: Orientation = orientation == .right ? .left : orientation == .left ? .right : orientation
        return inverse.storedPoint(p, storedSize: orientation.displaySize(storedSize: size))
    }

    /// The rectangle `r` of a picture of `size` in the picture as `orientation` shows it.
    package static func shown(_ r: Rect, by orientation: Orientation, size: ImageSize) -> Rect {
        mapped(r) { shown($0, by: orientation, size: size) }
    }

    /// The rectangle whose opposite corners are `r`'s mapped by `map` (a turn or a flip).
    private static func mapped(_ r: Rect, _ map: (Point) -> Point) -> Rect {
        let a = map(Point(x: r.minX, y: r.minY))
        let b = map(Point(x: r.maxX, y: r.maxY))
        return Rect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x), height: abs(a.y - b.y))
    }
}
