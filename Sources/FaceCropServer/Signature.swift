// imgproxy's URL signatures: base64url(HMAC-SHA256(key, salt + path)), without padding, key and salt given in hex.
// Several key/salt pairs may be configured (key rotation): a signature made with any of them is accepted.
import Crypto

/// One key and salt pair of imgproxy's URL signatures: base64url(HMAC-SHA256(key, salt + path)), without padding.
public struct SigningKey: Sendable, Equatable {
    /// The HMAC key's bytes (hex in `FACECROP_KEY`).
    public var key: [UInt8]
    /// Bytes signed before the path (hex in `FACECROP_SALT`).
    public var salt: [UInt8]

    /// A pair from its bytes.
    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }

    /// Pairs from comma-separated hex lists of the same length (`FACECROP_KEY`, `FACECROP_SALT`).
    public static func pairs(keys: String, salts: String) throws(ServerError) -> [SigningKey] {
        let k = keys.split(separator: ",").map { $0.trimmingSpaces }
        let s = salts.split(separator: ",").map { $0.trimmingSpaces }
        guard !k.isEmpty, k.count == s.count else {
            throw ServerError(500, "FACECROP_KEY and FACECROP_SALT must hold as many hex values each (comma-separated), and at least one.")
        }
        return try zip(k, s).map { (key, salt) throws(ServerError) in
            guard let keyBytes = hexDecoded(key), !keyBytes.isEmpty, let saltBytes = hexDecoded(salt) else {
                throw ServerError(500, "FACECROP_KEY and FACECROP_SALT must be hexadecimal (e.g. from 'openssl rand -hex 32').")
            }
            return SigningKey(key: keyBytes, salt: saltBytes)
        }
    }

    /// The signature of `path` (everything after the signature segment, from its `/`).
    public func sign(_ path: String) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: key))
        mac.update(data: salt)
        mac.update(data: Array(path.utf8))
        return base64URLEncoded(mac.finalize())
    }
}

/// Checks URL signatures against the configured keys.
public enum Signature {
    /// Whether `signature` signs `path` with one of `keys`; constant time in the signature's bytes.
    public static func isValid(_ signature: String, path: String, keys: [SigningKey]) -> Bool {
        guard let given = base64URLDecoded(signature), given.count == SHA256.byteCount else { return false }
        var valid = false
        for key in keys {
            // HMAC's own comparison is constant-time.
            if HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: key.salt + Array(path.utf8), using: SymmetricKey(data: key.key)) {
                valid = true
            }
        }
        return valid
    }

    /// The segments that stand for "no signature" (accepted only when unsigned URLs are allowed).
    public static let unsignedMarkers: Set<String> = ["insecure", "_", "unsafe"]
}

/// Hex text to bytes; nil for an odd length or a non-hex character.
public func hexDecoded(_ text: some StringProtocol) -> [UInt8]? {
    let chars = Array(text.utf8)
    guard chars.count % 2 == 0 else { return nil }
    var out = [UInt8]()
    out.reserveCapacity(chars.count / 2)
    var i = 0
    while i < chars.count {
        guard let hi = ImageURL.hexValue(chars[i]), let lo = ImageURL.hexValue(chars[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
        i += 2
    }
    return out
}

extension StringProtocol {
    var trimmingSpaces: String { String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()) }
}
