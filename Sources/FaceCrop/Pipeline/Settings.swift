import FaceCropCore

/// The library's own range checks: a program may set any value on `FaceCropper` and `CropOptions`, so each
/// is checked against `Limits` (the command's ranges) before use, and a value outside them is a
/// `FaceCropError.invalidSetting` (64), never a trap in a conversion further on.
extension FaceCropper {
    func checkSettings() throws(FaceCropError) {
        try checkSetting(threshold, Limits.unit, "FaceCropper.threshold")
        try checkSetting(analysisSize, Limits.detectSize, "FaceCropper.analysisSize")
        try checkSetting(maxPixels, Limits.pixels, "FaceCropper.maxPixels")
        try checkSetting(maxFileSize, Limits.bytes, "FaceCropper.maxFileSize")
        try checkSetting(maxDecodeMemory, Limits.bytes, "FaceCropper.maxDecodeMemory")
        try checkSetting(maxEncodeMemory, Limits.bytes, "FaceCropper.maxEncodeMemory")
        try checkSetting(
            singlePassBytes, (0...Limits.bytes.range.upperBound, "an integer from 0 to \(Limits.bytes.range.upperBound)"), "FaceCropper.singlePassBytes")
    }
}

extension CropOptions {
    /// Throws `FaceCropError.invalidSetting` for the first value outside facecrop's ranges.
    public func check() throws(FaceCropError) {
        switch margin {
        case .pixels(let v): try checkSetting(v, (0...Limits.maxMarginPixels, "a number of pixels from 0 to 1000000"), "CropOptions.margin")
        case .percentOfFaceHeight(let v): try checkSetting(v, (0...Limits.maxMarginPercent, "a percentage from 0 to 10000"), "CropOptions.margin")
        }
        if case .ratio(let w, let h) = aspect {
            let ratio = w / h
            guard w.isFinite, h.isFinite, w > 0, h > 0, ratio >= 1 / Limits.maxAspect, ratio <= Limits.maxAspect else {
                throw .invalidSetting("Expected a ratio from 1:10000 to 10000:1 for CropOptions.aspect but received '\(w):\(h)'.")
            }
        }
        switch size {
        case .exact(let w, let h):
            try checkSetting(w, Limits.side, "CropOptions.size's width")
            try checkSetting(h, Limits.side, "CropOptions.size's height")
        case .width(let w): try checkSetting(w, Limits.side, "CropOptions.size's width")
        case nil: break
        }
        if let quality { try checkSetting(quality, Limits.quality, "CropOptions.quality") }
        for (format, quality) in formatQuality { try checkSetting(quality, Limits.quality, "CropOptions.formatQuality[\(format)]") }
        if let minQuality { try checkSetting(minQuality, Limits.unit, "CropOptions.minQuality") }
        try checkSetting(maxOutputPixels, Limits.pixels, "CropOptions.maxOutputPixels")
    }
}

extension VideoOptions {
    /// Throws `FaceCropError.invalidSetting` for the first value outside facecrop's ranges.
    public func check() throws(FaceCropError) {
        try checkSetting(frames, Limits.frames, "VideoOptions.frames")
        try checkSetting(finalists, Limits.frames, "VideoOptions.finalists")
        try checkSetting(stabilityThreshold, Limits.positive, "VideoOptions.stabilityThreshold")
        try checkSetting(historyLength, (1...10_000, "an integer from 1 to 10000"), "VideoOptions.historyLength")
        try checkSetting(maxDuration, Limits.positive, "VideoOptions.maxDuration")
        try checkSetting(maxFrames, Limits.count, "VideoOptions.maxFrames")
        if !everyFrame, frames > maxFrames {
            throw .invalidSetting("Expected at most --max-frames (\(maxFrames)) for --frames but received '\(frames)'.")
        }
    }
}

/// `value` within `limit.range` (NaN never is), else the setting's error in the command's words.
func checkSetting<Value: Comparable>(_ value: Value, _ limit: (range: ClosedRange<Value>, expected: String), _ name: String) throws(FaceCropError) {
    guard limit.range.contains(value) else { throw .invalidSetting("Expected \(limit.expected) for \(name) but received '\(value)'.") }
}
