import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A site build through the built binary: every width and format of an input in one run, no enlarging, a
/// site manifest a generator can read, and the mistakes a web developer makes on the way.
struct SiteBuildTests {
    static let widths = ["--aspect", "16:9", "--width", "1600", "--width", "800", "--width", "400"]
    static let formats = ["--format", "webp", "--format", "jpg", "--format", "avif"]

    /// group.jpg (2400x1350, its 16:9 crop 2190x1232) and portrait.png (512x512, its crop 512x288).
    func photos(_ dir: URL) throws {
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        _ = try copySample("Samples/group.jpg", to: photos, as: "group.jpg")
        _ = try copySample("Samples/portrait.png", to: photos, as: "portrait.png")
    }

    @Test func everyWidthAndFormatFromOneRunWithASiteManifest() throws {
        try withScratch { dir in
            try photos(dir)
            let args =
                ["photos", "--output-dir", "out"] + Self.widths + Self.formats + [
                    "--no-enlarge", "--site-manifest", "build/site.json", "--report", "build/report.jsonl",
                ]
            let run = try runBatch(args, in: dir)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")

            // group: 3 widths x 3 formats. portrait: its crop is 512 wide, so 1600 and 800 both give the crop's
            // own size (one file per format), 400 is as asked.
            let expected: Set<String> = Set(
                ["webp", "jpg", "avif"].flatMap { ext in
                    ["group-1600x900", "group-800x450", "group-400x225", "portrait-512x288", "portrait-400x225"].map { "\($0).\(ext)" }
                })
            #expect(listing(dir.appendingPathComponent("out")).subtracting([".facecrop"]) == expected)
            for name in expected {
                let back = try readBack("out/\(name)", in: dir)
                let size = name.split(separator: "-").last!.split(separator: ".").first!.split(separator: "x").map { Int($0)! }
                #expect([back.width, back.height] == size, "\(name)")
                #expect(
                    back.loader.hasPrefix(name.hasSuffix(".jpg") ? "jpegload" : name.hasSuffix(".webp") ? "webpload" : "heifload"), "\(name): \(back.loader)")
            }

            // The site manifest: inputs in order, every output with its format, size, bytes (those on disk) and crop.
            let site = try parseJSONObject(String(contentsOf: dir.appendingPathComponent("build/site.json"), encoding: .utf8))
            #expect(site.string("outputDir") == "out")
            let images = site["images"] as? [JSONObject] ?? []
            #expect(images.map { $0.string("input") } == ["photos/group.jpg", "photos/portrait.png"])
            #expect(images.map { $0.num("faces") } == [4, 1])
            // Each face's box in the upright input, inside it (group.jpg is 2400x1350).
            let boxes = (images.first?["faceBoxes"] as? [JSONObject]) ?? []
            #expect(boxes.count == 4, "\(images.first ?? [:])")
            for b in boxes {
                let (x, y, w, h) = (b.num("x") ?? -1, b.num("y") ?? -1, b.num("width") ?? 0, b.num("height") ?? 0)
                #expect(x >= 0 && y >= 0 && w >= 40 && h >= 40 && x + w <= 2400 && y + h <= 1350, "\(b)")
            }
            let outputs = images.flatMap { $0["outputs"] as? [JSONObject] ?? [] }
            #expect(Set(outputs.compactMap { $0.string("path") }) == Set(expected.map { "out/\($0)" }))
            for o in outputs {
                let path = o.string("path") ?? ""
                let bytes = (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(path).path)[.size] as? Int) ?? -1
                #expect(o.num("bytes").map(Int.init) == bytes, "\(path)")
                #expect(o.string("format") == (path.hasSuffix(".jpg") ? "jpeg" : path.hasSuffix(".webp") ? "webp" : "avif"), "\(path)")
                #expect(o.string("aspect") == "16:9" && o.object("crop")?.num("width") != nil)
                // Not enlarged: the portrait's outputs at the crop's size, asked 1600 or 800 wide.
                #expect((o["notEnlarged"] as? Bool == true) == path.contains("portrait-512x288"), "\(path)")
            }
            // The report says the same per line, with the summary last.
            let lines = try String(contentsOf: dir.appendingPathComponent("build/report.jsonl"), encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 3)
            #expect(try lines.dropLast().flatMap { try parseJSONObject(String($0))["outputs"] as? [JSONObject] ?? [] }.count == outputs.count)

