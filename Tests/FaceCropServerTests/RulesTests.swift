// The server's pure parts, table-driven: URL options, signatures, path confinement, Accept, ETags, output sizes,
// configuration.
import FaceCrop
import Testing

@testable import FaceCropServer

struct ImageURLTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var path: String
        var check: @Sendable (ImageURL) -> Bool
        var testDescription: String { path }
    }

    static let valid: [Row] = [
        Row(path: "/sig/rs:fill:300:200/plain/local:///a/b.jpg@webp") {
            $0.signature == "sig" && $0.signedPath == "/rs:fill:300:200/plain/local:///a/b.jpg@webp" && $0.options.resize == .fill
                && $0.options.width == 300 && $0.options.height == 200 && $0.source == .local("a/b.jpg") && $0.extensionFormat == .webp
        },
        Row(path: "/_/plain/local:///a.jpg") { $0.options == ProcessingOptions() && $0.askedFormat == nil && $0.source == .local("a.jpg") },
        Row(path: "/s/resize:fill-down:10:20:0/g:sm/plain/local:///a.jpg") {
            $0.options.resize == .fillDown && !$0.options.enlarge && $0.options.gravity == .smart
        },
        Row(path: "/s/w:640/h:0/q:70/f:avif/plain/local:///a.jpg") {
            $0.options.width == 640 && $0.options.height == 0 && $0.options.quality == 70 && $0.askedFormat == .avif
        },
        Row(path: "/s/f:avif/plain/local:///a.jpg@png") { $0.askedFormat == .png },
        Row(path: "/s/q:0/plain/local:///a.jpg") { $0.options.quality == nil },
        Row(path: "/s/g:fp:0.25:0.75/plain/local:///a.jpg") { $0.options.gravity == .focus(x: 0.25, y: 0.75) },
        Row(path: "/s/gravity:ce/plain/local:///a.jpg") { $0.options.gravity == .center },
        Row(path: "/s/g:face/aspect:16:9/strategy:largest/margin:40p/plain/local:///a.jpg") {
            $0.options.aspect == .ratio(width: 16, height: 9) && $0.options.strategy == .largest && $0.options.margin == .percentOfFaceHeight(40)
        },
        Row(path: "/s/margin:120/aspect:original/plain/local:///a.jpg") { $0.options.margin == .pixels(120) && $0.options.aspect == .original },
        Row(path: "/s/no-enlarge/plain/local:///a.jpg") { !$0.options.enlarge },
        Row(path: "/s/el:0/el:1/plain/local:///a.jpg") { $0.options.enlarge },
        Row(path: "/s/s:100:50/rt:force/plain/local:///a.jpg") { $0.options.resize == .force && $0.options.width == 100 && $0.options.height == 50 },
        Row(path: "/s/plain/local:///dir%20with%20space/%C3%A9t%C3%A9.jpg@jpg") { $0.source == .local("dir with space/été.jpg") },
        Row(path: "/s/plain/http://Example.COM:8080/x/y.jpg?v=1@webp") {
            $0.source == .remote(url: "http://Example.COM:8080/x/y.jpg?v=1", host: "example.com") && $0.extensionFormat == .webp
        },
        Row(path: "/s/plain/http://[::1]:9/x.jpg") { $0.source == .remote(url: "http://[::1]:9/x.jpg", host: "[::1]") },
        // base64url of "http://example.com/images/curiosity.jpg", without padding
        Row(path: "/s/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png") {
            $0.source == .remote(url: "http://example.com/images/curiosity.jpg", host: "example.com") && $0.extensionFormat == .png
                && !$0.options.enlarge
        },
        Row(path: "/s/bG9jYWw6Ly8vYS5qcGc") { $0.source == .local("a.jpg") && $0.extensionFormat == nil },
    ]

    @Test(arguments: valid)
    func parses(_ row: Row) throws {
        let url = try ImageURL.parse(row.path)
        #expect(row.check(url), "\(url)")
    }

    static let invalid: [(path: String, status: Int, words: String)] = [
        ("/", 400, "Expected /SIGNATURE"),
        ("/onlysig", 400, "Expected /SIGNATURE"),
        ("/s/rs:crop:1:1/plain/local:///a.jpg", 400, "resizing type"),
        ("/s/w:-1/plain/local:///a.jpg", 400, "width or height"),
        ("/s/w:10000001/plain/local:///a.jpg", 400, "width or height"),
        ("/s/w:abc/plain/local:///a.jpg", 400, "width or height"),
        ("/s/q:101/plain/local:///a.jpg", 400, "quality"),
        ("/s/f:gif/plain/local:///a.jpg", 400, "format"),
        ("/s/g:no/plain/local:///a.jpg", 400, "gravity"),
        ("/s/g:fp:2:0/plain/local:///a.jpg", 400, "focus point"),
        ("/s/g:fp:0x0.8p0:0.5/plain/local:///a.jpg", 400, "focus point"),
        ("/s/g:sm:1/plain/local:///a.jpg", 400, "argument"),
        ("/s/aspect:0:1/plain/local:///a.jpg", 400, "aspect"),
        ("/s/aspect:100000:1/plain/local:///a.jpg", 400, "1:10000"),
        ("/s/strategy:biggest/plain/local:///a.jpg", 400, "strategy"),
        ("/s/margin:-5/plain/local:///a.jpg", 400, "margin"),
        ("/s/margin:40%25/plain/local:///a.jpg", 400, "margin"),
        ("/s/margin:2000000/plain/local:///a.jpg", 400, "at most"),
        ("/s/el:maybe/plain/local:///a.jpg", 400, "1 or 0"),
        ("/s/blur:5/plain/local:///a.jpg", 400, "Unknown processing option 'blur'"),
        ("/s/no-enlarge:1/plain/local:///a.jpg", 400, "argument"),
        ("/s/plain/local:///a.jpg@gif", 400, "extension"),
        ("/s/plain/local://a.jpg", 400, "three slashes"),
        ("/s/plain/local:///../etc/passwd", 400, "'..'"),
        ("/s/plain/local:///a/../../etc/passwd", 400, "'..'"),
        ("/s/plain/local:///%2e%2e/etc/passwd", 400, "'..'"),
        ("/s/plain/local:///a/%2E%2E/%2e%2e/x", 400, "'..'"),
        ("/s/plain/local:///./a.jpg", 400, "'..'"),
        ("/s/plain/local:///a//b.jpg", 400, "empty names"),
        ("/s/plain/local:///a%00.jpg", 400, "'..'"),
        ("/s/plain/local:///a%zz.jpg", 400, "percent-encoded"),
        ("/s/plain/file:///etc/passwd", 400, "local:///"),
        ("/s/plain/ftp://example.com/a.jpg", 400, "local:///"),
        ("/s/plain/http://user:pw@example.com/a.jpg", 400, "user name"),
        ("/s/plain/http:///a.jpg", 400, "not a valid URL"),
        // A port the HTTP client would trap on (over 65535) or wrap, and anything else after the host.
        ("/s/plain/http://127.0.0.1:65536/x.jpg", 400, "port from 1 to 65535"),
        ("/s/plain/http://[::1]:70000/x.jpg", 400, "port from 1 to 65535"),
        ("/s/plain/http://localhost:99999/x.jpg", 400, "port from 1 to 65535"),
        ("/s/plain/http://example.com:0/x.jpg", 400, "port from 1 to 65535"),
        ("/s/plain/http://example.com:+80/x.jpg", 400, "port from 1 to 65535"),
        ("/s/plain/http://example.com:/x.jpg", 400, "port from 1 to 65535"),
        ("/s/plain/http://[::1]x/x.jpg", 400, "port from 1 to 65535"),
        ("/s/not*base64", 400, "base64url"),
        ("/s/Zm9v.gif", 400, "extension"),
    ]

    @Test(arguments: invalid)
    func refuses(_ row: (path: String, status: Int, words: String)) {
        #expect {
            _ = try ImageURL.parse(row.path)
        } throws: { error in
            guard let e = error as? ServerError else { return false }
            return e.status == row.status && e.message.contains(row.words)
        }
    }

    @Test func canonicalIsTheSameForTheSameMeaning() throws {
        let a = try ImageURL.parse("/s/rs:fill:300:200/g:face/q:0/plain/local:///a.jpg").options.canonical
        let b = try ImageURL.parse("/s/w:300/h:200/rt:fill/plain/local:///a.jpg").options.canonical
        let c = try ImageURL.parse("/s/w:300/h:201/rt:fill/plain/local:///a.jpg").options.canonical
        #expect(a == b)
        #expect(a != c)
        let sameAspect = try ["aspect:16:9", "aspect:32:18"].map { try ImageURL.parse("/s/w:640/\($0)/plain/local:///a.jpg").options.canonical }
        #expect(sameAspect[0] == sameAspect[1])
        #expect(try ImageURL.parse("/s/w:640/aspect:original/plain/local:///a.jpg").options.canonical != sameAspect[0])
        // The format is the ETag's own part (the one served), however the URL asked for it.
        #expect(try ImageURL.parse("/s/f:png/plain/local:///a.jpg").options.canonical == ImageURL.parse("/s/plain/local:///a.jpg@png").options.canonical)
    }

    @Test func base64RoundTrip() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "local:///a/b c.jpg"] {
            let encoded = base64URLEncoded(Array(text.utf8))
            #expect(!encoded.contains("="))
            #expect(base64URLDecoded(encoded) == Array(text.utf8), "\(text)")
        }
        #expect(base64URLEncoded(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(base64URLEncoded([0xFB, 0xFF]) == "-_8")
        #expect(base64URLDecoded("Zm9vYg==") == Array("foob".utf8))
        #expect(base64URLDecoded("Zm9vYg=") == nil && base64URLDecoded("Zm9vYg===") == nil && base64URLDecoded("Zm9vYmFy====") == nil)
        #expect(base64URLDecoded("A") == nil)
        #expect(base64URLDecoded("Zm+v") == nil)
    }
}

