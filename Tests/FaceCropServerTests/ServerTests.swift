// facecrop-serve end to end: a live server on 127.0.0.1, a real HTTP client, real images. Statuses, signatures,
// confinement of local sources, the allow-list of http sources, caching headers, negotiation, back-pressure.
import AsyncHTTPClient
import FaceCrop
import Foundation
import NIOHTTP1
import Testing

@testable import FaceCropServer

#if canImport(Glibc)
import Glibc
#endif

/// A root folder with the samples and hostile entries; `outside` is a file beside it, not under it.
func makeRoot(in dir: URL) throws -> URL {
    let fm = FileManager.default
    let root = dir.appendingPathComponent("root")
    try fm.createDirectory(at: root.appendingPathComponent("people"), withIntermediateDirectories: true)
    for name in ["group.jpg", "portrait.png", "landscape-no-face.jpg"] {
        try fm.copyItem(at: Repo.file("Samples/\(name)"), to: root.appendingPathComponent(name))
    }
    try fm.copyItem(at: Repo.file("Samples/portrait.png"), to: root.appendingPathComponent("people/portrait 1.png"))
    try fm.copyItem(at: Repo.file("Samples/portrait.png"), to: dir.appendingPathComponent("outside.png"))
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("escape.png").path, withDestinationPath: "../outside.png")
    try fm.createSymbolicLink(
        atPath: root.appendingPathComponent("escape-absolute.png").path, withDestinationPath: dir.appendingPathComponent("outside.png").path)
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("etc").path, withDestinationPath: "/etc")
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("zero.jpg").path, withDestinationPath: "/dev/zero")
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("dev").path, withDestinationPath: "/dev")
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("inside.png").path, withDestinationPath: "people/portrait 1.png")
    guard mkfifo(root.appendingPathComponent("fifo.jpg").path, 0o644) == 0 else { throw TestFailure("mkfifo failed") }
    try Data("not an image at all".utf8).write(to: root.appendingPathComponent("text.jpg"))
    try Data().write(to: root.appendingPathComponent("empty.jpg"))
    let jpeg = try Data(contentsOf: Repo.file("Samples/group.jpg"))
    try jpeg.prefix(600).write(to: root.appendingPathComponent("truncated.jpg"))
    return root
}

