// The HTTP service: routes, the request's steps (signature, options, source, ETag, admission, crop, response),
// errors as JSON, metrics and access logs. One detector (FaceDetector serialises its calls with a mutex) and one
// cropper are shared by every request; crops run on threads of their own, never on NIO's event loops.
import FaceCrop
import FoundationEssentials
import Glibc
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// facecrop-serve's HTTP service: image and /info URLs, /health and /metrics. One detector and one cropper serve every
/// request; crops run on threads of their own, at most `admission.slots` at once.
public final class ImageServer: Sendable {
    /// The settings the server was made with.
    public let configuration: ServerConfiguration
    let cropper: FaceCropper
    /// Back-pressure on crops, from the configuration's slots and queue; its `load` is what /health reports.
    public let admission: Admission
    let root: LocalRoot?
    let origin: OriginFetcher?
    let metrics: ServerMetrics
    let connections: ConnectionLimit
    let logger: Logger

    /// Loads the detector and starts libvips; throws for a root that is not a folder or a detector that cannot load.
    public init(configuration: ServerConfiguration, logger: Logger) throws(ConfigurationError) {
        self.configuration = configuration
        self.logger = logger
        // libvips starts while OpenCV reads the model, and is over before any error ends the process (one that
        // ends while libvips starts on another thread can abort in GLib).
        let vips = FaceCropper.startImageLibrary()
        let made = Result { () throws(FaceCropError) in try FaceDetector(kind: configuration.detector) }
        try? vips.value()
        let detector: FaceDetector
        do { detector = try made.get() } catch { throw ConfigurationError(error.description) }
        // Photos of both orientations come in turn: CenterFace's net for each padded size is kept, instead of
        // being read again at each switch (as batch does).
        detector.keepsNetsForTwoSizes(true)
        FaceCropper.allowUntrustedLoaders(false)
        var cropper = FaceCropper(
            detector: detector, threshold: configuration.threshold, analysisSize: configuration.detectSize, maxPixels: configuration.maxPixels)
        cropper.maxFileSize = configuration.maxFileSize
        cropper.maxDecodeMemory = configuration.maxDecodeMemory
        cropper.maxEncodeMemory = configuration.maxEncodeMemory
        self.cropper = cropper
        admission = Admission(slots: configuration.slots, queue: configuration.queue)
        if let path = configuration.root {
            do { root = try LocalRoot(path) } catch { throw ConfigurationError(error.message) }
        } else {
            root = nil
        }
        origin =
            configuration.allowedHosts.isEmpty
            ? nil
            : OriginFetcher(
                client: OriginFetcher.makeClient(timeout: configuration.originTimeout), allowedHosts: configuration.allowedHosts,
                maxRedirects: configuration.maxRedirects, timeout: configuration.originTimeout)
        connections = ConnectionLimit(max: configuration.maxConnections)
        metrics = ServerMetrics(admission: admission, connections: connections)
        var files = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur != rlim_t.max,
            UInt64(configuration.maxConnections) + 64 > UInt64(files.rlim_cur)
        {
            logger.warning(
                "--max-connections leaves few file descriptors: raise the limit (ulimit -n, LimitNOFILE=) or lower --max-connections",
                metadata: ["maxConnections": "\(configuration.maxConnections)", "descriptorLimit": "\(files.rlim_cur)"])
        }
    }