struct SignatureTests {
    // imgproxy's documented key and salt; signatures computed with Python's hmac module.
    static let key = SigningKey(
        key: hexDecoded("943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881")!,
        salt: hexDecoded("520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")!)
    static let other = SigningKey(key: [1, 2, 3], salt: [4, 5, 6])

    static let rows: [(signature: String, path: String, keys: [SigningKey], valid: Bool)] = [
        ("4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw", "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png", [key], true),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], true),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0", "/rs:fill:256:256/plain/local:///portrait.png@webp", [other, key], true),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0", "/rs:fill:256:256/plain/local:///portrait.png@webp", [other], false),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0", "/rs:fill:256:257/plain/local:///portrait.png@webp", [key], false),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0=", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], true),
        // More "=" than padding needs would make one signed URL many cache keys.
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0==", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], false),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0=====", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], false),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS1", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], false),
        ("p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], false),
        ("", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], false),
        ("insecure", "/rs:fill:256:256/plain/local:///portrait.png@webp", [key], false),
    ]

    @Test(arguments: rows)
    func checks(_ row: (signature: String, path: String, keys: [SigningKey], valid: Bool)) {
        #expect(Signature.isValid(row.signature, path: row.path, keys: row.keys) == row.valid)
    }

    @Test func signsLikeImgproxy() {
        #expect(Self.key.sign("/rs:fill:256:256/plain/local:///portrait.png@webp") == "p2Sg8UfK0XmK7CaybH0TjwYKKdrrY4uOrjsJC-HqZS0")
    }

    @Test func keyPairs() throws {
        #expect(try SigningKey.pairs(keys: "0a0b, 0c", salts: "01,02") == [SigningKey(key: [10, 11], salt: [1]), SigningKey(key: [12], salt: [2])])
        #expect(throws: ServerError.self) { try SigningKey.pairs(keys: "0a", salts: "") }
        #expect(throws: ServerError.self) { try SigningKey.pairs(keys: "0a,0b", salts: "01") }
        #expect(throws: ServerError.self) { try SigningKey.pairs(keys: "xyz1", salts: "01") }
        #expect(throws: ServerError.self) { try SigningKey.pairs(keys: "abc", salts: "01") }
    }
}

