// facecrop-serve's settings, from flags and environment variables (a flag wins over its variable). Keys and
// salts come only from the environment, so they never show in a process list. Parsed by a pure function.
import FaceCrop
import Glibc

/// A setting facecrop-serve cannot start with: an unknown flag, a missing or bad value, no key or no source, or a root
/// or detector that cannot be loaded (`ImageServer.init`).
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The message, one sentence, printed after "Error: ".
    public var description: String
    /// An error whose description is `message`.
    public init(_ message: String) { description = message }
}

/// facecrop-serve's settings, each with its flag and environment variable (docs/commands/serve.md, Configuration);
/// `parse` reads them.
public struct ServerConfiguration: Sendable {
    /// Address to listen on (`--host`, `FACECROP_HOST`; `0.0.0.0` for every interface).
    public var host = "127.0.0.1"
    /// Port to listen on (`--port`, `FACECROP_PORT`; 0 for any free port).
    public var port = 8080
    /// Local sources (`local:///…`) are read under this folder; nil: none are served.
    public var root: String?
    /// HTTP(S) sources are fetched from these hosts (`*.example.com` for subdomains); empty: none are.
    public var allowedHosts: Set<String> = []
    /// Unsigned URLs (`insecure`, `_` or thumbor's `unsafe` for the signature) are accepted.
    public var allowUnsigned = false
    /// Key and salt pairs a URL may be signed with (`FACECROP_KEY` and `FACECROP_SALT`, or `IMGPROXY_KEY` and
    /// `IMGPROXY_SALT`). Empty: no signature is checked at all, which `parse` allows only with `allowUnsigned`.
    public var keys: [SigningKey] = []
    /// Crops at once (default: the number of cores).
    public var slots = ServerConfiguration.cores
    /// Requests waiting for a slot (default: twice the slots); more are answered 503.
    public var queue = 2 * ServerConfiguration.cores
    /// Time for a whole request, from its arrival to its response being ready.
    public var requestTimeout: Duration = .seconds(30)
    /// Time for a whole fetch of an http(s) source, body included (`--origin-timeout`); past it, 504.
    public var originTimeout: Duration = .seconds(10)
    /// A connection that sends nothing for this long between requests, or takes longer to send a request's
    /// head, is closed (slow clients cannot keep connections open).
    public var idleTimeout: Duration = .seconds(30)
    /// A response still being taken when its connection is to close (an idle timeout, a shutdown) is waited for
    /// until three looks this far apart in a row find none of it sent since the last (16 KiB), up to 10 minutes.
    public var slowReaderInterval: Duration = .seconds(10)
    /// Connections open at once (`--max-connections`); at that many the server stops accepting until one closes
    /// (new ones wait in the listen queue, 256 long).
    public var maxConnections = 512
    /// Redirects followed for an http(s) source (`--max-redirects`, 0...20); one more is answered 502.
    public var maxRedirects = 3
    /// Largest source in bytes (`--max-file-size`); larger ones are answered 413.
    public var maxFileSize = FaceCropper.defaultMaxFileSize
    /// Largest source in pixels, width x height from its header (`--max-pixels`); larger ones are answered 413 before
    /// they are decoded.
    public var maxPixels = FaceCropper.defaultMaxPixels
    /// Largest output in pixels (`--max-output-pixels`); a larger one is answered 400.
    public var maxOutputPixels = FaceCropper.defaultMaxPixels
    /// Bytes a whole-frame decoder (progressive JPEG, interlaced PNG, GIF, WebP, HEIF) may take
    /// (`--max-decode-memory`); a source that needs more is answered 413.
    public var maxDecodeMemory = FaceCropper.defaultMaxDecodeMemory
    /// Bytes an encoder that holds the whole picture (WebP, HEIC, AVIF) may take (`--max-encode-memory`); an
    /// output that needs more is answered 400.
    public var maxEncodeMemory = FaceCropper.defaultMaxEncodeMemory
    /// Cache-Control max-age of images and /info documents, in seconds.
    public var maxAge = 31_536_000
    /// Seconds in Retry-After when the server is busy.
    public var retryAfter = 1
    /// The face detector (`--detector`): CenterFace, YuNet or Haar.
    public var detector: DetectorKind = .centerface
    /// The detector's score threshold and the long side of the image it sees (nil: the detector's defaults).
    public var threshold: Double?
    /// Long side of the image faces are detected on, 32...4096 (`--detect-size`; nil: the detector's, 640).
    public var detectSize: Int?
    /// The lowest level logged (`--log-level`): trace, debug, info (a line per request), notice, warning, error or
    /// critical.
    public var logLevel = "info"
    /// Access logs as JSON lines (default: one key=value line per request).
    public var jsonLogs = false

    /// The defaults: no root, allowed host or key (`parse` asks for a source, and a key unless unsigned URLs are
    /// allowed).
    public init() {}

