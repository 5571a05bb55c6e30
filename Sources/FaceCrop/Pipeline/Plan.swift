// Planning the crop of an analysed image, with the no-face fallbacks (centre, libvips' attention point, fail).
import FaceCropCore

extension FaceCropper {
    /// Plans the crop. Throws `.noFace` only with `NoFacePolicy.fail`.
    public func plan(_ analysis: Analysis, options: CropOptions) throws(FaceCropError) -> CropInfo {
        try options.check()
        let size = analysis.size
        let rects = analysis.faceRects
        let ratio = options.aspect.value(for: size)
        // Faces found with the picture turned a quarter (`Analysis.faceTurns`) stand along its width.
        let heights = zip(rects, analysis.faceTurns).map { rect, turn in turn?.swapsAxes == true ? rect.width : rect.height }
        let meanHeight = heights.isEmpty ? 0 : heights.reduce(0, +) / Double(heights.count)
        let margin = options.margin.pixels(meanFaceHeight: meanHeight)
        if let plan = CropPlanner.plan(faces: rects, image: size, strategy: options.strategy, margin: margin, ratio: ratio) {
            return CropInfo(
                strategy: options.strategy, aspect: options.aspect.description, ratio: ratio, marginPixels: margin.rounded(2),
                region: plan.region.rounded(2), rect: plan.rect, cutFaces: plan.cutFaces, regionFits: plan.regionFits, fallback: nil)
        }
        let cropSize = CropPlanner.largestSize(ratio: ratio, in: size)
        var center = Point(x: Double(size.width) / 2, y: Double(size.height) / 2)
        switch options.noFace {
        case .fail:
            throw .noFace(analysis.path)
        case .center:
            break
        case .attention:
            // libvips' smartcrop on the preview, scaled back to full resolution.
            let sx = Double(analysis.analysisSize.width) / Double(size.width)
            let sy = Double(analysis.analysisSize.height) / Double(size.height)
            let w = clampedInt(Double(cropSize.width) * sx, in: 1...max(1, analysis.analysisSize.width))
            let h = clampedInt(Double(cropSize.height) * sy, in: 1...max(1, analysis.analysisSize.height))
            // Where libvips finds no attention point (a float image of NaN pixels: "max: parameter out not
            // set"), the crop stays centred: the fallback is a heuristic, never a reason to fail.
            if let p = try? analysis.preview.attentionCenter(width: w, height: h), p.x.isFinite, p.y.isFinite {
                center = Point(x: p.x / sx, y: p.y / sy)
            }
        }
        let rect = CropPlanner.centered(size: cropSize, on: center, in: size)
        return CropInfo(
            strategy: options.strategy, aspect: options.aspect.description, ratio: ratio, marginPixels: margin.rounded(2),
            region: nil, rect: rect, cutFaces: [], regionFits: true, fallback: options.noFace)
    }
}
