// A batch's pure decisions: its outputs' file names from the --name template, its manifests' names, and which
// shard an input is in.

/// The file names of a batch's outputs.
package enum BatchNaming {
    /// `template` with `{stem}`, `{ext}`, `{width}`, `{height}` and `{aspect}` filled in (the aspect's ":" written
    /// "x"). `size` nil names what is known before any work (the asked exact size, the asked width) and puts
    /// "W" and "H" with the aspect for the rest (for clash checks: crops of two aspects differ in size).
    package static func outputName(template: String, stem: String, fileExtension: String, aspect: Aspect, asked: OutputSize?, size: ImageSize?)
        -> String
    {
        let x = aspect.description.replacing(":", with: "x")
        return filled(template, stem: stem, fileExtension: fileExtension, aspect: x, asked: asked, size: size, unknown: ("W\(x)", "H\(x)"))
    }
}

extension BatchNaming {
    /// `outputName` before any work, for messages: a size known only once the faces are found is written as the
    /// template has it (`{width}`, `{height}`), not as the stand-in that keeps such names apart.
    package static func shownName(template: String, stem: String, fileExtension: String, aspect: Aspect, asked: OutputSize?) -> String {
        let x = aspect.description.replacing(":", with: "x")
        return filled(template, stem: stem, fileExtension: fileExtension, aspect: x, asked: asked, size: nil, unknown: ("{width}", "{height}"))
    }

    /// `template` filled in, `unknown` standing for a side that neither `size` nor `asked` gives.
    private static func filled(
        _ template: String, stem: String, fileExtension: String, aspect: String, asked: OutputSize?, size: ImageSize?,
        unknown: (width: String, height: String)
    ) -> String {
        let (width, height): (String, String) =
            switch (size, asked) {
            case (let size?, _): (String(size.width), String(size.height))
            case (nil, .exact(let w, let h)?): (String(w), String(h))
            case (nil, .width(let w)?): (String(w), unknown.height)
            case (nil, nil): (unknown.width, unknown.height)
            }
        return template.replacing("{stem}", with: stem)
            .replacing("{ext}", with: fileExtension)
            .replacing("{width}", with: width)
            .replacing("{height}", with: height)
            .replacing("{aspect}", with: aspect)
    }

    /// The manifest's file name for an input's file name and the run's options key: "NAME.HASH.json", HASH the
    /// key's 64-bit FNV-1a in 16 hex digits, so runs with other options into one folder (one `--format` per run)
    /// keep a manifest each. A name too long to take the 22 bytes more (a file name is at most 255 bytes) is
    /// replaced by its own hash.
    package static func manifestName(input fileName: String, optionsKey: String) -> String {
        func hex(_ value: UInt64) -> String { String(value, radix: 16).leftPadded(to: 16) }
        let base = fileName.utf8.count + 22 <= 255 ? fileName : hex(Shards.fnv1a(fileName))
        return "\(base).\(hex(Shards.fnv1a(optionsKey))).json"
    }
}

/// `--shard K/N`: every machine puts an input in the same shard without coordination, whatever order it
/// listed the files in, by a stable hash of the input's key.
package enum Shards {
    /// The 0-based shard of `key` among `count` (at least 1).
    package static func index(of key: String, count: Int) -> Int {
        precondition(count > 0, "a shard count is at least 1")
        return Int(fnv1a(key) % UInt64(count))
    }

    /// 64-bit FNV-1a over the key's UTF-8 bytes.
    package static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