    /// The processor cores online (at least 1): the default slots.
    public static var cores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The flags, each with the variable that sets it when the flag is absent.
    static let flags: [(flag: String, variable: String, takesValue: Bool, help: String)] = [
        ("--host", "FACECROP_HOST", true, "Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)."),
        ("--port", "FACECROP_PORT", true, "Port to listen on (default 8080; 0 for any free port)."),
        ("--root", "FACECROP_ROOT", true, "Folder of local:/// sources."),
        ("--allow-host", "FACECROP_ALLOW_HOSTS", true, "Host whose http(s):// sources are fetched (repeatable; *.example.com for its subdomains)."),
        ("--allow-unsigned", "FACECROP_ALLOW_UNSIGNED", false, "Accept unsigned URLs ('insecure', '_' or 'unsafe' as the signature)."),
        ("--slots", "FACECROP_SLOTS", true, "Crops at once (default: the number of cores)."),
        ("--queue", "FACECROP_QUEUE", true, "Requests that wait for a slot; more are answered 503 (default: twice the slots)."),
        ("--timeout", "FACECROP_TIMEOUT", true, "Seconds for a whole request (default 30)."),
        ("--origin-timeout", "FACECROP_ORIGIN_TIMEOUT", true, "Seconds to fetch an http(s) source (default 10)."),
        ("--idle-timeout", "FACECROP_IDLE_TIMEOUT", true, "Seconds a connection may send nothing before it is closed (default 30)."),
        ("--max-connections", "FACECROP_MAX_CONNECTIONS", true, "Connections open at once; at that many, new ones wait to be accepted (default 512)."),
        ("--max-redirects", "FACECROP_MAX_REDIRECTS", true, "Redirects followed for an http(s) source (default 3)."),
        ("--max-file-size", "FACECROP_MAX_FILE_SIZE", true, "Largest source in bytes (default 536870912)."),
        ("--max-pixels", "FACECROP_MAX_PIXELS", true, "Largest source in pixels (default 268402689)."),
        ("--max-output-pixels", "FACECROP_MAX_OUTPUT_PIXELS", true, "Largest output in pixels (default 268402689)."),
        ("--max-decode-memory", "FACECROP_MAX_DECODE_MEMORY", true, "Bytes a whole-frame decoder may take (default 268435456)."),
        ("--max-encode-memory", "FACECROP_MAX_ENCODE_MEMORY", true, "Bytes a WebP, HEIC or AVIF encoder may take (default 2147483648)."),
        ("--max-age", "FACECROP_MAX_AGE", true, "Cache-Control max-age in seconds (default 31536000)."),
        ("--retry-after", "FACECROP_RETRY_AFTER", true, "Seconds in Retry-After when busy (default 1)."),
        ("--detector", "FACECROP_DETECTOR", true, "centerface (default), yunet or haar."),
        ("--threshold", "FACECROP_THRESHOLD", true, "Detector confidence threshold, 0...1 (default: the detector's)."),
        ("--detect-size", "FACECROP_DETECT_SIZE", true, "Long side of the image faces are detected on, 32...4096 (default 640)."),
        ("--log-level", "FACECROP_LOG_LEVEL", true, "trace, debug, info (default: one line per request), notice, warning, error, critical."),
        ("--json-logs", "FACECROP_JSON_LOGS", false, "Log JSON lines instead of key=value lines."),
    ]

    /// The text of `facecrop-serve --help`: usage, where signing keys come from, and every flag with its variable.
    public static var help: String {
        var text = """
            Usage: facecrop-serve [options]

            Face-aware thumbnails over HTTP: /SIGNATURE/OPTIONS/plain/SOURCE@EXT (imgproxy's URLs), /info/…, /health, /metrics.
            Signing keys: FACECROP_KEY and FACECROP_SALT (hex; comma-separated for several), or IMGPROXY_KEY and IMGPROXY_SALT.
            Reference: docs/commands/serve.md.

            Options (each also set by the environment variable shown):

            """
        for f in flags {
            text += "  \(f.flag)\(f.takesValue ? " VALUE" : "")".padding(28) + f.help + " [\(f.variable)]\n"
        }
        text += "  --version".padding(28) + "Print the version.\n" + "  --help".padding(28) + "Print this help.\n"
        return text
    }

