// `facecrop stability`: the registration best-frame runs, alone.
import FaceCropCore

extension BestFrameFinder {
    /// Registration only, for `facecrop stability`: every frame (or the sampled ones) with its shift from the
    /// previous frame and whether the scene is stable. Shifts are in pixels of frames whose long side is
    /// `analysisSize`.
    public static func stability(
        _ input: String, options: VideoOptions, analysisSize: Int = 640, maxPixels: Int = FaceCropper.defaultMaxPixels
    ) throws(VideoError) -> StabilityReport {
        do {
            try options.check()
            try checkSetting(analysisSize, Limits.detectSize, "analysisSize")
            try checkSetting(maxPixels, Limits.pixels, "maxPixels")
        } catch {
            throw .image(error)
        }
        let resolved = try resolve(input, includeStill: false)
        let decoder = try open(resolved.video, options: options, maxPixels: maxPixels)
        let info = decoder.info
        let size = frameSize(for: info, longSide: analysisSize)
        var rows: [StabilityFrame] = []
        let samples = options.everyFrame ? nil : FrameSampling.times(duration: info.duration, count: options.frames)
        _ = try forEachFrame(decoder, samples: samples, options: options, rgb: nil, analysisScale: Double(analysisSize)) { r throws(VideoError) in
            guard r.isSample else { return }
            rows.append(
                StabilityFrame(
                    index: rows.count, time: r.frame.time.rounded(4), shift: r.shift.map { Shift(x: $0.x.rounded(3), y: $0.y.rounded(3)) },
                    response: r.response?.rounded(4), drift: r.drift?.manhattan.rounded(3), stable: r.stable))
        }
        return StabilityReport(
            input: input, video: info, analysis: SizeInfo(width: size.width, height: size.height),
            threshold: options.stabilityThreshold, history: options.historyLength, frames: rows)
    }
}
