/// The ranges facecrop accepts for its numeric settings, with the words their error messages use: one place
/// for the command's option checks and the library's (`FaceCropper` and `CropOptions` check theirs before use).
public enum Limits {
    /// libvips' VIPS_MAX_COORD: the longest side any image can have.
    public static let maxSide = 10_000_000
    public static let side = (range: 1...maxSide, expected: "an integer from 1 to \(maxSide)")
    public static let pixels = (range: 1...1_000_000_000_000, expected: "an integer from 1 to 1000000000000")
    public static let bytes = (range: 1...(1 << 40), expected: "an integer from 1 to \(1 << 40)")
    public static let detectSize = (range: 32...4096, expected: "an integer from 32 to 4096")
    public static let unit = (range: 0.0...1.0, expected: "a number from 0 to 1")
    public static let quality = (range: 1...100, expected: "an integer from 1 to 100")
    public static let jobs = (range: 1...256, expected: "an integer from 1 to 256")
    public static let frames = (range: 1...10_000, expected: "an integer from 1 to 10000")
    public static let count = (range: 1...1_000_000_000, expected: "a positive integer of at most 1000000000")
    public static let positive = (range: Double.leastNormalMagnitude...1_000_000, expected: "a positive number of at most 1000000")
    /// Aspect ratios beyond this (either way) are refused: 10000:1 is already a line of pixels.
    public static let maxAspect = 10_000.0
    /// Margins larger than this (pixels, or percent of the face height) frame the same as the whole image.
    public static let maxMarginPixels = 1_000_000.0, maxMarginPercent = 10_000.0
}