    /// Flags first, then variables for what the flags left unset. Throws for an unknown flag, a missing or bad
    /// value, missing keys (unless unsigned URLs are allowed) or no source at all.
    public static func parse(arguments: [String], environment: [String: String]) throws(ConfigurationError) -> ServerConfiguration {
        var values: [String: [String]] = [:]
        var i = 0
        while i < arguments.count {
            var argument = arguments[i]
            var inline: String?
            if let eq = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                inline = String(argument[argument.index(after: eq)...])
                argument = String(argument[..<eq])
            }
            guard let spec = flags.first(where: { $0.flag == argument }) else {
                throw ConfigurationError("Unknown option '\(arguments[i])'; see facecrop-serve --help.")
            }
            if spec.takesValue {
                if let inline {
                    values[spec.flag, default: []].append(inline)
                } else {
                    i += 1
                    guard i < arguments.count else { throw ConfigurationError("Expected a value after \(spec.flag).") }
                    values[spec.flag, default: []].append(arguments[i])
                }
            } else {
                guard inline == nil else { throw ConfigurationError("\(spec.flag) takes no value.") }
                values[spec.flag, default: []].append("1")
            }
            i += 1
        }
        for spec in flags where values[spec.flag] == nil {
            guard let value = environment[spec.variable], !value.isEmpty else { continue }
            values[spec.flag] = spec.flag == "--allow-host" ? value.split(separator: ",").map { $0.trimmingSpaces } : [value]
        }
        func last(_ flag: String) -> String? { values[flag]?.last }
        func integer(_ flag: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            guard let text = last(flag) else { return nil }
            guard let v = Int(text), range.contains(v) else {
                throw ConfigurationError("Expected an integer from \(range.lowerBound) to \(range.upperBound) for \(flag) but received '\(text)'.")
            }
            return v
        }
        func seconds(_ flag: String) throws(ConfigurationError) -> Duration? {
            guard let text = last(flag) else { return nil }
            // Whole milliseconds: a smaller value would round to none at all (every connection or crop cut at once).
            guard let v = Double(text), v.isFinite, v >= 0.001, v <= 3600 else {
                throw ConfigurationError("Expected a number of seconds from 0.001 to 3600 for \(flag) but received '\(text)'.")
            }
            return .milliseconds(Int64((v * 1000).rounded()))
        }
        func flag(_ name: String) throws(ConfigurationError) -> Bool {
            guard let text = last(name) else { return false }
            switch text.lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: throw ConfigurationError("Expected 1 or 0 for \(name) but received '\(text)'.")
            }
        }

        var c = ServerConfiguration()
        if let host = last("--host") {
            guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw ConfigurationError("Expected a host name or address for --host but received '\(host)'.")
            }
            c.host = host
        }
        if let port = try integer("--port", 0...65535) { c.port = port }
        c.root = last("--root")
        c.allowedHosts = Set((values["--allow-host"] ?? []).map { $0.lowercased() }.filter { !$0.isEmpty })
        c.allowUnsigned = try flag("--allow-unsigned")
        c.jsonLogs = try flag("--json-logs")
        if let v = try integer("--slots", Limits.jobs.range) {
            c.slots = v
            c.queue = 2 * v
        }
        if let v = try integer("--queue", 0...100_000) { c.queue = v }
        if let v = try seconds("--timeout") { c.requestTimeout = v }
        if let v = try seconds("--origin-timeout") { c.originTimeout = v }
        if let v = try seconds("--idle-timeout") { c.idleTimeout = v }
        if let v = try integer("--max-connections", 1...1_000_000) { c.maxConnections = v }
        if let v = try integer("--max-redirects", 0...20) { c.maxRedirects = v }
        if let v = try integer("--max-file-size", Limits.bytes.range) { c.maxFileSize = v }
        if let v = try integer("--max-pixels", Limits.pixels.range) { c.maxPixels = v }
        if let v = try integer("--max-output-pixels", Limits.pixels.range) { c.maxOutputPixels = v }
        if let v = try integer("--max-decode-memory", Limits.bytes.range) { c.maxDecodeMemory = v }
        if let v = try integer("--max-encode-memory", Limits.bytes.range) { c.maxEncodeMemory = v }
        if let v = try integer("--max-age", 0...(10 * 365 * 86400)) { c.maxAge = v }
        if let v = try integer("--retry-after", 1...3600) { c.retryAfter = v }
        if let text = last("--detector") {
            guard let kind = DetectorKind(rawValue: text) else {
                throw ConfigurationError("Expected centerface, yunet or haar for --detector but received '\(text)'.")
            }
            c.detector = kind
        }
        if let v = try integer("--detect-size", Limits.detectSize.range) { c.detectSize = v }
        if let text = last("--threshold") {
            guard let v = Double(text), Limits.unit.range.contains(v) else {
                throw ConfigurationError("Expected \(Limits.unit.expected) for --threshold but received '\(text)'.")
            }
            c.threshold = v
        }
        if let level = last("--log-level") {
            guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(level) else {
                throw ConfigurationError("Expected trace, debug, info, notice, warning, error or critical for --log-level but received '\(level)'.")
            }
            c.logLevel = level
        }
        let keys = environment["FACECROP_KEY"] ?? environment["IMGPROXY_KEY"]
        let salts = environment["FACECROP_SALT"] ?? environment["IMGPROXY_SALT"]
        if let keys, !keys.isEmpty {
            do {
                c.keys = try SigningKey.pairs(keys: keys, salts: salts ?? "")
            } catch {
                throw ConfigurationError(error.message)
            }
        } else if !c.allowUnsigned {
            throw ConfigurationError(
                "Set FACECROP_KEY and FACECROP_SALT (hex, e.g. from 'openssl rand -hex 32') to sign URLs, or pass --allow-unsigned to accept unsigned ones.")
        }
        guard c.root != nil || !c.allowedHosts.isEmpty else {
            throw ConfigurationError("Give --root (local sources) or --allow-host (http sources), or both: there is nothing to serve.")
        }
        return c
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