    /// A socket's error in the system's words ("address already in use", "connection refused"), not the name of
    /// NIO's call that failed: why `application` stopped before it listened, or an origin could not be reached.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)).lowercased() }
        if let error = error as? SocketAddressError.UnknownHost { return "no such host (\(error.errorDescription.lowercased()))" }
        return "\(error)"
    }

    /// The Hummingbird application on `configuration.host` and `port`; `onRunning` hears the port it listens on.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> Application<CallbackResponder<BasicRequestContext>> {
        let responder = CallbackResponder<BasicRequestContext> { [self] request, _ in await respond(to: request) }
        let connections = connections
        let interval = configuration.slowReaderInterval.timeAmount
        return Application(
            responder: responder,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [connections.handler(), ResponseGuard(interval: interval)], idleTimeout: configuration.idleTimeout.timeAmount)),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Closes the HTTP client of origins (after the server has stopped).
    public func shutdown() async {
        try? await origin?.client.shutdown()
    }

    // MARK: Requests

    /// Answers one request: a failure becomes a JSON error response, never a throw. Records the request's metrics and
    /// logs its access line (at info level).
    public func respond(to request: Request) async -> Response {
        let start = ContinuousClock.now
        metrics.inFlight.increment()
        defer { metrics.inFlight.decrement() }
        let rawPath = request.head.path ?? "/"
        let path = String(rawPath.prefix { $0 != "?" })
        let head = request.method == .head
        var response: Response
        var detail: String?
        do {
            response = try await route(request, path: path, head: head)
        } catch {
            detail = error.message
            if error.status == 503 { metrics.rejected.increment() }
            response = Self.errorResponse(error, head: head)
        }
        let elapsed = ContinuousClock.now - start
        let status = response.status.code
        metrics.requests(status: status).increment()
        metrics.duration.record(elapsed)
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let fraction = String(microseconds % 1000)
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)", "path": "\(LogText.escaped(rawPath))", "status": "\(status)",
            "ms": "\(microseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)",
        ]
        if let length = response.headers[.contentLength] { metadata["bytes"] = "\(length)" }
        if let detail { metadata["error"] = "\(LogText.escaped(detail))" }
        logger.info("request", metadata: metadata)
        return response
    }

    func route(_ request: Request, path: String, head: Bool) async throws(ServerError) -> Response {
        guard request.method == .get || request.method == .head else { throw ServerError(405, "Only GET and HEAD are served.") }
        switch path {
        case "/health":
            let (running, waiting) = admission.load
            return Self.response(
                200, type: "application/json", body: Array("{\"status\":\"ok\",\"running\":\(running),\"waiting\":\(waiting)}".utf8),
                headers: [.cacheControl: "no-store"], head: head)
        case "/metrics":
            return Self.response(200, type: "text/plain; version=0.0.4", body: metrics.text(), headers: [.cacheControl: "no-store"], head: head)
        default:
            if path.hasPrefix("/info/") { return try await image(request, path: String(path.dropFirst("/info".count)), info: true, head: head) }
            return try await image(request, path: path, info: false, head: head)
        }
    }

    /// What an image or /info request produced.
    enum Rendered: Sendable {
        case notModified
        case body([UInt8], ImageFormat)
    }

    func image(_ request: Request, path: String, info: Bool, head: Bool) async throws(ServerError) -> Response {
        // The signature first: nothing else is looked at for a request that is not signed.
        let signature = String(path.dropFirst().prefix { $0 != "/" })
        let signedPath = String(path.dropFirst(1 + signature.utf8.count))
        try checkSignature(signature, path: signedPath)
        // A query string changes nothing here but would make a cache in front store (and this server crop) one
        // copy per query: refused, so that a signed URL has one cache entry.
        if request.head.path?.contains("?") == true {
            throw ServerError(400, "Image URLs take no query string; percent-encode a '?' in a source as %3F.")
        }
        let url = try ImageURL.parse(path)
        let negotiated = url.askedFormat == nil && !info
        let format = url.askedFormat ?? (info ? .jpeg : HTTPRules.negotiate(accept: request.headers[.accept]))
        var headers: HTTPFields = [.cacheControl: "public, max-age=\(configuration.maxAge)"]
        if negotiated { headers[.vary] = "Accept" }
        // `*` stands for any representation: a source that fails to render has none, so it is answered after.
        let wildcard = HTTPRules.isWildcard(ifNoneMatch: request.headers[.ifNoneMatch])
        let ifNoneMatch = wildcard ? nil : request.headers[.ifNoneMatch]
        let kind = info ? "info" : "image"
        let name = url.source.name
        if !info {
            // A format the client only accepts gives way to JPEG where it cannot make the output (`render`).
            try url.options.checkBeforeWork(
                format: negotiated ? .jpeg : format, maxOutputPixels: configuration.maxOutputPixels, maxEncodeMemory: configuration.maxEncodeMemory)
        }

        // Local files: the ETag from stat alone, so a 304 costs no read and takes no slot.
        var file: LocalRoot.OpenFile?
        var etag: String?
        switch url.source {
        case .local(let relative):
            guard let root else { throw .notFound("Source '\(name)' is local, and this server has no --root.") }
            let opened = try root.open(relative, maxBytes: configuration.maxFileSize)
            let tag = HTTPRules.etag(version: FaceCropper.version, kind: kind, source: opened.identity, options: url.options, format: format)
            if HTTPRules.matches(ifNoneMatch: ifNoneMatch, etag: tag) { return Self.notModified(headers, etag: tag) }
            file = opened
            etag = tag
        case .remote(_, let host):
            guard let origin, OriginFetcher.isAllowed(host, by: origin.allowedHosts) else {
                throw .forbidden("Source '\(name)' is on a host that is not allowed (--allow-host).")
            }
        }

        let busy = ServerError(503, "The server is busy; try again in \(configuration.retryAfter) s.", retryAfter: configuration.retryAfter)
        let timeout = ServerError(503, "The request took longer than \(configuration.requestTimeout) (--timeout).", retryAfter: configuration.retryAfter)
        let openedFile = file
        let localTag = etag
        let (rendered, tag) = try await withTimeout(configuration.requestTimeout, timeoutError: timeout) {
            [self] (deadline) async throws(ServerError) -> (Rendered, String) in
            guard await admission.enter() else { throw busy }
            defer { admission.leave() }
            guard !deadline.passed else { throw timeout }
            var bytes: [UInt8]
            var tag = localTag ?? ""
            if let openedFile {
                bytes = try openedFile.read()
            } else {
                guard case .remote(let address, _) = url.source, let origin else { throw ServerError(500, "No source.") }
                let fetched = try await origin.fetch(address, name: name, maxBytes: configuration.maxFileSize)
                tag = HTTPRules.etag(version: FaceCropper.version, kind: kind, source: fetched.identity, options: url.options, format: format)
                if HTTPRules.matches(ifNoneMatch: ifNoneMatch, etag: tag) { return (.notModified, tag) }
                bytes = fetched.bytes
            }
            let source = bytes
            bytes = []
            do throws(FaceCropError) {
                let out = try await onThread { [self] () throws(FaceCropError) -> ([UInt8], ImageFormat) in
                    try render(source, name: name, options: url.options, format: format, negotiated: negotiated, info: info)
                }
                return (wildcard ? .notModified : .body(out.0, out.1), tag)
            } catch {
                throw ServerError(error)
            }
        }
        switch rendered {
        case .notModified: return Self.notModified(headers, etag: tag)
        case .body(let body, let made):
            headers[.eTag] = tag
            return Self.response(200, type: info ? "application/json" : HTTPRules.contentType(made), body: body, headers: headers, head: head)
        }
    }

    func checkSignature(_ signature: String, path: String) throws(ServerError) {
        if configuration.keys.isEmpty { return }  // only with --allow-unsigned (ServerConfiguration.parse)
        if Signature.unsignedMarkers.contains(signature) {
            guard configuration.allowUnsigned else {
                throw .forbidden("Unsigned URLs are refused: sign the path with FACECROP_KEY and FACECROP_SALT (docs/commands/serve.md).")
            }
            return
        }
        guard Signature.isValid(signature, path: path, keys: configuration.keys) else {
            throw .forbidden("The URL's signature is wrong: '\(signature)' does not sign '\(path)'.")
        }
    }

    /// The blocking part, on a thread of its own: analyse, plan (by the URL's gravity), then encode the crop or
    /// the /info document, and the format it is in: `format`, or JPEG when `format` was `negotiated` from Accept
    /// and its encoder would take more than `--max-encode-memory` (every client takes JPEG; its encoder streams).
    func render(_ bytes: [UInt8], name: String, options url: ProcessingOptions, format: ImageFormat, negotiated: Bool, info: Bool) throws(FaceCropError)
        -> ([UInt8], ImageFormat)
    {
        let analysis = try cropper.analyze(bytes: bytes, name: name)
        var options = CropOptions()
        options.strategy = url.strategy
        if let margin = url.margin { options.margin = margin }
        options.aspect = url.cropAspect
        options.quality = url.quality
        options.strip = true
        options.maxOutputPixels = configuration.maxOutputPixels
        var planned = analysis
        // No aspect asked for (`fit`, or one side given, without `aspect:`), or `force`: the whole image, as
        // imgproxy gives; the faces are still found and reported.
        let gravity = url.wholeImage ? .center : url.gravity
        switch gravity {
        case .face: options.noFace = .attention
        case .smart:
            planned.faces = []
            options.noFace = .attention
        case .center, .focus:
            planned.faces = []
            options.noFace = .center
        }
        var crop = try cropper.plan(planned, options: options)
        if case .focus(let x, let y) = gravity {
            let size = analysis.size
            let cropSize = CropPlanner.largestSize(ratio: crop.ratio, in: size)
            crop.rect = CropPlanner.centered(size: cropSize, on: Point(x: x * Double(size.width), y: y * Double(size.height)), in: size)
        }
        if gravity != .face {
            crop.fallback = nil
            crop.cutFaces = []
        }
        let output = url.output(for: crop.rect.size)
        options.size = output.size
        options.withoutEnlargement = output.withoutEnlargement
        // A format the client only accepts gives way to JPEG when it cannot hold the output or its encoder would
        // take too much; /info answers what the image URL would, refusals included.
        let made = negotiated && (try? cropper.checkEncoding(analysis, crop: crop.rect, as: format, options: options)) == nil ? .jpeg : format
        let size = try cropper.checkEncoding(analysis, crop: crop.rect, as: made, options: options)
        if info {
            var report = cropper.report(analysis, crop: crop, output: nil)
            report.timings = Timings()
            let document = InfoDocument(report: report, output: PlannedOutput(width: size.width, height: size.height, format: format))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            do { return (Array(try encoder.encode(document)), format) } catch { throw .imageProcessing("\(error)") }
        }
        return (try cropper.encode(analysis, crop: crop.rect, as: made, options: options).bytes, made)
    }

    // MARK: Responses

    static func response(_ status: Int, type: String, body: [UInt8], headers: HTTPFields = [:], head: Bool) -> Response {
        var headers = headers
        headers[.contentType] = type
        let length = body.count
        let responseBody =
            head ? ResponseBody(contentLength: length) { writer in try await writer.finish(nil) } : ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        var response = Response(status: HTTPResponse.Status(code: status), headers: headers, body: responseBody)
        response.headers[.contentLength] = "\(length)"
        return response
    }

    static func notModified(_ headers: HTTPFields, etag: String) -> Response {
        var headers = headers
        headers[.eTag] = etag
        return Response(status: .notModified, headers: headers, body: ResponseBody())
    }

    static func errorResponse(_ error: ServerError, head: Bool) -> Response {
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if let seconds = error.retryAfter { headers[.retryAfter] = "\(seconds)" }
        if error.status == 405 { headers[.allow] = "GET, HEAD" }
        return response(error.status, type: "application/json", body: Array(error.json.utf8), headers: headers, head: head)
    }
}

