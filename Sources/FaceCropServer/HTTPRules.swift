// HTTP's rules as pure functions: the output format negotiated from Accept, ETags and If-None-Match, and the
// media types. Table-tested in Tests/FaceCropServerTests/HTTPRulesTests.swift.
import Crypto
import FaceCrop

/// HTTP's rules as pure functions: the format negotiated from `Accept`, media types, ETags and `If-None-Match`.
public enum HTTPRules {
    /// The format for a URL that names none: AVIF, then WebP, when `Accept` names it with a non-zero q (a
    /// wildcard alone does not: clients that send only `*/*` get JPEG, which every client reads); else JPEG.
    /// When several are named, the higher q wins, AVIF before WebP on a tie.
    public static func negotiate(accept: String?) -> ImageFormat {
        guard let accept else { return .jpeg }
        var q: [String: Double] = [:]
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingSpaces.lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)).map { min(max($0, 0), 1) } ?? 0
            }
            q[type] = max(q[type] ?? 0, weight)
        }
        let avif = q["image/avif"] ?? 0
        let webp = q["image/webp"] ?? 0
        if avif > 0, avif >= webp { return .avif }
        if webp > 0 { return .webp }
        return .jpeg
    }

    /// The media type of `format`: `image/jpeg`, `image/png`, `image/webp`, `image/tiff`, `image/heif` (HEIC) or
    /// `image/avif`.
    public static func contentType(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .tiff: "image/tiff"
        case .heif: "image/heif"
        case .avif: "image/avif"
        }
    }

    /// A strong ETag from everything the output depends on: facecrop's version, the source's identity, the
    /// options in canonical form and the output format (negotiated or asked). `kind` separates /info documents
    /// from images.
    public static func etag(version: String, kind: String, source: SourceIdentity, options: ProcessingOptions, format: ImageFormat) -> String {
        let text = [version, kind, source.text, options.canonical, format.rawValue].joined(separator: "\n")
        let digest = SHA256.hash(data: Array(text.utf8))
        return "\"" + base64URLEncoded(digest.prefix(18)) + "\""
    }

    /// Whether `If-None-Match` holds `*`: it matches any current representation, so only once one is made.
    public static func isWildcard(ifNoneMatch: String?) -> Bool {
        ifNoneMatch?.split(separator: ",").contains { $0.trimmingSpaces == "*" } == true
    }

    /// Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks for it; `*` is `isWildcard`'s).
    public static func matches(ifNoneMatch: String?, etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for candidate in ifNoneMatch.split(separator: ",").map({ $0.trimmingSpaces }) {
            let c = candidate.hasPrefix("W/") ? String(candidate.dropFirst(2)) : candidate
            if c == bare { return true }
        }
        return false
    }
}

/// SHA-256 of `bytes` in hex.
func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