struct ConfinementTests {
    @Test(arguments: [
        ("a.jpg", true), ("a/b/c.jpg", true), ("..a.jpg", true), ("a..jpg", true), ("...", true), (" ", true),
        ("", false), ("..", false), ("a/..", false), ("../a", false), ("a/../b", false), (".", false), ("a/./b", false),
        ("a//b", false), ("a/", false), ("/a", false), ("a\0b", false),
        // A "/" with a combining mark after it is one Character, and still a separator.
        ("../\u{301}x.jpg", false), ("a/\u{301}/../b", false), ("a/\u{301}x.jpg", true),
    ])
    func relativePath(_ row: (String, Bool)) {
        let accepted = (try? LocalRoot.relativePath(row.0)) != nil
        #expect(accepted == row.1, "\(row.0)")
    }

    @Test(arguments: [
        ("/srv/img/a.jpg", "/srv/img", true), ("/srv/img/x/y", "/srv/img", true), ("/srv/img", "/srv/img", false),
        ("/srv/images/a.jpg", "/srv/img", false), ("/srv/imga.jpg", "/srv/img", false), ("/etc/passwd", "/srv/img", false),
        ("/etc/passwd", "", true),
        // Bytes, not canonical equivalence: a KELVIN SIGN is not a K, a decomposed é not a composed one.
        ("/tmp/\u{212A}root/a.jpg", "/tmp/Kroot", false), ("/srv/cafe\u{301}/a.jpg", "/srv/caf\u{E9}", false),
        ("/srv/caf\u{E9}/a.jpg", "/srv/caf\u{E9}", true),
    ])
    func inside(_ row: (String, String, Bool)) {
        #expect(LocalRoot.isInside(row.0, root: row.1) == row.2)
    }
}

