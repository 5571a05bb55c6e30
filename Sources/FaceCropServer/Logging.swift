// Logs as JSON lines (--json-logs), for log collectors; the environment and standard error without Foundation.
import Glibc
import Logging
import Synchronization

/// One JSON object per line on standard output: time, level, message, label and every metadata value as a string.
public struct JSONLogHandler: LogHandler {
    /// Metadata logged with every message; a message's own metadata wins over it.
    public var metadata: Logger.Metadata = [:]
    /// The lowest level logged (default info).
    public var logLevel: Logger.Level = .info
    let label: String
    private static let lock = Mutex(())

    /// A handler for the logger named `label` (each line's `label`).
    public init(label: String) { self.label = label }

    /// One metadata value of the handler, by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line: time, level, message, label, then every metadata value (the handler's merged with the event's)
    /// under its key, keys sorted.
    public func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        var line = "{\"time\":\(JSONText.string(Self.timestamp())),\"level\":\"\(event.level.rawValue)\",\"message\":\(JSONText.string("\(event.message)"))"
        line += ",\"label\":\(JSONText.string(label))"
        for key in fields.keys.sorted() {
            line += ",\(JSONText.string(key)):\(JSONText.string("\(fields[key]!)"))"
        }
        line += "}\n"
        Self.lock.withLock { _ in
            _ = line.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
        }
    }

    /// UTC, ISO 8601 with milliseconds.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var t = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &t)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let ms = Int(now.tv_nsec / 1_000_000)
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))T\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)).\(msText)Z"
    }
}

/// Text from a request made safe for a log line: control characters (a newline would start a forged line in the
/// key=value logs), `=` and `"` (a `status=200` inside a value would read as a field) written as `\u{…}`.
public enum LogText {
    /// `text` with every C0 and C1 control character, DEL, `=` and `"` escaped.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) { out += "\\u{\(String(scalar.value, radix: 16))}" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029 || s == "=" || s == "\""
    }
}

/// The process's environment, read without Foundation.
public enum ProcessEnvironment {
    /// The process's environment variables.
    public static var variables: [String: String] {
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { result[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            p += 1
        }
        return result
    }
}

/// Standard error, written without Foundation.
public enum FileHandleOutput {
    /// Writes `text` as it is (no newline added) to standard error, unbuffered.
    public static func standardError(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }
}
