// The request path: imgproxy's URL syntax (a documented subset) plus facecrop's own options, parsed into values.
// Pure: no I/O, table-tested in Tests/FaceCropServerTests/ImageURLTests.swift.
import FaceCrop

/// How the output fills the asked width and height (imgproxy's resizing types).
public enum ResizeType: String, Sendable, Equatable, CaseIterable {
    /// The whole image (or the crop at `aspect`), scaled to fit inside width x height.
    case fit
    /// Cropped to width:height around the faces, then scaled to exactly width x height.
    case fill
    /// `fill`, but never enlarged: a smaller source gives a smaller output at the same aspect.
    case fillDown = "fill-down"
    /// The whole image stretched to width x height.
    case force
}

/// Where the crop is placed.
public enum Gravity: Sendable, Equatable {
    /// facecrop's planner: around the faces (libvips' attention point when none is found).
    case face
    /// libvips' attention point (its smartcrop), faces ignored.
    case smart
    /// The center.
    case center
    /// A focus point, 0...1 from the left and from the top.
    case focus(x: Double, y: Double)

    var text: String {
        switch self {
        case .face: "face"
        case .smart: "sm"
        case .center: "ce"
        case .focus(let x, let y): "fp:\(x):\(y)"
        }
    }
}

/// The processing options of one URL, after parsing; defaults as documented in docs/commands/serve.md.
public struct ProcessingOptions: Sendable, Equatable {
    /// `rs:` or `rt:`: how the output fills the width and height (default `fit`).
    public var resize: ResizeType = .fit
    /// 0: not given.
    public var width = 0
    /// Output height in pixels (`h:`); 0: not given.
    public var height = 0
    /// `g:`: where the crop is placed (default `face`).
    public var gravity: Gravity = .face
    /// `q:`: the encoder's quality, 1...100; nil (`q:0`, or none given): the format's default.
    public var quality: Int?
    /// From `f:`; the extension, when the URL has one, overrides it.
    public var format: ImageFormat?
    /// facecrop's `aspect:W:H` (or `aspect:original`): the crop's aspect when width and height do not give one.
    public var aspect: Aspect?
    /// `strategy:`: the faces the crop frames (default all).
    public var strategy: CropStrategy = .all
    /// `margin:`: room around the faces, in pixels of the source or (`margin:40p`) percent of the mean face height;
    /// nil: `CropOptions`' default, 200 pixels.
    public var margin: Margin?
    /// `el:` (or `no-enlarge`): whether an output asked larger than its crop is enlarged. On by default, unlike
    /// imgproxy; `fill-down` never enlarges.
    public var enlarge = true

    /// The defaults: `fit`, no width or height, `face` gravity, the format's quality, every face, the default margin,
    /// enlarging on.
    public init() {}

    /// Every option in one fixed order: the same text for URLs that mean the same (an ETag's part).
    public var canonical: String {
        var parts = ["rs:\(resize.rawValue):\(width):\(height)", "el:\(enlarge ? 1 : 0)", "g:\(gravity.text)", "strategy:\(strategy.rawValue)"]
        parts.append("q:\(quality.map(String.init) ?? "-")")
        // Not the format (the ETag has the format served, however the URL asked for it); the aspect by its ratio
        // (32:18 is 16:9).
        switch aspect {
        case .ratio(let w, let h)?: parts.append("aspect:\(w / h)")
        case .original?: parts.append("aspect:original")
        case nil: parts.append("aspect:-")
        }
        switch margin {
        case .pixels(let v): parts.append("margin:\(v)")
        case .percentOfFaceHeight(let v): parts.append("margin:\(v)p")
        case nil: parts.append("margin:-")
        }
        return parts.joined(separator: "/")
    }
}

/// Where the source image is.
public enum ImageSource: Sendable, Equatable {
    /// `local:///relative/path`: a path under the server's root, checked (`LocalRoot.relativePath`).
    case local(String)
    /// `http(s)://host[:port]/...`: `host` lowercased, for the allow-list.
    case remote(url: String, host: String)

    /// The source as the URL gave it, for messages.
    public var name: String {
        switch self {
        case .local(let path): "local:///" + path
        case .remote(let url, _): url
        }
    }
}