struct HTTPRulesTests {
    /// Request text in a log line: a newline would start a forged line of the key=value logs.
    @Test func logTextEscapesControlCharacters() {
        #expect(LogText.escaped("nope\n2026 info status=200\r\u{7F}\u{85}.jpg") == "nope\\u{a}2026 info status\\u{3d}200\\u{d}\\u{7f}\\u{85}.jpg")
        #expect(LogText.escaped("caf\u{E9}/a b.jpg") == "caf\u{E9}/a b.jpg")
        #expect(LogText.escaped("a.jpg status=200 \"x\"") == "a.jpg status\\u{3d}200 \\u{22}x\\u{22}")
    }

    @Test(
        arguments: [
            (nil, ImageFormat.jpeg), ("*/*", .jpeg), ("image/*", .jpeg), ("image/webp,*/*", .webp), ("image/avif,image/webp,*/*", .avif),
            ("image/webp,image/avif", .avif), ("image/avif;q=0.5, image/webp", .webp), ("image/avif;q=0,image/webp;q=0", .jpeg),
            ("IMAGE/AVIF", .avif), ("image/avif;q=0.8,image/webp;q=0.8", .avif), ("text/html, image/webp;q=0.1", .webp), ("image/webp;q=abc", .jpeg),
            ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", .avif), ("image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", .webp),
        ] as [(String?, ImageFormat)])
    func negotiate(_ row: (String?, ImageFormat)) {
        #expect(HTTPRules.negotiate(accept: row.0) == row.1)
    }

    @Test(
        arguments: [
            (nil, "\"abc\"", false), ("\"abc\"", "\"abc\"", true), ("W/\"abc\"", "\"abc\"", true), ("\"x\", \"abc\"", "\"abc\"", true),
            ("*", "\"abc\"", false), ("\"abd\"", "\"abc\"", false), ("abc", "\"abc\"", false), ("", "\"abc\"", false),
        ] as [(String?, String, Bool)])
    func ifNoneMatch(_ row: (String?, String, Bool)) {
        #expect(HTTPRules.matches(ifNoneMatch: row.0, etag: row.1) == row.2)
    }

