import FaceCropCore

/// Pictures of what facecrop saw: face boxes coloured by capture quality, landmark outlines, each face's
/// score, and the planned crop.
public enum Annotator {
    /// Draws on `image`, a picture of the whole upright image at any scale.
    public static func draw(
        _ analysis: Analysis, quality: [CaptureQuality]? = nil, crop: PixelRect? = nil, on image: RGBImage
    ) -> RGBImage {
        var picture = image
        let size = ImageSize(width: image.width, height: image.height)
        let longSide = Double(max(size.width, size.height))
        let thickness = max(1, Int((longSide / 600).rounded()))
        let scale = max(0.35, longSide / 2000)
        let textThickness = max(1, Int((scale * 1.6).rounded()))
        if let crop {
            let sx = Double(size.width) / Double(analysis.size.width)
            let sy = Double(size.height) / Double(analysis.size.height)
            let r = crop.rect
            picture.stroke(Rect(x: r.x * sx, y: r.y * sy, width: r.width * sx, height: r.height * sy), color: .crop, thickness: thickness + 1)
        }
        let ignored = analysis.ignoredFaces.map { (face: $0.face, quality: Optional($0.quality), color: Color.ignored) }
        let faces = analysis.faces.enumerated().map { i, face in
            let q = quality.flatMap { i < $0.count ? $0[i] : nil }  // a caller's list may be shorter
            return (face: face, quality: q, color: q.map { Color.forScore($0.score) } ?? .good)
        }
        for (i, (face, quality, color)) in (faces + ignored).enumerated() {
            let box = face.boundingBox(in: size)
            picture.stroke(box, color: color, thickness: thickness)
            // The landmark regions measured with the quality (68 points: closed outlines closed, pupils as
            // dots), else the detector's points.
            if let landmarks = quality?.landmarks {
                for region in landmarks.regions {
                    let points = region.pointsInImage(faceBoundingBox: face.boundingBox, imageSize: size)
                    picture.stroke(points, closed: region.isClosed, color: .landmarks, thickness: max(1, thickness / 2))
                }
            } else if let points = face.landmarks?.points(in: size) {
                for p in points { picture.stroke([p], closed: false, color: .landmarks, thickness: thickness) }
            }
            let score = quality?.score
            var text = score.map { "#\(i + 1) \(threeDecimals($0))" } ?? "#\(i + 1)"
            if i >= faces.count { text += " ignored" }
            let height = RGBImage.textSize(text, scale: scale, thickness: textThickness).height + 2 * thickness
            // Above the box when there is room, else inside its top edge.
            let (top, left) = (clampedInt(box.minY, in: 0...size.height, rounding: .down), clampedInt(box.minX, in: 0...size.width, rounding: .down))
            let y = top - height >= 0 ? top - height : top
            picture.label(text, x: left, y: y, scale: scale, color: .black, background: color, thickness: textThickness, padding: thickness)
        }
        return picture
    }

    /// A small picture of the analysed image (the detector's copy) with the faces drawn: for contact sheets.
    public static func thumbnail(_ analysis: Analysis, quality: [CaptureQuality]? = nil, box: Int) throws(FaceCropError) -> RGBImage {
        let preview: RGBImage
        do { preview = try RGBImage(analysis.preview) } catch { throw .imageProcessing(error.message) }
        return draw(analysis, quality: quality, on: try preview.fitting(box))
    }
}

/// Scores for people: three decimals ("0.0", never "-0.0", for a small negative shift).
package func threeDecimals(_ x: Double) -> String { String(x.rounded(3)) }

extension FaceCropper {
    /// `facecrop annotate`: the input drawn on by `Annotator` (its long side at most `maxSide`), written
    /// atomically to `output`. Without `qualityAnalyzer` no capture quality is shown; `crop` nil skips the
    /// crop rect. Faces below `minQuality` (else below the crop's) are drawn grey and left out of the crop.
    /// With `noFace` `.fail`, an image without a face (at or above that quality) throws `.noFace` and nothing
    /// is written, with or without `crop`.
    public func annotate(
        _ input: String, to output: String, crop: CropOptions?, minQuality: Double? = nil, noFace: NoFacePolicy = .attention, maxSide: Int,
        quality: Int? = nil
    ) throws(FaceCropError) -> CropReport {
        let start = ContinuousClock.now
        let format = try OutputCheck.writable(output, inputs: readFiles([input]))
        var analysis = try screen(analyze(input), minimum: minQuality ?? crop?.minQuality)
        if noFace == .fail && analysis.faces.isEmpty { throw .noFace(analysis.path) }
        if qualityAnalyzer != nil { try measureQuality(&analysis) }
        let scores = analysis.quality
        let plan = try crop.map { (options) throws(FaceCropError) in try self.plan(analysis, options: options) }
        let writeStart = ContinuousClock.now
        let picture = Annotator.draw(analysis, quality: scores, crop: plan?.rect, on: try RGBImage(analysis, fitting: maxSide))
        try picture.write(to: output, quality: quality, inputs: readFiles([input]), maxEncodeMemory: maxEncodeMemory)
        analysis.timings.write = Self.ms(writeStart, .now)
        analysis.timings.total = Self.ms(start, .now)
        return report(analysis, crop: plan, output: OutputInfo(path: output, width: picture.width, height: picture.height, format: format), quality: scores)
    }
}