            // The recipe's script makes a <picture> per input from it.
            let html = try runShell("python3 '\(CLI.repoFile("docs/examples/picture.py").path)' build/site.json", in: dir)
            #expect(html.status == 0 && html.stdout.components(separatedBy: "<picture>").count == 3, "\(html)")
            #expect(
                html.stdout.contains(
                    #"<source type="image/avif" srcset="/out/group-1600x900.avif 1600w, /out/group-800x450.avif 800w, /out/group-400x225.avif 400w""#))
            #expect(html.stdout.contains(#"<img src="/out/portrait-512x288.jpg" srcset="/out/portrait-512x288.jpg 512w, /out/portrait-400x225.jpg 400w""#))
            // AVIF first whatever the --format order: browsers take the first <source> they support.
            let avif = try #require(html.stdout.range(of: "image/avif"))
            let webp = try #require(html.stdout.range(of: "image/webp"))
            #expect(avif.lowerBound < webp.lowerBound)

            // One manifest per input covers every format: a second run skips both, a run without AVIF redoes them.
            let again = try runBatch(args, in: dir)
            #expect(again.status == 0 && again.stdout.components(separatedBy: ": skipped ->").count == 3, "\(again)")
            // Skipped inputs keep their faces' boxes (from their manifests).
            let skipped = try parseJSONObject(String(contentsOf: dir.appendingPathComponent("build/site.json"), encoding: .utf8))
            #expect(((skipped["images"] as? [JSONObject])?.first?["faceBoxes"] as? [JSONObject])?.count == 4)
            let fewer = try runBatch(["photos", "--output-dir", "out", "--format", "jpg", "--format", "webp", "--no-enlarge"] + Self.widths, in: dir)
            #expect(fewer.stdout.components(separatedBy: ": done ->").count == 3, "\(fewer)")
        }
    }

    @Test func withoutNoEnlargeSmallCropsAreEnlarged() throws {
        try withScratch { dir in
            try photos(dir)
            let run = try runBatch(["photos/portrait.png", "--output-dir", "out", "--size", "1600x900"], in: dir)
            #expect(run.status == 0, "\(run)")
            #expect(try readBack("out/portrait-1600x900.jpg", in: dir).width == 1600)

            let single = try runFaceCrop(["photos/portrait.png", "--size", "1600x900", "--no-enlarge", "-o", "p.png"], in: dir)
            #expect(single.status == 0 && single.stdout.contains("-> p.png (512x288)"), "\(single)")
            let json = try parseJSONObject(
                try runFaceCrop(["photos/portrait.png", "--size", "1600x900", "--no-enlarge", "-o", "p.png", "--json"], in: dir).stdout)
            #expect(json.object("output")?["notEnlarged"] as? Bool == true && json.object("output")?.num("width") == 512, "\(json)")
            let width = try runFaceCrop(["photos/portrait.png", "--width", "300", "--aspect", "1:1", "--no-enlarge", "-o", "w.png"], in: dir)
            #expect(width.status == 0 && width.stdout.contains("-> w.png (300x300)"), "\(width)")
        }
    }

    /// A width at most half another of the same crop is resized from that one: it matches a crop made
    /// directly to within resampling noise, upright on a rotated (EXIF 6) input too.
    @Test(arguments: [("Samples/group.jpg", 1600, 400), ("Golden/exif-6/input.jpg", 240, 96)])
    func smallerWidthsFromLargerMatchDirectCrops(_ source: String, _ large: Int, _ small: Int) throws {
        try withScratch { dir in
            _ = try copySample(source, to: dir, as: "in.jpg")
            let batch = try runBatch(
                ["in.jpg", "--output-dir", "out", "--aspect", "16:9", "--width", "\(large)", "--width", "\(small)", "--format", "png"], in: dir)
            #expect(batch.status == 0, "\(batch)")
            #expect(try runFaceCrop(["in.jpg", "--aspect", "16:9", "--width", "\(small)", "-o", "direct.png"], in: dir).status == 0)
            let name = try #require(listing(dir.appendingPathComponent("out")).first { $0.hasPrefix("in-\(small)x") })
            let r = try runShell("vips subtract out/\(name) direct.png d.v && vips abs d.v a.v && vips avg a.v", in: dir)
            let mean = Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity
            #expect(mean < 1.5, "mean difference \(mean) per sample: \(r)")
        }
    }

    /// Per-format quality: `--quality avif=30` changes the AVIF files only; a bad one is 64 before any work.
    @Test func qualityPerFormat() throws {
        try withScratch { dir in
            try photos(dir)
            let base = ["photos/group.jpg", "--size", "800x450", "--format", "jpg", "--format", "avif"]
            #expect(try runBatch(base + ["--output-dir", "a"], in: dir).status == 0)
            #expect(try runBatch(base + ["--output-dir", "b", "--quality", "avif=30"], in: dir).status == 0)
            func bytes(_ path: String) -> Data? { try? Data(contentsOf: dir.appendingPathComponent(path)) }
            #expect(bytes("a/group-800x450.jpg") == bytes("b/group-800x450.jpg"))
            #expect((bytes("b/group-800x450.avif")?.count ?? .max) < (bytes("a/group-800x450.avif")?.count ?? 0))
            for bad in ["gif=50", "avif=0", "avif=", "=50", "80", "png=50"] {
                let args = bad == "80" ? ["--quality", "80", "--quality", "70"] : ["--quality", bad]
                let r = try runBatch(base + ["--output-dir", "c"] + args, in: dir)
                #expect(r.status == 64 && r.stderrLines.count == 1, "\(bad): \(r)")
            }
            #expect(!listing(dir).contains("c"))
        }
    }

    /// `--strip` converts a Display P3 photo to sRGB before the profile goes: it looks as the tagged one does.
    @Test func stripConvertsToSRGBFirst() throws {
        try withScratch { dir in
            try ICCProfiles.displayP3.write(to: dir.appendingPathComponent("p3.icc"))
            _ = try copySample("Samples/group.jpg", to: dir, as: "plain.jpg")
            #expect(try runShell("vips copy plain.jpg 'p3.jpg[profile=p3.icc]'", in: dir).status == 0)
            let args = ["p3.jpg", "--size", "400x225"]
            #expect(try runFaceCrop(args + ["-o", "tagged.png"], in: dir).status == 0)
            #expect(try runFaceCrop(args + ["--strip", "-o", "stripped.png"], in: dir).status == 0)
            // The tagged crop shown in sRGB, against the stripped one: the same but for rounding. Against the
            // tagged crop's raw values (what --strip wrote before): clearly different.
            let shown = try runShell("vips icc_transform tagged.png shown.png srgb --embedded --intent relative", in: dir)
            #expect(shown.status == 0, "\(shown)")
            func difference(_ a: String, _ b: String) throws -> Double {
                let r = try runShell("vips subtract \(a) \(b) d.v && vips abs d.v a.v && vips avg a.v", in: dir)
                return Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity
            }
            #expect(try difference("stripped.png", "shown.png") < 0.5)
            #expect(try difference("stripped.png", "tagged.png") > 1.5)  // 2.8 on this photo
            let header = try runShell("vipsheader -f icc-profile-data stripped.png", in: dir)
            #expect(header.status != 0 || header.stdout.isEmpty, "no profile left: \(header)")
        }
    }

    @Test(arguments: [
        (["batch", "empty", "--output-dir", "out"], 66, "Error: No images found in 'empty';"),
        (["rank", "empty"], 66, "Error: No images found in 'empty';"),
        (
            ["batch", "photos", "--output-dir", "out", "--format", "gif"], 64,
            "Error: Expected jpg, png, webp, tif, heic or avif for --format but received 'gif'."
        ),
        (["photos/group.jpg", "photos/portrait.png", "-o", "x.jpg"], 64, "Error: facecrop crops one image at a time; for several, use 'facecrop batch"),
        (
            ["photos/group.jpg", "-o", "x"], 64,
            "Error: Output 'x' has no extension to take its format from; end it in .jpg, .png, .webp, .tif, .heic or .avif (or give '-o -' and --format for standard output)."
        ),
        (["photos/group.jpg", "-o", "out/"], 64, "Error: Expected a file name for -o but received 'out/', which names a folder."),
    ])
    func mistakesGetOneClearLine(_ args: [String], _ status: Int32, _ start: String) throws {
        try withScratch { dir in
            try photos(dir)
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("empty"), withIntermediateDirectories: true)
            let r = try runFaceCrop(args, in: dir)
            #expect(r.status == status && r.stderrLines.count == 1 && r.stderr.hasPrefix(start), "\(r)")
            #expect(!listing(dir).contains("out") && !listing(dir).contains("x.jpg"))
        }
    }

    /// `-` for input and output: the same bytes as through files; standard output holds only the image.
    @Test func pipes() throws {
        try withScratch { dir in
            try photos(dir)
            let args = "--aspect 16:9 --width 400"
            #expect(try runFaceCrop(["photos/group.jpg", "--aspect", "16:9", "--width", "400", "-o", "file.webp"], in: dir).status == 0)
            let piped = try runShell("\"$FACECROP\" - \(args) -o - --format webp < photos/group.jpg > piped.webp", in: dir)
            #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("piped.webp")) == Data(contentsOf: dir.appendingPathComponent("file.webp")))
            let toFile = try runShell("\"$FACECROP\" - \(args) -o in.webp < photos/group.jpg", in: dir)
            #expect(toFile.status == 0 && toFile.stdout == "-: 4 faces, crop 2190x1232+206+0 -> in.webp (400x225)\n", "\(toFile)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("in.webp")) == Data(contentsOf: dir.appendingPathComponent("file.webp")))

            for (command, status, message) in [
                ("\"$FACECROP\" photos/group.jpg -o -", 64, "Error: Give --format with '-o -': standard output has no extension to take it from."),
                (
                    "\"$FACECROP\" photos/group.jpg -o - --format jpg --json", 64,
                    "Error: --json and '-o -' would share standard output; write the image to a file."
                ),
                ("\"$FACECROP\" photos/group.jpg -o x.jpg --format webp", 64, "Error: --format is for '-o -'; a file's format follows its extension."),
                ("\"$FACECROP\" - -o - --format jpg < /dev/null", 65, "Error: Input '-' is empty (0 bytes)."),
                (
                    "printf '\\0\\0\\0\\30ftypisom\\0\\0\\2\\0isomiso2mp41' | \"$FACECROP\" - -o x.jpg", 65,
                    "Error: Standard input holds a video, not an image; 'facecrop best-frame' picks"
                ),
                // The output is checked before standard input is read: /dev/zero would otherwise be read to the limit.
                ("\"$FACECROP\" - -o nodir/x.jpg < /dev/zero", 73, "Error: Output folder 'nodir' does not exist."),
                ("head -c 4096 photos/group.jpg | \"$FACECROP\" - -o - --format jpg --max-file-size 1000", 65, "Error: Input '-' is"),
            ] {
                let r = try runShell(command, in: dir)
                #expect(r.status == Int32(status) && r.stderrLines.count == 1 && r.stderr.hasPrefix(message) && r.stdout.isEmpty, "\(command): \(r)")
            }
            #expect(!listing(dir).contains("x.jpg"))
        }
    }

    /// --width without --aspect takes each --size's aspect; a --name must give each format its own extension,
    /// refused before any work; --dry-run writes no site manifest (it would list files that were not written).
    @Test func sizesNamesAndDryRuns() throws {
        try withScratch { dir in
            try photos(dir)
            let sized = try runBatch(["photos/group.jpg", "--output-dir", "out", "--size", "1920x1080", "--width", "800"], in: dir)
            #expect(sized.status == 0, "\(sized)")
            #expect(listing(dir.appendingPathComponent("out")).subtracting([".facecrop"]) == ["group-1920x1080.jpg", "group-800x450.jpg"])

            for name in ["{stem}-{width}.webp", "{stem}-{width}"] {
                let r = try runBatch(["photos", "--output-dir", "named", "--name", name, "--format", "jpg"], in: dir)
                #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains("--name '\(name)'"), "\(r)")
            }
            let clash = try runBatch(["photos", "--output-dir", "named", "--name", "{stem}.jpg", "--format", "jpg", "--format", "webp"], in: dir)
            #expect(clash.status == 64 && clash.stderr.contains("WebP"), "\(clash)")
            #expect(!listing(dir).contains("named"))
            let upper = try runBatch(["photos/group.jpg", "--output-dir", "named", "--name", "{stem}.JPEG", "--width", "64"], in: dir)
            #expect(upper.status == 0 && listing(dir.appendingPathComponent("named")).contains("group.JPEG"), "\(upper)")

            let manifest = dir.appendingPathComponent("site.json")
            try Data("{}\n".utf8).write(to: manifest)
            let dry = try runBatch(["photos", "--output-dir", "dry", "--width", "64", "--site-manifest", "site.json", "--dry-run"], in: dir)
            #expect(dry.status == 0 && dry.stdout.contains("-> dry/group-64x64.jpg"), "\(dry)")
            #expect(try String(contentsOf: manifest, encoding: .utf8) == "{}\n")
        }
    }

    /// The recipe's script on a manifest with names a URL must encode and two aspects: one <picture> per
    /// aspect, names percent-encoded (a comma would split a srcset entry), widths largest first, once each.
    @Test func pictureScriptEncodesNamesAndKeepsAspectsApart() throws {
        try withScratch { dir in
            func output(_ path: String, _ format: String, _ width: Int, _ height: Int, _ aspect: String) -> String {
                #"{"path": "public/img/\#(path)", "format": "\#(format)", "width": \#(width), "height": \#(height), "aspect": "\#(aspect)", "bytes": 1}"#
            }
            let outputs = [
                output("my photo, 1-400.jpg", "jpeg", 400, 225, "16:9"), output("my photo, 1-800.jpg", "jpeg", 800, 450, "16:9"),
                output("my photo, 1-800.webp", "webp", 800, 450, "16:9"), output("my photo, 1-sq.jpg", "jpeg", 300, 300, "1:1"),
                output("my photo, 1-sq2.jpg", "jpeg", 300, 300, "1:1"),
            ]
            let site = #"{"images": [{"input": "in/my photo, 1.jpg", "faces": 1, "outputs": [\#(outputs.joined(separator: ","))]}]}"#
            try Data(site.utf8).write(to: dir.appendingPathComponent("site.json"))
            let html = try runShell("python3 '\(CLI.repoFile("docs/examples/picture.py").path)' site.json", in: dir)
            #expect(html.status == 0 && html.stdout.components(separatedBy: "<picture>").count == 3, "\(html)")
            #expect(
                html.stdout.contains(
                    #"<img src="/img/my%20photo%2C%201-800.jpg" srcset="/img/my%20photo%2C%201-800.jpg 800w, /img/my%20photo%2C%201-400.jpg 400w""#),
                "\(html.stdout)")
            #expect(html.stdout.contains(#"<source type="image/webp" srcset="/img/my%20photo%2C%201-800.webp 800w""#), "\(html.stdout)")
            #expect(html.stdout.contains(#"srcset="/img/my%20photo%2C%201-sq.jpg 300w" sizes"#), "\(html.stdout)")
        }
    }

    /// On a terminal (here `script`'s), rank shows the progress line batch shows; `-q` and pipes do without.
    @Test(arguments: ["rank photos", "batch photos --output-dir out"])
    func progressOnATerminal(_ command: String) throws {
        try withScratch { dir in
            try photos(dir)
            let shown = try runShell("script -qec '\"$FACECROP\" \(command)' /dev/null", in: dir)
            #expect(shown.status == 0 && shown.stdout.contains("2/2  ") && shown.stdout.contains(" img/s  ETA "), "\(shown)")
            let quiet = try runShell("script -qec '\"$FACECROP\" \(command) -q' /dev/null", in: dir)
            #expect(quiet.status == 0 && !quiet.stdout.contains("img/s"), "\(quiet)")
            let piped = try runFaceCrop(command.split(separator: " ").map(String.init), in: dir)
            #expect(piped.status == 0 && !piped.stderr.contains("img/s"), "\(piped)")
        }
    }

    /// A batch warns of cut faces as a single crop does.
    @Test func batchWarnsOfCutFaces() throws {
        try withScratch { dir in
            try photos(dir)
            let single = try runFaceCrop(["photos/group.jpg", "--aspect", "1:4", "--margin", "0", "-o", "one.jpg"], in: dir)
            let warning = try #require(single.stderrLines.first, "\(single)")
            let batch = try runBatch(
                ["photos/group.jpg", "--aspect", "1:4", "--margin", "0", "--output-dir", "out", "--format", "jpg", "--format", "webp"], in: dir)
            #expect(batch.status == 0 && batch.stderrLines == [warning], "\(batch)")
            // A face left out by --strategy largest is not one that "cannot fit": the warning says which, as
            // regionFits does in the report.
            let largest = try runFaceCrop(["photos/group.jpg", "--aspect", "1:1", "--strategy", "largest", "--dry-run", "--json"], in: dir)
            let crop = try #require(try parseJSONObject(largest.stdout).object("crop"))
            #expect(crop["regionFits"] as? Bool == true && (crop["cutFaces"] as? [Any])?.isEmpty == false, "\(crop)")
            #expect(largest.stderrLines.count == 1 && largest.stderr.contains("--strategy largest frames only the largest face"), "\(largest)")
        }
    }
}