    /// `*` matches whatever renders, so the server answers it after rendering (`matches` leaves it out).
    @Test(arguments: [(nil, false), ("*", true), (" * ", true), ("\"abc\", *", true), ("\"*\"", false), ("\"abc\"", false)] as [(String?, Bool)])
    func wildcard(_ row: (String?, Bool)) {
        #expect(HTTPRules.isWildcard(ifNoneMatch: row.0) == row.1)
    }

    @Test func etagDependsOnEverything() throws {
        let o = try ImageURL.parse("/s/rs:fill:10:10/plain/local:///a.jpg").options
        var p = o
        p.quality = 50
        let base = HTTPRules.etag(version: "1", kind: "image", source: SourceIdentity("f:1"), options: o, format: .jpeg)
        #expect(base.hasPrefix("\"") && base.hasSuffix("\"") && base.count == 26)
        #expect(base == HTTPRules.etag(version: "1", kind: "image", source: SourceIdentity("f:1"), options: o, format: .jpeg))
        for other in [
            HTTPRules.etag(version: "2", kind: "image", source: SourceIdentity("f:1"), options: o, format: .jpeg),
            HTTPRules.etag(version: "1", kind: "info", source: SourceIdentity("f:1"), options: o, format: .jpeg),
            HTTPRules.etag(version: "1", kind: "image", source: SourceIdentity("f:2"), options: o, format: .jpeg),
            HTTPRules.etag(version: "1", kind: "image", source: SourceIdentity("f:1"), options: p, format: .jpeg),
            HTTPRules.etag(version: "1", kind: "image", source: SourceIdentity("f:1"), options: o, format: .webp),
        ] {
            #expect(other != base)
        }
    }

    @Test func errorJSON() {
        #expect(ServerError(400, "Bad \"x\"\n\u{1}").json == "{\"error\":\"Bad \\\"x\\\"\\n\\u0001\",\"status\":400}")
    }

    @Test(
        arguments: [
            (FaceCropError.fileTooLarge("a", bytes: 2, limit: 1), 413), (.tooManyPixels("a", width: 1, height: 1, limit: 0), 413),
            (.wholeFrameTooLarge("a", kind: "k", width: 1, height: 1, bytes: 2, limit: 1), 413), (.notAnImage("a"), 422),
            (.corruptImage("a", detail: "d"), 422), (.inputEmpty("a"), 422), (.inputIsVideo("a"), 422), (.blockedLoader("a"), 422),
            (.inputNotFound("a"), 404), (.inputNotRegularFile("a"), 404), (.invalidSetting("x"), 400),
            (.outputTooLarge("a", width: 1, height: 1, reason: "r"), 400), (.detector("d"), 500), (.imageProcessing("p"), 500),
        ] as [(FaceCropError, Int)])
    func statusOfLibraryErrors(_ row: (FaceCropError, Int)) {
        #expect(ServerError(row.0).status == row.1)
        #expect(!ServerError(row.0).message.contains("'facecrop "), "the command line's advice is not the server's")
    }

    @Test(
        arguments: [
            ("example.com", ["example.com"], true), ("img.example.com", ["*.example.com"], true), ("a.b.example.com", ["*.example.com"], true),
            ("example.com", ["*.example.com"], false), ("evil-example.com", ["*.example.com"], false), ("example.com.evil", ["example.com"], false),
            ("127.0.0.1", ["127.0.0.1"], true), ("localhost", ["127.0.0.1"], false),
        ] as [(String, Set<String>, Bool)])
    func allowList(_ row: (String, Set<String>, Bool)) {
        #expect(OriginFetcher.isAllowed(row.0, by: row.1) == row.2)
    }

    @Test(arguments: [
        ("/b.jpg", "http://h/a/x.jpg", "http://h/b.jpg"), ("c.jpg", "http://h/a/x.jpg?q", "http://h/a/c.jpg"),
        ("https://o/z.jpg", "http://h/a", "https://o/z.jpg"), ("//o/z.jpg", "https://h/a", "https://o/z.jpg"), ("y", "http://h", "http://h/y"),
        // A reference with a scheme is absolute, whatever the scheme (then refused as a source, 502).
        ("file:///etc/passwd", "http://h/a/x.jpg", "file:///etc/passwd"), ("HTTP://O/z.jpg", "http://h/a", "HTTP://O/z.jpg"),
        ("local:///g.jpg", "http://h/a", "local:///g.jpg"), ("a:b/c.jpg", "http://h/d/", "a:b/c.jpg"), ("./a:b.jpg", "http://h/d/", "http://h/d/./a:b.jpg"),
    ])
    func redirectTargets(_ row: (String, String, String)) {
        #expect(OriginFetcher.resolve(row.0, against: row.1) == row.2)
    }
}