@Suite(.timeLimit(.minutes(10)))
struct ServerTests {
    @Test func faceCropWithHeadersETagAnd304() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            try await withServer(LiveServer.configuration(root: root)) { s async throws in
                let path = signed("/rs:fill:256:256/plain/local:///portrait.png@jpg")
                let r = try await s.get(path)
                #expect(r.status == 200, "\(r)")
                #expect(r.header("Content-Type") == "image/jpeg")
                #expect(r.header("Content-Length") == "\(r.body.count)")
                #expect(r.header("Cache-Control") == "public, max-age=31536000")
                #expect(r.header("Vary") == nil, "the URL names the format: nothing to vary on")
                let info = try imageInfo(r.body)
                #expect(info.width == 256 && info.height == 256 && info.loader.hasPrefix("jpegload"))
                let etag = try #require(r.header("ETag"))
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))

                // The same URL again: the same bytes and ETag (the crop is deterministic).
                let again = try await s.get(path)
                #expect(again.body == r.body && again.header("ETag") == etag)

                let notModified = try await s.get(path, headers: [("If-None-Match", etag)])
                #expect(notModified.status == 304 && notModified.body.isEmpty, "\(notModified)")
                #expect(notModified.header("ETag") == etag && notModified.header("Cache-Control") != nil)
                let weak = try await s.get(path, headers: [("If-None-Match", "\"other\", W/\(etag)")])
                #expect(weak.status == 304)
                let other = try await s.get(path, headers: [("If-None-Match", "\"other\"")])
                #expect(other.status == 200)

                let head = try await s.get(path, method: .HEAD)
                #expect(head.status == 200 && head.body.isEmpty, "\(head)")
                #expect(head.header("Content-Length") == "\(r.body.count)" && head.header("ETag") == etag)
                #expect(head.header("Content-Type") == "image/jpeg")

                // Other options, another ETag; the file touched, another ETag.
                let wider = try await s.get(signed("/rs:fill:300:200/plain/local:///portrait.png@jpg"))
                #expect(wider.status == 200 && wider.header("ETag") != etag)
                #expect(try imageInfo(wider.body).width == 300)
                var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, root.appendingPathComponent("portrait.png").path, &times, 0) == 0)
                let touched = try await s.get(path, headers: [("If-None-Match", etag)])
                #expect(touched.status == 200 && touched.header("ETag") != etag)
            }
        }
    }

    /// A format taken from Accept gives way to JPEG when its encoder would take more than --max-encode-memory, or it
    /// cannot hold the output's size; one the URL names is refused (400). 1000x1000 AVIF is counted at 168 MiB,
    /// WebP at 6 MB.
    @Test func negotiatedFormatsGiveWayToJPEGOverTheEncoderLimit() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            try await withServer(LiveServer.configuration(root: root) { $0.maxEncodeMemory = 60_000_000 }) { s async throws in
                let path = "/rs:fill:1000:1000/plain/local:///group.jpg"
                let chrome = [("Accept", "image/avif,image/webp,*/*")]
                let negotiated = try await s.get(signed(path), headers: chrome)
                #expect(negotiated.status == 200 && negotiated.header("Content-Type") == "image/jpeg", "\(negotiated)")
                #expect(try imageInfo(negotiated.body).loader.hasPrefix("jpegload"))
                let webp = try await s.get(signed(path), headers: [("Accept", "image/webp,*/*")])
                #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp", "\(webp)")
                let named = try await s.get(signed(path + "@avif"), headers: chrome)
                #expect(named.status == 400 && named.json?["error"] as? String != nil, "\(named)")
                // The refusal is the client's to read: no command-line advice, no '(memory)' for the output.
                let message = named.json?["error"] as? String ?? ""
                #expect(!message.contains("--") && !message.contains("(memory)") && message.hasPrefix("The output would be"), "\(message)")
                // /info answers what the image URL would: the same refusal.
                let info = try await s.get("/info" + signed(path + "@avif"))
                #expect(info.status == 400 && info.json?["error"] as? String == message, "\(info)")
                // A side over the format's (WebP: 16383) gives way to JPEG too, when only accepted.
                let wide = "/rs:fill:20000:100/plain/local:///group.jpg"
                let accepted = try await s.get(signed(wide), headers: [("Accept", "image/webp,*/*")])
                #expect(accepted.status == 200 && accepted.header("Content-Type") == "image/jpeg", "\(accepted)")
                #expect(try await s.get(signed(wide + "@webp")).status == 400)
            }
        }
    }

    @Test func formatsByExtensionOptionAndAccept() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            try await withServer(LiveServer.configuration(root: root)) { s async throws in
                let byAccept: [(accept: String?, type: String, loader: String)] = [
                    (nil, "image/jpeg", "jpegload"), ("*/*", "image/jpeg", "jpegload"), ("image/webp,*/*", "image/webp", "webpload"),
                    ("image/avif,image/webp,*/*", "image/avif", "heifload"), ("image/avif;q=0.5,image/webp", "image/webp", "webpload"),
                ]
                let path = signed("/rs:fill:96:64/plain/local:///group.jpg")
                var etags = Set<String>()
                for row in byAccept {
                    let r = try await s.get(path, headers: row.accept.map { [("Accept", $0)] } ?? [])
                    #expect(r.status == 200, "\(row): \(r)")
                    #expect(r.header("Content-Type") == row.type, "\(row)")
                    #expect(r.header("Vary") == "Accept", "\(row)")
                    let info = try imageInfo(r.body)
                    #expect(info.loader.hasPrefix(row.loader) && info.width == 96 && info.height == 64, "\(row): \(info)")
                    etags.insert(r.header("ETag") ?? "")
                }
                #expect(etags.count == 3, "one ETag per format")
                let png = try await s.get(signed("/f:png/rs:fill:32:32/plain/local:///group.jpg"), headers: [("Accept", "image/avif")])
                #expect(png.status == 200 && png.header("Content-Type") == "image/png" && png.header("Vary") == nil)
                let webp = try await s.get(signed("/rs:fill:32:32/bG9jYWw6Ly8vZ3JvdXAuanBn.webp"))
                #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp", "base64 source: \(webp)")
                let spaced = try await s.get(signed("/w:40/plain/local:///people/portrait%201.png@png"))
                #expect(spaced.status == 200)
                #expect(try imageInfo(spaced.body).width == 40)
                let low = try await s.get(signed("/q:10/rs:fill:200:200/plain/local:///group.jpg@jpg"))
                let high = try await s.get(signed("/q:95/rs:fill:200:200/plain/local:///group.jpg@jpg"))
                #expect(low.body.count < high.body.count)
            }
        }
    }

    @Test func signatures() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            try await withServer(LiveServer.configuration(root: root)) { s async throws in
                let path = "/rs:fill:64:64/plain/local:///portrait.png@jpg"
                #expect(try await s.get(signed(path)).status == 200)
                let cases: [(String, String)] = [
                    ("/insecure" + path, "Unsigned URLs are refused"), ("/_" + path, "Unsigned URLs are refused"),
                    ("/" + testKey.sign(path).dropLast() + "A" + path, "signature is wrong"),
                    ("/" + SigningKey(key: [1], salt: [2]).sign(path) + path, "signature is wrong"),
                    (signed(path).replacingOccurrences(of: "64:64", with: "65:65"), "signature is wrong"),
                    // Work is never started for an unsigned request: bad options, missing files and hostile paths are
                    // all 403 first.
                    ("/x/blur:9/plain/local:///portrait.png", "signature is wrong"), ("/x/plain/local:///missing.jpg", "signature is wrong"),
                    ("/x/plain/local:///../outside.png", "signature is wrong"), ("/info/x" + path, "signature is wrong"),
                ]
                for (url, words) in cases {
                    let r = try await s.get(url)
                    #expect(r.status == 403, "\(url): \(r)")
                    #expect(r.header("Content-Type") == "application/json")
                    #expect((r.json?["error"] as? String)?.contains(words) == true, "\(url): \(r)")
                    #expect(r.json?["status"] as? Int == 403)
                }
                // A query string after a signed path would give a cache in front one entry per query: refused.
                let query = try await s.get(signed(path) + "?n=1")
                #expect(query.status == 400 && (query.json?["error"] as? String)?.contains("no query string") == true, "\(query)")
                #expect(try await s.get("/info" + signed(path) + "?n=1").status == 400)
            }
            // Unsigned URLs where they are allowed (signed ones still work).
            try await withServer(LiveServer.configuration(root: root) { $0.allowUnsigned = true }) { s async throws in
                #expect(try await s.get("/insecure/rs:fill:64:64/plain/local:///portrait.png@jpg").status == 200)
                #expect(try await s.get("/_/rs:fill:64:64/plain/local:///portrait.png@jpg").status == 200)
                #expect(try await s.get(signed("/rs:fill:64:64/plain/local:///portrait.png@jpg")).status == 200)
                #expect(try await s.get("/wrongsignature/rs:fill:64:64/plain/local:///portrait.png@jpg").status == 403)
            }
        }
    }

    @Test func statusesOfLocalSources() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            let rows: [(source: String, options: String, status: Int, words: String)] = [
                ("portrait.png", "rs:fill:64:64", 200, ""),
                ("inside.png", "rs:fill:64:64", 200, ""),
                ("missing.jpg", "", 404, "does not exist"),
                ("people", "", 404, "not a regular file"),
                ("fifo.jpg", "", 404, "not a regular file"),
                ("zero.jpg", "", 404, "does not exist under the root"),
                ("dev/zero", "", 404, "does not exist under the root"),
                ("dev/null", "", 404, "does not exist under the root"),
                ("escape.png", "", 404, "does not exist under the root"),
                ("escape-absolute.png", "", 404, "does not exist under the root"),
                ("etc/passwd", "", 404, "does not exist under the root"),
                ("../outside.png", "", 400, "'..'"),
                ("people/../../outside.png", "", 400, "'..'"),
                ("%2e%2e/outside.png", "", 400, "'..'"),
                ("%2E%2E%2Foutside.png", "", 400, "'..'"),
                ("people/%2e%2e/%2e%2e/outside.png", "", 400, "'..'"),
                ("%2Fetc%2Fpasswd", "", 400, "empty names"),
                ("text.jpg", "", 422, "not an image format"),
                ("empty.jpg", "", 422, "empty"),
                ("truncated.jpg", "", 422, "damaged or truncated"),
                ("portrait.png", "blur:3", 400, "Unknown processing option"),
                ("portrait.png", "rs:fill:0:x", 400, "width or height"),
                ("portrait.png", "rs:fill:20000:20000", 400, "over the limit"),
                ("portrait.png", "margin:-1", 400, "margin"),
            ]
            try await withServer(LiveServer.configuration(root: root) { $0.maxOutputPixels = 100_000_000 }) { s async throws in
                for row in rows {
                    let options = row.options.isEmpty ? "" : "/" + row.options
                    let r = try await s.get(signed("\(options)/plain/local:///\(row.source)@jpg"))
                    #expect(r.status == row.status, "\(row.source) \(row.options): \(r)")
                    if row.status != 200 {
                        #expect(r.json?["status"] as? Int == row.status, "\(row.source)")
                        #expect((r.json?["error"] as? String)?.contains(row.words) == true, "\(row.source) \(row.options): \(r)")
                        #expect(r.header("Cache-Control") == "no-store")
                    }
                }
                let post = try await s.get(signed("/plain/local:///portrait.png@jpg"), method: .POST)
                #expect(post.status == 405 && post.header("Allow") == "GET, HEAD", "\(post)")
                let info = try await s.get(signed("/plain/local:///text.jpg@jpg"), method: .HEAD)
                #expect(info.status == 422 && info.body.isEmpty)
                // `If-None-Match: *` matches a representation only where there is one.
                let any = [("If-None-Match", "*")]
                #expect(try await s.get(signed("/plain/local:///text.jpg@jpg"), headers: any).status == 422)
                #expect(try await s.get(signed("/plain/local:///missing.jpg@jpg"), headers: any).status == 404)
                let good = try await s.get(signed("/rs:fill:32:32/plain/local:///portrait.png@jpg"), headers: any)
                #expect(good.status == 304 && good.body.isEmpty && good.header("ETag") != nil, "\(good)")
            }
            // Size limits: bytes (before reading) and pixels (from the header).
            try await withServer(LiveServer.configuration(root: root) { $0.maxFileSize = 200_000 }) { s async throws in
                let r = try await s.get(signed("/plain/local:///group.jpg@jpg"))
                #expect(r.status == 413 && (r.json?["error"] as? String)?.contains("over the limit of 200000 bytes") == true, "\(r)")
                #expect(try await s.get(signed("/rs:fill:10:10/plain/local:///portrait.png@jpg")).status == 200)
            }
            try await withServer(LiveServer.configuration(root: root) { $0.maxPixels = 100_000 }) { s async throws in
                let r = try await s.get(signed("/plain/local:///group.jpg@jpg"))
                #expect(r.status == 413 && (r.json?["error"] as? String)?.contains("pixels") == true, "\(r)")
            }
            // Without a root, local sources are not served.
            let hostsOnly = LiveServer.configuration(root: nil) { $0.allowedHosts = ["127.0.0.1"] }
            try await withServer(hostsOnly) { s async throws in
                let r = try await s.get(signed("/plain/local:///portrait.png@jpg"))
                #expect(r.status == 404 && (r.json?["error"] as? String)?.contains("no --root") == true)
            }
        }
    }

    @Test func infoHealthAndMetrics() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            try await withServer(LiveServer.configuration(root: root)) { s async throws in
                let r = try await s.get("/info" + signed("/rs:fill:1920:1080/plain/local:///group.jpg"))
                #expect(r.status == 200 && r.header("Content-Type") == "application/json", "\(r)")
                let json = try #require(r.json)
                let faces = try #require(json["faces"] as? [[String: Any]])
                #expect(faces.count >= 3)
                let crop = try #require(json["crop"] as? [String: Any])
                #expect(crop["aspect"] as? String == "16:9")
                let output = try #require(json["output"] as? [String: Any])
                #expect(output["width"] as? Int == 1920 && output["height"] as? Int == 1080 && output["format"] as? String == "jpeg")
                #expect((json["input"] as? [String: Any])?["path"] as? String == "local:///group.jpg")
                #expect(r.header("ETag") != nil)
                let again = try await s.get("/info" + signed("/rs:fill:1920:1080/plain/local:///group.jpg"), headers: [("If-None-Match", r.header("ETag")!)])
                #expect(again.status == 304)
                // The crop it plans is the one the image URL cuts: same size.
                let image = try await s.get(signed("/rs:fill:1920:1080/plain/local:///group.jpg@jpg"))
                #expect(try imageInfo(image.body).width == 1920)
                #expect(try await s.get("/info" + signed("/plain/local:///missing.jpg")).status == 404)

                let health = try await s.get("/health")
                #expect(health.status == 200 && health.json?["status"] as? String == "ok")
                let metrics = try await s.get("/metrics")
                #expect(metrics.status == 200 && metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
                for name in [
                    "facecrop_requests_total{status=\"200\"}", "facecrop_requests_total{status=\"404\"}", "facecrop_request_duration_seconds_bucket",
                    "facecrop_requests_in_flight", "facecrop_rejected_total", "facecrop_crops_running", "facecrop_crops_waiting",
                ] {
                    #expect(metrics.text.contains(name), "\(name) in \(metrics.text)")
                }
            }
        }
    }

    /// A client that opens a connection and sends half a request's head, then nothing, is disconnected after
    /// --idle-timeout; the server goes on answering others.
    @Test func slowClientsAreDisconnected() async throws {
        let configuration = LiveServer.configuration(root: nil) { $0.idleTimeout = .seconds(1) }
        try await withServer(configuration) { s async throws in
            let fd = try connection(port: s.port, sending: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            defer { close(fd) }
            // Closed by the server, well before the 20 s this side would wait.
            let start = ContinuousClock.now
            let read = try await receive(fd, timeout: .seconds(20))
            #expect(read == [] && ContinuousClock.now - start < .seconds(15), "read \(String(describing: read)) after \(ContinuousClock.now - start)")
            #expect(try await s.get("/health").status == 200)
        }
    }

    /// A large response taken slowly is sent whole, though the idle timeout comes while it is being taken (the
    /// close it brings waits while the client keeps reading); a client that stops reading is let go of.
    @Test func slowReadersGetTheWholeResponse() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            let configuration = LiveServer.configuration(root: root) {
                $0.idleTimeout = .seconds(1)
                $0.slowReaderInterval = .seconds(1)
            }
            try await withServer(configuration) { s async throws in
                // A PNG of about 8 MB: more than the kernel's socket buffers hold, so most of it waits in the server.
                let request = "GET \(signed("/w:5000/plain/local:///group.jpg@png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                /// What comes until the server closes, taking `chunk` bytes every 100 ms, and stopping after `limit`.
                func take(chunk: Int, limit: Int) async throws -> (head: String, body: Int) {
                    let fd = try connection(port: s.port, sending: request)
                    defer { close(fd) }
                    var bytes = [UInt8]()
                    var buffer = [UInt8](repeating: 0, count: chunk)
                    let deadline = ContinuousClock.now + .seconds(60)
                    while ContinuousClock.now < deadline {
                        if bytes.count >= limit {  // stopped reading: wait to be let go of, then take what was sent
                            try await Task.sleep(for: .seconds(5))
                            return try await (head(bytes) ?? "", receiveUntilClosed(fd, timeout: .seconds(5)).count + body(bytes))
                        }
                        let n = recv(fd, &buffer, chunk, Int32(MSG_DONTWAIT))
                        if n == 0 { break }
                        if n > 0 { bytes += buffer.prefix(n) }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    return (head(bytes) ?? "", body(bytes))
                }
                func head(_ bytes: [UInt8]) -> String? {
                    bytes.firstRange(of: Array("\r\n\r\n".utf8)).map { String(decoding: bytes[..<$0.lowerBound], as: UTF8.self) }
                }
                func body(_ bytes: [UInt8]) -> Int { bytes.firstRange(of: Array("\r\n\r\n".utf8)).map { bytes.count - $0.upperBound } ?? 0 }
                func length(_ head: String) -> Int? {
                    let line = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    return line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
                }

                let slow = try await take(chunk: 128 << 10, limit: .max)  // about 1.3 MB/s
                let size = try #require(length(slow.head), "\(slow.head)")
                #expect(size > 6_000_000 && slow.body == size, "\(slow.body) of \(size) bytes")
                let stalled = try await take(chunk: 128 << 10, limit: 256 << 10)
                #expect(stalled.body < size, "a client that stopped reading was sent \(stalled.body) of \(size) bytes")
            }
        }
    }

    /// A client that announces a body and sends it a byte at a time (each byte would restart the idle timeout) is
    /// answered and disconnected, not read to the end of its body; a body sent whole keeps the connection open.
    @Test func slowBodiesAreNotWaitedFor() async throws {
        let configuration = LiveServer.configuration(root: nil) { $0.idleTimeout = .seconds(30) }
        try await withServer(configuration) { s async throws in
            let (text, after) = try await answerBeforeClose(
                port: s.port, sending: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000000\r\n\r\na")
            #expect(text.hasPrefix("HTTP/1.1 200") && text.lowercased().contains("connection: close"), "\(text)")
            #expect(after < .seconds(10), "closed after \(after)")

            let whole = try connection(
                port: s.port, sending: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabcGET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            defer { close(whole) }
            let answers = try await receive(whole, until: 2, of: "HTTP/1.1 200")
            #expect(answers.components(separatedBy: "HTTP/1.1 200").count == 3 && !answers.lowercased().contains("connection: close"), "\(answers)")
        }
    }

    /// HTTP/1.0 closes the connection after the response unless the request asks to keep it.
    @Test func http10ClosesUnlessKeptAlive() async throws {
        try await withServer(LiveServer.configuration(root: nil) { $0.idleTimeout = .seconds(30) }) { s async throws in
            let (text, after) = try await answerBeforeClose(port: s.port, sending: "GET /health HTTP/1.0\r\n\r\n")
            #expect(text.contains(" 200 ") && text.lowercased().contains("connection: close"), "\(text)")
            #expect(after < .seconds(10), "closed after \(after)")

            let keepAlive = "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
            let kept = try connection(port: s.port, sending: keepAlive + keepAlive)
            defer { close(kept) }
            let answers = try await receive(kept, until: 2, of: " 200 ")
            #expect(answers.components(separatedBy: " 200 ").count == 3 && !answers.lowercased().contains("connection: close"), "\(answers)")
            #expect(try await receive(kept, timeout: .milliseconds(500)) == nil, "the connection stays open")
        }
    }

    /// Bytes that are not an HTTP/1.1 request get a JSON 400, as every other error, and the connection is closed;
    /// so is a CONNECT's, whose 405 goes without a body (NIO's encoder drops it), so the client does not wait for one.
    @Test func unreadableRequestsAndConnectAreAnsweredAndClosed() async throws {
        try await withServer(LiveServer.configuration(root: nil) { $0.idleTimeout = .seconds(30) }) { s async throws in
            for (request, detail) in [
                ("GARBAGE\r\n\r\n", "invalid HTTP method"),
                ("GET /health HTTP/1.1\r\nHost: a\r\nContent-Length: zz\r\n\r\n", "invalid character in content-length header"),
            ] {
                let (text, after) = try await answerBeforeClose(port: s.port, sending: request)
                let parts = text.components(separatedBy: "\r\n\r\n")
                #expect(parts.count == 2 && parts[0].hasPrefix("HTTP/1.1 400 ") && parts[0].contains("Content-Type: application/json"), "\(text)")
                #expect(parts.last == "{\"error\":\"The request is not HTTP/1.1 that can be read (\(detail)).\",\"status\":400}", "\(text)")
                #expect(after < .seconds(10), "closed after \(after)")
            }
            let (text, after) = try await answerBeforeClose(port: s.port, sending: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n")
            #expect(text.hasPrefix("HTTP/1.1 405 ") && text.lowercased().contains("connection: close"), "\(text)")
            #expect(after < .seconds(10), "closed after \(after)")
        }
    }

    /// A graceful shutdown finishes the responses in flight to their last byte, also one much larger than the
    /// socket's buffer that the client has not read yet when the server closes the connection: a shutdown while
    /// the image is made, and one while the close of an idle timeout waits for the image to be read.
    @Test(arguments: [(idle: 30.0, shutdown: 0.3, read: 4.0), (idle: 2.0, shutdown: 4.5, read: 1.5)])
    func shutdownFinishesLargeResponses(_ timing: (idle: Double, shutdown: Double, read: Double)) async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            try await withServer(LiveServer.configuration(root: root) { $0.idleTimeout = .seconds(timing.idle) }) { s async throws in
                let fd = try connection(
                    port: s.port, sending: "GET \(signed("/rs:force:3000:3000/plain/local:///group.jpg@png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                defer { close(fd) }
                try await Task.sleep(for: .seconds(timing.shutdown))
                await s.group.triggerGracefulShutdown()
                try await Task.sleep(for: .seconds(timing.read))  // the image is written, the connection's close asked for
                let received = try await receiveUntilClosed(fd, timeout: .seconds(30))
                let split = try #require(received.firstRange(of: Array("\r\n\r\n".utf8)), "no response head: \(received.count) bytes")
                let head = String(decoding: received[..<split.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst(15).trimmingPrefix(" ")) }
                #expect(head.hasPrefix("http/1.1 200") && length != nil && length! > 4_000_000, "\(head)")
                #expect(received.count - split.upperBound == length, "\(received.count - split.upperBound) of \(String(describing: length)) bytes")
            }
        }
    }

    /// --max-connections: at the cap the server accepts no more connections; a request on one made meanwhile waits
    /// in the listen queue, unanswered, and is answered as soon as another connection closes.
    @Test func connectionsOverTheCapWaitToBeAccepted() async throws {
        try await withServer(LiveServer.configuration(root: nil) { $0.maxConnections = 2 }) { s async throws in
            let held = try [connectSocket(port: s.port), connectSocket(port: s.port)]
            defer { for fd in held { close(fd) } }
            // The two accepted (then accepting is paused, on the listening channel's loop).
            let deadline = ContinuousClock.now + .seconds(10)
            while s.server.connections.count < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            try await Task.sleep(for: .milliseconds(200))
            let third = try connectSocket(port: s.port)
            defer { close(third) }
            let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            #expect(send(third, request, request.count, 0) == request.count)
            #expect(try await receive(third, timeout: .seconds(1)) == nil, "answered while two connections were open")
            shutdown(held[0], Int32(SHUT_RDWR))
            let answer = try await receive(third, timeout: .seconds(30)).map { String(decoding: $0, as: UTF8.self) }
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(String(describing: answer))")
        }
    }

    @Test func gravityAndFit() async throws {
        try await withScratch { dir in
            let root = try makeRoot(in: dir)
            try await withServer(LiveServer.configuration(root: root)) { s async throws in
                func crop(_ options: String) async throws -> [String: Any] {
                    let r = try await s.get("/info" + signed("/\(options)/plain/local:///group.jpg"))
                    #expect(r.status == 200, "\(options): \(r)")
                    return try #require(r.json?["crop"] as? [String: Any])
                }
                func rect(_ c: [String: Any]) -> [Int] {
                    let r = c["rect"] as? [String: Any] ?? [:]
                    return ["x", "y", "width", "height"].map { r[$0] as? Int ?? -1 }
                }
                let input = try #require(try await s.get("/info" + signed("/plain/local:///group.jpg")).json?["input"] as? [String: Any])
                let (w, h) = (input["width"] as? Int ?? 0, input["height"] as? Int ?? 0)
                let centre = rect(try await crop("rs:fill:100:100/g:ce"))
                #expect(centre[2] == h && centre[3] == h && centre[0] == (w - h) / 2, "\(centre)")
                let left = rect(try await crop("rs:fill:100:100/g:fp:0:0.5"))
                #expect(left[0] == 0 && left[2] == h)
                let right = rect(try await crop("rs:fill:100:100/g:fp:1:0.5"))
                #expect(right[0] == w - h)
                let face = try await crop("rs:fill:100:100/margin:10p/strategy:largest")
                #expect(face["strategy"] as? String == "largest" && face["region"] != nil)
                let fit = try await s.get("/info" + signed("/rs:fit:300:300/plain/local:///group.jpg"))
                let out = try #require(fit.json?["output"] as? [String: Any])
                #expect(out["width"] as? Int == 300 && out["height"] as? Int == Int((300.0 * Double(h) / Double(w)).rounded()))
                // Without an aspect, fit, force and one side show the whole image, the faces still listed; with
                // `aspect:` the crop is planned around the faces.
                for options in ["rs:fit:300:300", "rs:force:300:100", "w:300", "rs:fill:300:0"] {
                    #expect(rect(try await crop(options)) == [0, 0, w, h], "\(options)")
                }
                #expect((fit.json?["faces"] as? [Any])?.count == 4)
                let zoomed = rect(try await crop("rs:fit:300:300/aspect:original"))
                #expect(zoomed[2] < w && zoomed[3] < h, "\(zoomed)")
                let small = try await s.get(signed("/rs:fill:4000:4000/el:0/plain/local:///group.jpg@jpg"))
                let info = try imageInfo(small.body)
                #expect(info.width == h && info.height == h, "not enlarged: the crop's own size")
            }
        }
    }
}
