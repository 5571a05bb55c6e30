// Which of a detector's faces are kept: numbers that cannot be a face are dropped, and Haar's weak extras.

/// A face as a detector reports it, in pixels of the analysed image (origin top-left).
package struct DetectedFace: Sendable, Equatable {
    package var box: Rect
    package var score: Double
    package var landmarks: [Point]?

    package init(box: Rect, score: Double, landmarks: [Point]? = nil) {
        (self.box, self.score, self.landmarks) = (box, score, landmarks)
    }
}

package enum FaceFilter {
    /// Drops what cannot be a face: non-finite numbers, empty boxes, boxes outside the image. (YuNet on a
    /// 640x1 image reports a "face" 10^28 pixels high.)
    package static func plausible(_ faces: [DetectedFace], in size: ImageSize) -> [DetectedFace] {
        faces.filter { f in
            let numbers = [f.box.x, f.box.y, f.box.width, f.box.height, f.score] + (f.landmarks ?? []).flatMap { [$0.x, $0.y] }
            return numbers.allSatisfy(\.isFinite) && f.box.width > 0 && f.box.height > 0 && f.box.intersection(size.bounds).area > 0
        }
    }

    /// The share of the best score a Haar face needs to be kept.
    package static let haarShareOfBest = 0.8

    /// Haar reports weak duplicates and textures as faces; one far below the best blew crops up to the
    /// whole image. Keep faces scoring at least 80 % of the best one. The other detectors' scores need no such help.
    package static func dropWeak(_ faces: [DetectedFace], kind: DetectorKind) -> [DetectedFace] {
        guard kind == .haar, let best = faces.map(\.score).max() else { return faces }
        return faces.filter { $0.score >= haarShareOfBest * best }
    }
}