struct OutputPlanTests {
    static func options(_ text: String) throws -> ProcessingOptions { try ImageURL.parse("/s/\(text)/plain/local:///a.jpg").options }

    @Test(
        arguments: [
            // options, crop size, the crop's aspect, output size, not enlarged
            ("rs:fill:300:200", ImageSize(width: 900, height: 600), Aspect.ratio(width: 3, height: 2), OutputSize.exact(width: 300, height: 200), false),
            ("rs:fill:300:200/el:0", ImageSize(width: 90, height: 60), .ratio(width: 3, height: 2), .exact(width: 300, height: 200), true),
            ("rs:fill-down:300:200", ImageSize(width: 90, height: 60), .ratio(width: 3, height: 2), .exact(width: 300, height: 200), true),
            ("rs:fill:1920:1080/aspect:1:1", ImageSize(width: 1600, height: 900), .ratio(width: 16, height: 9), .exact(width: 1920, height: 1080), false),
            ("rs:force:100:100", ImageSize(width: 400, height: 200), .original, .exact(width: 100, height: 100), false),
            ("rs:fit:100:100", ImageSize(width: 400, height: 200), .original, .exact(width: 100, height: 50), false),
            ("rs:fit:1000:1000", ImageSize(width: 400, height: 200), .original, .exact(width: 1000, height: 500), false),
            ("rs:fit:1000:1000/el:0", ImageSize(width: 400, height: 200), .original, .exact(width: 400, height: 200), false),
            ("w:100", ImageSize(width: 400, height: 200), .original, .exact(width: 100, height: 50), false),
            ("h:100", ImageSize(width: 400, height: 200), .original, .exact(width: 200, height: 100), false),
            ("rs:fill:256:0/aspect:1:1", ImageSize(width: 500, height: 500), .ratio(width: 1, height: 1), .exact(width: 256, height: 256), false),
            ("aspect:16:9", ImageSize(width: 1600, height: 900), .ratio(width: 16, height: 9), nil, false),
            ("q:80", ImageSize(width: 1600, height: 900), .original, nil, false),
            ("w:1/h:1", ImageSize(width: 100_000, height: 1), .original, .exact(width: 1, height: 1), false),
        ] as [(String, ImageSize, Aspect, OutputSize?, Bool)])
    func output(_ row: (String, ImageSize, Aspect, OutputSize?, Bool)) throws {
        let o = try Self.options(row.0)
        #expect(o.cropAspect == row.2)
        let out = o.output(for: row.1)
        #expect(out.size == row.3)
        #expect(out.withoutEnlargement == row.4)
    }

    /// What the URL alone shows cannot be made is refused before the source is read; what depends on the source
    /// (a size that is a bound, not the output's) is left to the crop.
    @Test(
        arguments: [
            ("rs:fill:1:10000000", ImageFormat.png, "1:10000 to 10000:1"), ("rs:fill-down:20000:1", .png, "1:10000 to 10000:1"),
            ("w:10000000", .jpeg, "65500 a JPEG side"), ("rs:force:20000:100", .webp, "16383 pixels a WebP side"),
            ("rs:fill:20000:20000", .png, "limit of 268402689"), ("rs:force:20000:20000/el:0", .png, "limit of 268402689"),
            ("rs:fit:100000:100", .jpeg, nil), ("w:100000/el:0", .jpeg, nil), ("rs:fill-down:20000:20000", .png, nil),
            ("rs:fill:20000:20000/el:0", .png, nil), ("rs:fit:1:10000000", .png, nil), ("rs:fill:1920:1080", .jpeg, nil),
            ("rs:force:8000:8000", .avif, "AVIF encoder"), ("rs:force:8000:8000", .jpeg, nil), ("rs:force:4000:3000", .avif, nil),
        ] as [(String, ImageFormat, String?)])
    func checkedBeforeWork(_ row: (String, ImageFormat, String?)) throws {
        let o = try Self.options(row.0)
        do {
            try o.checkBeforeWork(format: row.1, maxOutputPixels: 268_402_689, maxEncodeMemory: FaceCropper.defaultMaxEncodeMemory)
            #expect(row.2 == nil, "\(row.0) accepted")
        } catch {
            #expect(error.status == 400 && row.2.map { error.message.contains($0) } == true, "\(row.0): \(error.message)")
        }
    }
}

