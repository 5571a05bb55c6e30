/// File names on Linux are bytes; facecrop's paths are Swift strings, which hold only valid UTF-8. A name in
/// another encoding (Latin-1 "café.jpg") cannot be opened through a string, so it is refused by name, shown
/// with its stray bytes escaped, instead of being decoded into another name that does not exist.
package enum FileName {
    /// The name as text, or nil when it is not valid UTF-8.
    package static func text(_ bytes: some Collection<UInt8>) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// For messages: the valid UTF-8 sequences as they are, each other byte as `\xNN`.
    package static func shown(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var out = ""
        var i = 0
        while i < bytes.count {
            let length = bytes[i] < 0x80 ? 1 : bytes[i] >= 0xF0 ? 4 : bytes[i] >= 0xE0 ? 3 : 2
            if i + length <= bytes.count, let scalar = String(validating: bytes[i..<i + length], as: UTF8.self) {
                out += scalar
                i += length
            } else {
                out += "\\x" + String(bytes[i], radix: 16).leftPadded(to: 2)
                i += 1
            }
        }
        return out
    }

    /// What to do about such a name, for every message that refuses one.
    package static let advice = "facecrop reads file names as UTF-8; rename it (for a Latin-1 name: convmv -f latin1 -t utf8 --notest)"
}

extension String {
    /// Zeros in front up to `width` characters (hex digits of escapes and hashes).
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
