// HTTP(S) sources: only hosts on the allow-list, every redirect's target checked against it too, at most
// `maxRedirects` redirects, a time limit over the whole fetch, and at most `maxBytes` of body (refused from
// Content-Length before reading when it announces more).
import AsyncHTTPClient
import FaceCrop
import NIOCore
import NIOHTTP1

/// Fetches HTTP(S) sources from the allowed hosts only (`--allow-host`), following redirects itself so that each target
/// is checked too.
public struct OriginFetcher: Sendable {
    /// The HTTP client fetches go through; made by `makeClient`, it follows no redirect itself.
    public let client: HTTPClient
    /// Hosts sources may come from, lowercased; `*.example.com` allows that domain's subdomains.
    public let allowedHosts: Set<String>
    /// Redirects followed per fetch (`--max-redirects`); one more is answered 502.
    public let maxRedirects: Int
    /// Time for a whole fetch, redirects and body included (`--origin-timeout`); past it, 504.
    public let timeout: Duration

    /// How long the client keeps trying to connect to an origin (thumbor's default): an origin that is down or
    /// refuses connections is answered 502 after this, not after the whole fetch's time.
    public static let connectTimeout = Duration.seconds(5)

    /// The client that fetches sources: redirects are followed here (each target checked), not by the client.
    public static func makeClient(timeout: Duration) -> HTTPClient {
        let t = timeout.timeAmount
        return HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow, timeout: .init(connect: min(t, connectTimeout.timeAmount), read: t), decompression: .disabled))
    }

    /// Whether `host` (lowercased) is allowed: named exactly, or under a `*.example.com` entry.
    public static func isAllowed(_ host: String, by allowed: Set<String>) -> Bool {
        if allowed.contains(host) { return true }
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if allowed.contains("*." + rest) { return true }
        }
        return false
    }

    /// The body and identity of `url`: 403 for a host (or redirect target) off the allow-list, 400 for a redirect
    /// to a URL it would refuse as a source (e.g. with a user name), 404 when the origin says 404 or 410, 413 over
    /// `maxBytes`, 504 past the time limit (or `connectTimeout` without a connection), 502 for any other failure.
    public func fetch(_ url: String, name: String, maxBytes: Int) async throws(ServerError) -> (bytes: [UInt8], identity: SourceIdentity) {
        let deadline = NIODeadline.now() + timeout.timeAmount
        let end = ContinuousClock.now + timeout
        var current = url
        var redirects = 0
        while true {
            guard case .remote(_, let host) = try ImageURL.parseSource(current), Self.isAllowed(host, by: allowedHosts) else {
                throw ServerError.forbidden(
                    redirects == 0
                        ? "Source '\(name)' is on a host that is not allowed (--allow-host)."
                        : "Source '\(name)' redirects to '\(current)', on a host that is not allowed (--allow-host).")
            }
            var request = HTTPClientRequest(url: current)
            request.headers.add(name: "User-Agent", value: "facecrop-serve/\(FaceCropper.version)")
            do {
                let response = try await client.execute(request, deadline: deadline)
                let status = response.status.code
                if (300..<400).contains(status), let location = response.headers.first(name: "Location") {
                    redirects += 1
                    guard redirects <= maxRedirects else {
                        throw ServerError(502, "Source '\(name)' redirects more than \(maxRedirects) times.")
                    }
                    current = Self.resolve(location, against: current)
                    let lower = current.lowercased()
                    guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                        throw ServerError(502, "Source '\(name)' redirects to '\(current)', which is not an http or https URL.")
                    }
                    continue
                }
                if status == 404 || status == 410 { throw ServerError.notFound("Source '\(name)' does not exist (the origin answered \(status)).") }
                guard status == 200 else { throw ServerError(502, "Source '\(name)' could not be fetched: the origin answered \(status).") }
                if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
                    throw ServerError(413, FaceCropError.fileTooLarge(name, bytes: length, limit: maxBytes).description)
                }
                let body: ByteBuffer
                do {
                    // AsyncHTTPClient's deadline ends with the response head: the body is raced against it here,
                    // so that an origin trickling its body cannot hold a crop slot past --origin-timeout.
                    body = try await Self.before(end) { try await response.body.collect(upTo: maxBytes) }
                } catch is NIOTooManyBytesError {
                    throw ServerError(413, "Source '\(name)' is over the limit of \(maxBytes) bytes.")
                }
                let validator =
                    response.headers.first(name: "ETag").map { "etag:" + $0 } ?? response.headers.first(name: "Last-Modified").map { "modified:" + $0 }
                let bytes = Array(body.readableBytesView)
                let identity = SourceIdentity("url:\(current)\n" + (validator ?? "sha256:" + sha256Hex(bytes)))
                return (bytes, identity)
            } catch let error as ServerError {
                throw error
            } catch let error as HTTPClientError where error == .connectTimeout && timeout > Self.connectTimeout {
                throw ServerError(504, "Source '\(name)' could not be connected to within \(Self.connectTimeout).")
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout {
                throw ServerError(504, "Source '\(name)' did not arrive within \(timeout) (--origin-timeout).")
            } catch let error as IOError {
                // The system's words alone: NIO's own for a refused connection are garbled.
                throw ServerError(502, "Source '\(name)' could not be fetched: \(ImageServer.reason(error)).")
            } catch {
                throw ServerError(502, "Source '\(name)' could not be fetched: \(error).")
            }
        }
    }

    /// `work`'s result, or HTTPClientError.deadlineExceeded when `end` comes first (`work` is then cancelled).
    static func before<T: Sendable>(_ end: ContinuousClock.Instant, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try? await Task.sleep(until: end, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw HTTPClientError.deadlineExceeded }
            return value
        }
    }

    /// A Location header made absolute (RFC 3986 §5.2: one with a scheme, any scheme, is absolute already).
    static func resolve(_ location: String, against base: String) -> String {
        let schemeEnd = location.firstIndex { !($0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0))) }
        if let colon = schemeEnd, location[colon] == ":", location.first?.isLetter == true { return location }
        guard let schemeEnd = base.range(of: "://") else { return location }
        let afterScheme = base[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? base.endIndex
        if location.hasPrefix("//") { return String(base[..<schemeEnd.lowerBound]) + ":" + location }
        if location.hasPrefix("/") { return String(base[..<authorityEnd]) + location }
        let path = base[authorityEnd...].prefix { $0 != "?" && $0 != "#" }
        let folder = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
        return String(base[..<authorityEnd]) + folder + location
    }
}

extension Duration {
    /// As NIO's TimeAmount: 0 for a negative duration, at most a year (a deadline that far off cannot overflow).
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        if seconds < 0 { return .zero }
        if seconds >= Self.year { return .seconds(Self.year) }
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private static let year: Int64 = 365 * 86_400
}
