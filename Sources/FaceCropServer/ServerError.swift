// What a request can fail with, as an HTTP status and one sentence, and the mapping from the library's errors
// (whose exit statuses the command uses) to HTTP statuses.
import FaceCrop

/// A failed request: its HTTP status and a message readable after "error: ". Sent as JSON
/// `{"error": message, "status": status}`.
public struct ServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// One sentence: the JSON body's `error`.
    public var message: String
    /// Seconds for `Retry-After` (503 only).
    public var retryAfter: Int?

    /// An error answered with `status` and `message` (as `forClients` words it); `retryAfter` seconds go in a
    /// 503's `Retry-After`.
    public init(_ status: Int, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = Self.forClients(message)
        self.retryAfter = retryAfter
    }

    /// The status and the message, as "403: …".
    public var description: String { "\(status): \(message)" }

    /// 400: bad options or source syntax.
    public static func badOptions(_ message: String) -> ServerError { ServerError(400, message) }
    /// 403: a missing or wrong signature, an unsigned URL without `--allow-unsigned`, or a host not allowed.
    public static func forbidden(_ message: String) -> ServerError { ServerError(403, message) }
    /// 404: the source is missing, outside the root or not a regular file, or its origin answered 404 or 410.
    public static func notFound(_ message: String) -> ServerError { ServerError(404, message) }

    /// The library's errors by the meaning of their exit statuses: 64 (a setting out of range, an output too
    /// large) 400; 65 (not an image, damaged) 422, or 413 when the input is over a size limit; 66 (missing,
    /// not a regular file) 404; no face (status 2) 422; everything else 500.
    public init(_ error: FaceCropError) {
        let message = error.description
        switch error {
        case .fileTooLarge, .tooManyPixels, .wholeFrameTooLarge: self.init(413, message)
        case .noFace: self.init(422, message)
        case .inputIsVideo(let name): self.init(422, "Source '\(name)' is a video, not an image.")
        default:
            switch error.exitCode {
            case 64: self.init(400, message)
            case 65: self.init(422, message)
            case 66: self.init(404, message)
            default: self.init(500, message)
            }
        }
    }

    /// A message as a client should read it: without advice for the operator ("raise it with --max-pixels if you
    /// trust this file", the library's and the server's own), and the output in memory called the output.
    static func forClients(_ message: String) -> String {
        var text = message.replacing("Output '\(FaceCropper.memoryName)'", with: "The output")
        if let advice = text.firstRange(of: "; raise it with --") { text = text[..<advice.lowerBound] + "." }
        return text
    }

    /// The JSON body: `{"error":"…","status":N}`.
    public var json: String { "{\"error\":\(JSONText.string(message)),\"status\":\(status)}" }
}

/// JSON string literals without Foundation.
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