/// One parsed request path.
public struct ImageURL: Sendable, Equatable {
    /// The first segment: an HMAC, or `insecure` / `_` for unsigned URLs.
    public var signature: String
    /// What the signature covers: the path after the signature segment, from its `/`, as sent.
    public var signedPath: String
    /// The processing options, parsed.
    public var options: ProcessingOptions
    /// The source image, from the path after the options.
    public var source: ImageSource
    /// From `@ext` (plain sources) or `.ext` (base64 sources).
    public var extensionFormat: ImageFormat?

    /// The output format asked by the URL, if any: its extension, else `f:`.
    public var askedFormat: ImageFormat? { extensionFormat ?? options.format }

    /// Parses a request path (without its query) that follows `/` or `/info/`: `/{signature}/{options…}/plain/{source}[@ext]`
    /// or `/{signature}/{options…}/{base64url source}[.ext]`.
    public static func parse(_ path: String) throws(ServerError) -> ImageURL {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.first == "" else { throw .badOptions("The path must start with '/'.") }
        segments.removeFirst()
        guard segments.count >= 2, !segments[0].isEmpty else {
            throw .badOptions("Expected /SIGNATURE/OPTIONS/plain/SOURCE or /SIGNATURE/OPTIONS/BASE64SOURCE but received '\(path)'.")
        }
        let signature = segments[0]
        let signedPath = String(path.dropFirst(1 + signature.utf8.count))
        let rest = Array(segments.dropFirst())
        var optionTexts: [String]
        var sourceText: String
        var ext: String?
        if let plain = rest.firstIndex(of: "plain") {
            optionTexts = Array(rest[..<plain])
            sourceText = rest[(plain + 1)...].joined(separator: "/")
            // "@ext" ends the source; an "@" followed by a "/" belongs to the source.
            if let at = sourceText.lastIndex(of: "@"), !sourceText[at...].contains("/") {
                ext = String(sourceText[sourceText.index(after: at)...])
                sourceText = String(sourceText[..<at])
            }
            guard let decoded = percentDecoded(sourceText) else { throw .badOptions("The source '\(sourceText)' is not valid percent-encoded UTF-8.") }
            sourceText = decoded
        } else {
            optionTexts = Array(rest.dropLast())
            var encoded = rest.last!
            if let dot = encoded.lastIndex(of: ".") {
                ext = String(encoded[encoded.index(after: dot)...])
                encoded = String(encoded[..<dot])
            }
            guard let decoded = base64URLDecoded(encoded), let text = String(validating: decoded, as: UTF8.self) else {
                throw .badOptions("The source '\(encoded)' is not base64url-encoded UTF-8 (or 'plain/' is missing before a plain source).")
            }
            sourceText = text
        }
        var format: ImageFormat?
        if let ext {
            guard let f = ImageFormat(pathExtension: ext) else {
                throw .badOptions("Expected \(ImageFormat.choices()) as the output extension but received '\(ext)'.")
            }
            format = f
        }
        let options = try parseOptions(optionTexts.filter { !$0.isEmpty })
        return ImageURL(
            signature: signature, signedPath: signedPath, options: options, source: try parseSource(sourceText), extensionFormat: format)
    }

