// The version, read from the VERSION file at the package root, which CVersion embeds at compile time.
import CVersion

extension FaceCropper {
    /// facecrop's version (semantic versioning), as in the package's VERSION file: printed by `--version`,
    /// written in JSON reports and batch manifests.
    public static let version: String = {
        let bytes = UnsafeRawBufferPointer(start: cfc_version, count: cfc_version_length)
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text.filter { !$0.isWhitespace })
    }()
}