struct ConfigurationTests {
    static let keys = ["FACECROP_KEY": "0a0b", "FACECROP_SALT": "0c"]

    @Test func flagsAndEnvironment() throws {
        let c = try ServerConfiguration.parse(
            arguments: [
                "--root", "/srv", "--allow-host", "A.example.com", "--allow-host=b.example.com", "--slots", "3", "--port=0", "--timeout", "2.5",
                "--detect-size", "320", "--threshold", "0.6",
            ],
            environment: Self.keys.merging(["FACECROP_SLOTS": "9", "FACECROP_QUEUE": "1", "FACECROP_MAX_CONNECTIONS": "64"]) { $1 })
        #expect(c.root == "/srv")
        #expect(c.allowedHosts == ["a.example.com", "b.example.com"])
        #expect(c.slots == 3)
        #expect(c.queue == 1)
        #expect(c.port == 0)
        #expect(c.requestTimeout == .milliseconds(2500))
        #expect(c.keys == [SigningKey(key: [10, 11], salt: [12])])
        #expect(c.detectSize == 320 && c.threshold == 0.6)
        #expect(c.maxConnections == 64)
        #expect(!c.allowUnsigned)
        let e = try ServerConfiguration.parse(
            arguments: [],
            environment: [
                "FACECROP_ROOT": "/r", "FACECROP_ALLOW_UNSIGNED": "1", "FACECROP_ALLOW_HOSTS": "x.org, y.org", "IMGPROXY_KEY": "01", "IMGPROXY_SALT": "02",
            ])
        #expect(e.allowUnsigned && e.root == "/r" && e.allowedHosts == ["x.org", "y.org"] && e.keys.count == 1)
        #expect(e.queue == 2 * e.slots)
        #expect(e.maxConnections == 512)
    }

    @Test(
        arguments: [
            (["--root", "/r"], [String: String](), "FACECROP_KEY"),
            ([], keys, "nothing to serve"),
            (["--root", "/r", "--slots", "0"], keys, "--slots"),
            (["--root", "/r", "--max-connections", "0"], keys, "--max-connections"),
            (["--root", "/r", "--bogus"], keys, "Unknown option"),
            (["--root", "/r", "--host", ""], keys, "Expected a host name or address for --host"),
            (["--root", "/r", "--host", "a b"], keys, "Expected a host name or address for --host"),
            (["--root"], keys, "Expected a value"),
            (["--root", "/r", "--timeout", "-1"], keys, "--timeout"),
            (["--root", "/r", "--idle-timeout", "0.0004"], keys, "from 0.001 to 3600 for --idle-timeout"),
            (["--root", "/r", "--detector", "dlib"], keys, "--detector"),
            (["--root", "/r", "--detect-size", "16"], keys, "--detect-size"),
            (["--root", "/r", "--threshold", "1.5"], keys, "--threshold"),
            (["--root", "/r", "--allow-unsigned=1"], keys, "takes no value"),
            (["--root", "/r"], ["FACECROP_KEY": "zz", "FACECROP_SALT": "00"], "hexadecimal"),
        ] as [([String], [String: String], String)])
    func refuses(_ row: ([String], [String: String], String)) {
        #expect {
            _ = try ServerConfiguration.parse(arguments: row.0, environment: row.1)
        } throws: { ($0 as? ConfigurationError)?.description.contains(row.2) == true }
    }
}
