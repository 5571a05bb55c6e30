// Contact sheet of the frames a best-frame run analysed (ContactSheet from Pictures/Sheet.swift).
import FaceCropCore

extension BestFrameFinder {
    /// Every analysed frame (kept with `VideoOptions.keepFrames`) with its faces boxed in the colour of their
    /// score, its time, frame score ("screened" for a frame screened only), face count and stability; the
    /// chosen one highlighted.
    public func writeContactSheet(_ analysis: VideoAnalysis, to path: String) throws(VideoError) {
        let chosen = analysis.chosenIndex
        let tiles = analysis.frames.enumerated().compactMap { i, f -> ContactSheet.Tile? in
            guard let frame = f.frame else { return nil }
            var image = frame
            let size = ImageSize(width: frame.width, height: frame.height)
            let thickness = max(2, max(frame.width, frame.height) / 160)
            for (face, q) in zip(f.faces, f.quality) {
                image.stroke(face.boundingBox(in: size), color: .forScore(q.score), thickness: thickness)
            }
            let when = f.isStill ? "#\(i) still" : "#\(i) \(String(((f.time ?? 0) * 100).rounded() / 100)) s"
            let score = analysis.scores[i].map { "\(f.finalist ? "score" : "screened") \(String(($0 * 1000).rounded() / 1000))" } ?? "no face"
            let stability = f.stable.map { $0 ? "stable" : "moving" } ?? ""
            var caption = [when + (i == chosen ? "  CHOSEN" : ""), "\(score), \(f.faces.count) face\(f.faces.count == 1 ? "" : "s")"]
            if !stability.isEmpty { caption.append(stability) }
            return ContactSheet.Tile(image: image, caption: caption, highlighted: i == chosen)
        }
        let inputs = InputSet([analysis.input.video] + (analysis.input.still.map { [$0] } ?? []))
        do { try ContactSheet.write(tiles, to: path, inputs: inputs, maxEncodeMemory: cropper.maxEncodeMemory) } catch { throw .image(error) }
    }
}