    /// `name:arg:arg` segments in order; a later one overrides an earlier one (as imgproxy).
    static func parseOptions(_ texts: [String]) throws(ServerError) -> ProcessingOptions {
        var o = ProcessingOptions()
        for text in texts {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = parts[0]
            let args = Array(parts.dropFirst())
            func count(_ range: ClosedRange<Int>) throws(ServerError) {
                guard range.contains(args.count) else {
                    let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
                    throw .badOptions("Expected \(expected) argument\(range.upperBound == 1 ? "" : "s") for option '\(name)' but received '\(text)'.")
                }
            }
            switch name {
            case "resize", "rs", "size", "s":
                let sized = name == "size" || name == "s"
                try count(sized ? 1...3 : 1...4)
                var rest = args[...]
                if !sized {
                    o.resize = try resizeType(rest.removeFirst(), in: text)
                }
                if let w = rest.popFirst(), !w.isEmpty { o.width = try dimension(w, in: text) }
                if let h = rest.popFirst(), !h.isEmpty { o.height = try dimension(h, in: text) }
                if let e = rest.popFirst(), !e.isEmpty { o.enlarge = try boolean(e, in: text) }
            case "resizing_type", "rt":
                try count(1...1)
                o.resize = try resizeType(args[0], in: text)
            case "width", "w":
                try count(1...1)
                o.width = try dimension(args[0], in: text)
            case "height", "h":
                try count(1...1)
                o.height = try dimension(args[0], in: text)
            case "gravity", "g":
                try count(1...3)
                switch args[0] {
                case "face": o.gravity = .face
                case "sm": o.gravity = .smart
                case "ce": o.gravity = .center
                case "fp":
                    try count(3...3)
                    guard let x = decimalNumber(args[1]), let y = decimalNumber(args[2]), (0...1).contains(x), (0...1).contains(y) else {
                        throw .badOptions("Expected two numbers from 0 to 1 for the focus point but received '\(text)'.")
                    }
                    o.gravity = .focus(x: x, y: y)
                default:
                    throw .badOptions("Expected face, sm, ce or fp:X:Y for gravity but received '\(text)'.")
                }
                if args[0] != "fp" { try count(1...1) }
            case "quality", "q":
                try count(1...1)
                guard let q = Int(args[0]), (0...100).contains(q) else {
                    throw .badOptions("Expected an integer from 1 to 100 (or 0 for the format's default) for quality but received '\(text)'.")
                }
                o.quality = q == 0 ? nil : q
            case "format", "f", "ext":
                try count(1...1)
                guard let f = ImageFormat(pathExtension: args[0]) else {
                    throw .badOptions("Expected \(ImageFormat.choices()) for format but received '\(text)'.")
                }
                o.format = f
            case "enlarge", "el":
                try count(1...1)
                o.enlarge = try boolean(args[0], in: text)
            case "no-enlarge":
                try count(0...0)
                o.enlarge = false
            case "aspect":
                try count(1...2)
                let joined = args.joined(separator: ":")
                guard let aspect = Aspect(joined) else {
                    throw .badOptions("Expected a ratio like aspect:16:9, aspect:1.91:1 or aspect:original but received '\(text)'.")
                }
                let ratio = aspect.value(for: ImageSize(width: 1, height: 1))
                guard aspect == .original || (ratio >= 1 / Limits.maxAspect && ratio <= Limits.maxAspect) else {
                    throw .badOptions("Expected a ratio from 1:10000 to 10000:1 for aspect but received '\(text)'.")
                }
                o.aspect = aspect
            case "strategy":
                try count(1...1)
                guard let s = CropStrategy(rawValue: args[0]) else {
                    throw .badOptions("Expected all, largest or average for strategy but received '\(text)'.")
                }
                o.strategy = s
            case "margin":
                try count(1...1)
                var value = args[0]
                if value.hasSuffix("p") { value = String(value.dropLast()) + "%" }
                guard let margin = Margin(value) else {
                    throw .badOptions("Expected pixels (margin:200) or a percentage of the face height (margin:40p) for margin but received '\(text)'.")
                }
                switch margin {
                case .pixels(let v) where v > Limits.maxMarginPixels, .percentOfFaceHeight(let v) where v > Limits.maxMarginPercent:
                    throw .badOptions("Expected at most 1000000 pixels or 10000 percent for margin but received '\(text)'.")
                default: o.margin = margin
                }
            default:
                throw .badOptions("Unknown processing option '\(name)' in '\(text)'; see docs/commands/serve.md for the options facecrop serves.")
            }
        }
        return o
    }

    static func resizeType(_ text: String, in option: String) throws(ServerError) -> ResizeType {
        guard let type = ResizeType(rawValue: text) else {
            throw .badOptions("Expected fit, fill, fill-down or force as the resizing type but received '\(option)'.")
        }
        return type
    }

    static func dimension(_ text: String, in option: String) throws(ServerError) -> Int {
        guard let value = Int(text), (0...Limits.maxSide).contains(value) else {
            throw .badOptions("Expected an integer from 0 to \(Limits.maxSide) for a width or height but received '\(option)'.")
        }
        return value
    }

