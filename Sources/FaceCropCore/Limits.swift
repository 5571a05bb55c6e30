/// The ranges facecrop accepts for its numeric settings, with the words their error messages use: one place
/// for the command's option checks and the library's (`FaceCropper` and `CropOptions` check theirs before use).
package enum Limits {
    /// libvips' VIPS_MAX_COORD: the longest side any image can have.
    package static let maxSide = 10_000_000
    package static let side = (range: 1...maxSide, expected: "an integer from 1 to \(maxSide)")
    package static let pixels = (range: 1...1_000_000_000_000, expected: "an integer from 1 to 1000000000000")
    package static let bytes = (range: 1...(1 << 40), expected: "an integer from 1 to \(1 << 40)")
    package static let detectSize = (range: 32...4096, expected: "an integer from 32 to 4096")
    package static let unit = (range: 0.0...1.0, expected: "a number from 0 to 1")
    package static let quality = (range: 1...100, expected: "an integer from 1 to 100")
    package static let jobs = (range: 1...256, expected: "an integer from 1 to 256")
    package static let frames = (range: 1...10_000, expected: "an integer from 1 to 10000")
    package static let count = (range: 1...1_000_000_000, expected: "a positive integer of at most 1000000000")
    package static let positive = (range: Double.leastNormalMagnitude...1_000_000, expected: "a positive number of at most 1000000")
    /// Aspect ratios beyond this (either way) are refused: 10000:1 is already a line of pixels.
    package static let maxAspect = 10_000.0
    /// Margins larger than this (pixels, or percent of the face height) frame the same as the whole image.
    package static let maxMarginPixels = 1_000_000.0, maxMarginPercent = 10_000.0
    /// The largest model file (`--model`) read: face detectors are a few megabytes (CenterFace 7, a Haar
    /// cascade 1); the file is read whole into memory.
    package static let maxModelBytes = 100 << 20
}