/// /info's document: the crop report (as `facecrop crop --json --dry-run`) and the output the image URL would give.
struct InfoDocument: Encodable {
    var report: CropReport
    var output: PlannedOutput

    enum Keys: String, CodingKey { case output }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(output, forKey: .output)
    }
}

struct PlannedOutput: Encodable {
    var width: Int
    var height: Int
    var format: ImageFormat
}

/// Prometheus metrics of one server (a registry of its own: several servers in one process keep theirs apart).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let admission: Admission
    let connections: ConnectionLimit
    let open: Gauge
    let duration: DurationHistogram
    let inFlight: Gauge
    let rejected: Counter
    let running: Gauge
    let waiting: Gauge

    init(admission: Admission, connections: ConnectionLimit) {
        self.admission = admission
        self.connections = connections
        func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "facecrop", metricName: metric, unitName: unit, helpText: help)
        }
        duration = registry.makeDurationHistogram(
            descriptor: name("request_duration", "seconds", "Time from a request's arrival to its response being ready."),
            buckets: [
                .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
            ])
        inFlight = registry.makeGauge(descriptor: name("requests", "in_flight", "Requests being handled."))
        rejected = registry.makeCounter(descriptor: name("rejected", "total", "Requests answered 503: no slot and the queue full, or past --timeout."))
        running = registry.makeGauge(descriptor: name("crops", "running", "Requests holding a crop slot."))
        waiting = registry.makeGauge(descriptor: name("crops", "waiting", "Requests waiting for a crop slot."))
        open = registry.makeGauge(descriptor: name("connections", "open", "Connections open (at --max-connections, no more are accepted)."))
    }

    func requests(status: Int) -> Counter {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "facecrop", metricName: "requests", unitName: "total", helpText: "Requests answered, by status."),
            labels: [("status", "\(status)")])
    }

    func text() -> [UInt8] {
        let (r, w) = admission.load
        running.set(Int64(r))
        waiting.set(Int64(w))
        open.set(Int64(connections.count))
        return registry.emitToBuffer()
    }
}

extension Error {
    /// The message of a `ServerError`, else the error's description.
    var message: String { (self as? ServerError)?.message ?? "\(self)" }
}
