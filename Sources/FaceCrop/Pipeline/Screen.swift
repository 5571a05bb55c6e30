// Capture quality on an analysis: measured once, and --min-quality setting weak faces aside.
import FaceCropCore

extension FaceCropper {
    /// `--min-quality`: faces scoring below `minimum` move to `ignoredFaces`, as if they had not been found.
    /// Without a minimum (or without faces) the analysis is returned as it is.
    public func screen(_ analysis: Analysis, minimum: Double?) throws(FaceCropError) -> Analysis {
        guard let minimum, !analysis.faces.isEmpty else { return analysis }
        var measured = analysis
        try measureQuality(&measured)
        var screened = measured
        screened.faces = []
        screened.quality = []
        for (face, quality) in zip(measured.faces, measured.quality ?? []) {
            if quality.score >= minimum {
                screened.faces.append(face)
                screened.quality?.append(quality)
            } else {
                screened.ignoredFaces.append((face, quality))
            }
        }
        return screened
    }

    /// Measures the capture quality of every face into `analysis.quality` (once), timed in `timings.quality`.
    public func measureQuality(_ analysis: inout Analysis) throws(FaceCropError) {
        guard analysis.quality == nil else { return }
        guard let analyzer = qualityAnalyzer else {
            throw .invalidSetting("Capture quality (CropOptions.minQuality, measureQuality) needs FaceCropper.qualityAnalyzer to be set.")
        }
        let start = ContinuousClock.now
        analysis.quality = try analyzer.assess(analysis)
        analysis.timings.quality = Self.ms(start, .now)
    }
}