    static func boolean(_ text: String, in option: String) throws(ServerError) -> Bool {
        switch text {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw .badOptions("Expected 1 or 0 (t or f, true or false) but received '\(option)'.")
        }
    }

    /// `local:///path` or `http(s)://host/...`.
    static func parseSource(_ text: String) throws(ServerError) -> ImageSource {
        if text.hasPrefix("local://") {
            let path = text.dropFirst("local://".count)
            guard path.hasPrefix("/") else { throw .badOptions("Expected local:///PATH (three slashes) but received '\(text)'.") }
            return .local(try LocalRoot.relativePath(String(path.dropFirst())))
        }
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw .badOptions("Expected a local:///, http:// or https:// source but received '\(text)'.")
        }
        let afterScheme = text[text.range(of: "://")!.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { throw .badOptions("Source URLs with a user name or password are refused: '\(text)'.") }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw .badOptions("The source '\(text)' has an unclosed IPv6 address.") }
            host = host[...close]
        } else if let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        guard !host.isEmpty, !text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) else {
            throw .badOptions("The source '\(text)' is not a valid URL.")
        }
        // After the host: nothing, or ":" and a port (the HTTP client traps on a port over 65535, or wraps it).
        let port = authority[host.endIndex...]
        if !port.isEmpty {
            let digits = port.dropFirst()
            guard port.first == ":", !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(digits), (1...65535).contains(number)
            else { throw .badOptions("Expected a port from 1 to 65535 in the source '\(text)'.") }
        }
        return .remote(url: text, host: host.lowercased())
    }

    /// %XX sequences decoded; nil for a bad sequence or bytes that are not UTF-8.
    public static func percentDecoded(_ text: String) -> String? {
        var bytes = [UInt8]()
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let hi = utf8.next().flatMap(hexValue), let lo = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// base64url (RFC 4648 §5), with or without `=` padding.
public func base64URLDecoded(_ text: String) -> [UInt8]? {
    var values = [UInt8]()
    // Unpadded, or padded to a multiple of four exactly: any other number of "=" would let one signed URL be
    // spelt in endless ways, each a new cache key.
    var trimmed = Substring(text)
    while trimmed.hasSuffix("=") { trimmed = trimmed.dropLast() }
    let padding = text.utf8.count - trimmed.utf8.count
    guard padding == 0 || padding == (4 - trimmed.utf8.count % 4) % 4 && padding > 0 else { return nil }
    for c in trimmed.utf8 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(c - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(c - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(c - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "-"): values.append(62)
        case UInt8(ascii: "_"): values.append(63)
        default: return nil
        }
    }
    guard values.count % 4 != 1 else { return nil }
    // Canonical only: the bits left over in the last character are zero (one byte string, one text).
    switch values.count % 4 {
    case 2: guard values.last! & 0x0F == 0 else { return nil }
    case 3: guard values.last! & 0x03 == 0 else { return nil }
    default: break
    }
    var out = [UInt8]()
    var i = 0
    while i < values.count {
        let chunk = values[i..<min(i + 4, values.count)]
        var n: UInt32 = 0
        for (k, v) in chunk.enumerated() { n |= UInt32(v) << (18 - 6 * UInt32(k)) }
        out.append(UInt8(n >> 16 & 0xFF))
        if chunk.count > 2 { out.append(UInt8(n >> 8 & 0xFF)) }
        if chunk.count > 3 { out.append(UInt8(n & 0xFF)) }
        i += 4
    }
    return out
}

/// base64url without padding (imgproxy's signatures).
public func base64URLEncoded(_ bytes: some Sequence<UInt8>) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    let data = Array(bytes)
    var out = [UInt8]()
    var i = 0
    while i < data.count {
        let n = UInt32(data[i]) << 16 | (i + 1 < data.count ? UInt32(data[i + 1]) << 8 : 0) | (i + 2 < data.count ? UInt32(data[i + 2]) : 0)
        let chars = min(4, (data.count - i) * 4 / 3 + ((data.count - i) * 4 % 3 == 0 ? 0 : 1))
        for k in 0..<min(chars, 4) { out.append(alphabet[Int(n >> (18 - 6 * UInt32(k)) & 63)]) }
        i += 3
    }
    return String(decoding: out, as: UTF8.self)
}