/// ICC profiles made in code (none ship with the system's packages).
enum ICCProfiles {
    /// A version 2 matrix/TRC profile with Display P3's primaries (adapted to D50) and a 2.2 gamma.
    static var displayP3: Data {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func sig(_ s: String) -> [UInt8] { Array(s.utf8) }
        func s15(_ v: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { sig("XYZ ") + [0, 0, 0, 0] + s15(x) + s15(y) + s15(z) }
        let curve = sig("curv") + [0, 0, 0, 0] + be32(1) + [0x02, 0x33, 0, 0]  // gamma 2.2 (u8Fixed8), padded
        let name = Array("Display P3 (test)".utf8) + [0]
        let desc = sig("desc") + [0, 0, 0, 0] + be32(UInt32(name.count)) + name + [UInt8](repeating: 0, count: 4 + 4 + 2 + 1 + 67)
        let tags: [(String, [UInt8])] = [
            ("desc", desc), ("wtpt", xyz(0.9642, 1.0, 0.8249)),
            ("rXYZ", xyz(0.5151, 0.2412, -0.0011)), ("gXYZ", xyz(0.2920, 0.6922, 0.0419)), ("bXYZ", xyz(0.1571, 0.0666, 0.7841)),
            ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        var offset = 128 + 4 + 12 * tags.count
        var table = be32(UInt32(tags.count))
        var data = [UInt8]()
        for (name, bytes) in tags {
            let padded = bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
            table += sig(name) + be32(UInt32(offset)) + be32(UInt32(bytes.count))
            data += padded
            offset += padded.count
        }
        var header = be32(UInt32(offset)) + [0, 0, 0, 0] + be32(0x0210_0000) + sig("mntr") + sig("RGB ") + sig("XYZ ")
        header += [UInt8](repeating: 0, count: 12) + sig("acsp") + [UInt8](repeating: 0, count: 4 + 4 + 4 + 4 + 8 + 4)
        header += s15(0.9642) + s15(1.0) + s15(0.8249)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return Data(header + table + data)
    }
}
