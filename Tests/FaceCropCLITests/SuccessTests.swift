import FaceCrop
import Foundation
import Testing

/// Runs facecrop expecting exit status 0 (and no timeout); returns the result.
func expectSuccess(_ args: [String], in dir: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
    let r = try runFaceCrop(args, in: dir)
    #expect(!r.timedOut && r.status == 0, "facecrop \(args): \(r)", sourceLocation: sourceLocation)
    #expect(!r.stderr.contains("Error"), "facecrop \(args): \(r.stderr)", sourceLocation: sourceLocation)
    return r
}

func exists(_ name: String, in dir: URL) -> Bool { FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path) }

struct CropTests {
    @Test func aspect16x9WithMargin() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "group.jpg")
            let before = try FileSnapshot(dir.appendingPathComponent("group.jpg"))
            let r = try expectSuccess(["--aspect", "16:9", "--margin", "200", "group.jpg", "-o", "OUT.jpg"], in: dir)
            #expect(r.stdout.contains("-> OUT.jpg"), "\(r.stdout)")
            #expect(imageKind(of: dir.appendingPathComponent("OUT.jpg")) == .jpeg)
            let out = try readBack("OUT.jpg", in: dir)
            #expect(abs(Double(out.width) * 9 / 16 - Double(out.height)) <= 1, "\(out.width)x\(out.height) is not 16:9")
            #expect(out.loader.hasPrefix("jpegload"))
            #expect(try FileSnapshot(dir.appendingPathComponent("group.jpg")) == before)
            #expect(leftoverTempFiles(dir).isEmpty)
        }
    }

    @Test func exactSize() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            _ = try expectSuccess(["--size", "640x360", "in.jpg", "-o", "out.jpg"], in: dir)
            let out = try readBack("out.jpg", in: dir)
            #expect(out.width == 640 && out.height == 360)
        }
    }

    @Test func widthAndAspect() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            _ = try expectSuccess(["--width", "300", "--aspect", "4:5", "in.jpg", "-o", "out.jpg"], in: dir)
            let out = try readBack("out.jpg", in: dir)
            #expect(out.width == 300)
            #expect(abs(out.height - 375) <= 1, "height \(out.height)")
        }
    }

    @Test(arguments: [("png", ImageKind.png, "pngload"), ("webp", .webp, "webpload"), ("tif", .tiff, "tiffload")])
    func outputFormat(ext: String, kind: ImageKind, loader: String) throws {
        try withScratch { dir in
            try copySample("Samples/portrait.png", to: dir, as: "in.png")
            _ = try expectSuccess(["--width", "200", "in.png", "-o", "out.\(ext)"], in: dir)
            #expect(imageKind(of: dir.appendingPathComponent("out.\(ext)")) == kind)
            let out = try readBack("out.\(ext)", in: dir)
            #expect(out.width == 200 && out.height == 200, "\(out)")
            #expect(out.loader.hasPrefix(loader), "\(out.loader)")
            #expect(leftoverTempFiles(dir).isEmpty)
        }
    }

    /// libvips' format modules open when they are needed: a JPEG or HEIC run opens HEIF's and OpenSlide's (whose
    /// loader outranks the TIFF loader) only; a JPEG XL file is refused (65), still refused after a file no loader
    /// knows has opened the other modules, and read with --allow-untrusted-loaders; a VIPSHOME passed on by a
    /// parent that used libvips changes nothing. (glibc's LD_DEBUG=files names the libraries each run opens.)
    @Test func formatModulesOpenWhenNeeded() throws {
        try withScratch { dir in
            _ = try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            let small = CLI.repoFile("Samples/portrait.png").path  // encoding HEIC and JPEG XL is slow
            try vips(["copy", small, dir.appendingPathComponent("in.heic").path])
            try vips(["copy", small, dir.appendingPathComponent("in.jxl").path])
            try Data("not a picture\n".utf8).write(to: dir.appendingPathComponent("text.jpg"))
            func run(_ args: [String], _ environment: [String: String] = [:]) throws -> (status: Int32, stderr: String, modules: Set<String>) {
                let r = try runFaceCrop(args, in: dir, environment: environment.merging(["LD_DEBUG": "files"]) { $1 })
                let opened = r.stderr.split(separator: "\n").compactMap { line -> String? in
                    guard let file = line.split(separator: "file=").dropFirst().first?.split(separator: " ").first,
                        file.contains("/vips-modules-")
                    else { return nil }
                    return file.split(separator: "/").last.map(String.init)
                }
                return (r.status, r.stderr, Set(opened))
            }
            let atStart: Set = ["vips-heif.so", "vips-openslide.so"]
            let blocked = "Error: Input 'in.jxl' needs a libvips loader that is blocked for safety"
            let plain = try run(["detect", "in.jpg"])
            #expect(plain.status == 0 && plain.modules == atStart, "\(plain.modules)")
            let heic = try run(["detect", "in.heic"])
            #expect(heic.status == 0 && heic.modules == atStart, "\(heic.modules)")
            let refused = try run(["detect", "in.jxl"])
            #expect(refused.status == 65 && refused.stderr.contains(blocked))
            #expect(refused.modules.contains("vips-jxl.so"), "\(refused.modules)")
            let afterUnknown = try run(["rank", "--jobs", "1", "text.jpg", "in.jxl", "in.jpg"])
            #expect(afterUnknown.modules.contains("vips-jxl.so") && afterUnknown.stderr.contains(blocked), "\(afterUnknown.stderr.suffix(400))")
            let allowed = try run(["detect", "--allow-untrusted-loaders", "in.jxl"])
            #expect(allowed.status == 0 && allowed.modules.isSuperset(of: ["vips-heif.so", "vips-jxl.so", "vips-magick.so"]), "\(allowed.modules)")
            let inherited = try run(["detect", "in.jpg"], ["VIPSHOME": "/usr"])
            #expect(inherited.status == 0 && inherited.modules == atStart, "\(inherited.modules)")
        }
    }

    /// A TIFF in another colour space (scRGB floats, CIELAB, CIELAB coded in 4 bytes) or of sRGB written as floats
    /// of 0...255 (which libvips tags scRGB too) is cropped and annotated to the sRGB pixels of the JPEG it was made
    /// from: libvips 8.14's savers write scRGB as it is, a black JPEG, and CIELAB as noise; LabQ's 4th byte was
    /// taken for alpha in the annotated picture; 0...255 floats read as scRGB are white.
    @Test(arguments: ["scrgb", "lab", "labq", "float"])
    func otherColourSpacesAreWrittenInSRGB(_ space: String) throws {
        try withScratch { dir in
            let jpeg = try copySample("Samples/group.jpg", to: dir, as: "in.jpg").path
            let converted = dir.appendingPathComponent("in.v").path
            try vips(space == "float" ? ["cast", jpeg, converted, "float"] : ["colourspace", jpeg, converted, space])
            try vips(["tiffsave", converted, dir.appendingPathComponent("in.tif").path])
            func meanDistance(_ a: String, _ b: String) throws -> Double {
                let (difference, distance) = (dir.appendingPathComponent("difference.v").path, dir.appendingPathComponent("distance.v").path)
                try vips(["subtract", dir.appendingPathComponent(a).path, dir.appendingPathComponent(b).path, difference])
                try vips(["abs", difference, distance])
                return Double(try vips(["avg", distance]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity
            }
            for input in ["in.jpg", "in.tif"] {
                let crop = try runFaceCrop([input, "-o", input + ".png", "--aspect", "16:9"], in: dir)
                let annotated = try runFaceCrop(["annotate", input, "-o", input + ".annotated.png", "--no-quality"], in: dir)
                #expect(crop.status == 0 && annotated.status == 0, "\(crop) \(annotated)")
            }
            // LabQ keeps 8 bits of lightness and of each colour axis: a little further off than the other two.
            #expect(try meanDistance("in.jpg.png", "in.tif.png") < 3, "crop")
            #expect(try meanDistance("in.jpg.annotated.png", "in.tif.annotated.png") < 3, "annotated")
        }
    }

    @Test func overwritesAnExistingOutput() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            _ = try expectSuccess(["--aspect", "1:1", "--width", "200", "in.jpg", "-o", "out.jpg"], in: dir)
            let first = try Data(contentsOf: dir.appendingPathComponent("out.jpg"))
            _ = try expectSuccess(["--aspect", "16:9", "--width", "320", "in.jpg", "-o", "out.jpg"], in: dir)
            #expect(try Data(contentsOf: dir.appendingPathComponent("out.jpg")) != first)
            let out = try readBack("out.jpg", in: dir)
            #expect(out.width == 320 && out.height == 180, "\(out)")
            #expect(leftoverTempFiles(dir).isEmpty)
        }
    }

    @Test(arguments: ["my photo.jpg", "x[0].jpg"])
    func oddFileNames(_ name: String) throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: name)
            let output = "crop of " + name
            _ = try expectSuccess(["--width", "100", name, "-o", output], in: dir)
            #expect(imageKind(of: dir.appendingPathComponent(output)) == .jpeg)
            #expect(listing(dir) == [name, output])
        }
    }

    @Test func deterministic() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            let options = ["--aspect", "16:9", "--width", "480"]
            _ = try expectSuccess(options + ["in.jpg", "-o", "a.jpg"], in: dir)
            _ = try expectSuccess(options + ["in.jpg", "-o", "b.jpg"], in: dir)
            let a = try Data(contentsOf: dir.appendingPathComponent("a.jpg"))
            let b = try Data(contentsOf: dir.appendingPathComponent("b.jpg"))
            #expect(!a.isEmpty && a == b, "two runs gave different bytes")
        }
    }

    @Test func dryRunWritesNothing() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            let r = try expectSuccess(["--dry-run", "--json", "in.jpg", "-o", "out.jpg"], in: dir)
            let json = try parseJSONObject(r.stdout)
            #expect(json["output"] == nil)
            #expect(json.object("crop") != nil)
            #expect(listing(dir) == ["in.jpg"])
            // -o is optional with --dry-run.
            _ = try expectSuccess(["--dry-run", "in.jpg"], in: dir)
            #expect(listing(dir) == ["in.jpg"])
        }
    }
}

struct JSONReportTests {
    @Test func cropReportSchema() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            let r = try expectSuccess(["--json", "--aspect", "16:9", "--margin", "200", "in.jpg", "-o", "out.jpg"], in: dir)
            let json = try parseJSONObject(r.stdout)
            #expect(Set(json.keys) == ["version", "input", "analysis", "faces", "crop", "output", "timings"])
            #expect(json.string("version") == FaceCropper.version)

            let input = try #require(json.object("input"))
            #expect(Set(input.keys) == ["path", "width", "height", "orientation", "loader"])
            #expect(input.string("path") == "in.jpg")
            // swift-format-ignore: AlwaysUseLowerCamelCase
            let W = try #require(input.num("width"))
            // swift-format-ignore: AlwaysUseLowerCamelCase
            let H = try #require(input.num("height"))
            #expect(W == 2400 && H == 1350)
            #expect(input.num("orientation") == 1)
            #expect(input.string("loader")?.hasPrefix("jpegload") == true)

            let analysis = try #require(json.object("analysis"))
            #expect(Set(analysis.keys) == ["width", "height", "detector", "threshold", "uprightOrientation"])
            #expect(analysis["uprightOrientation"] is NSNull)
            #expect(analysis.string("detector") == "centerface")
            #expect(analysis.num("threshold") == 0.5)
            #expect(analysis.num("width") == 640)

            let faces = try #require(json["faces"] as? [JSONObject])
            #expect(faces.count == 4)
            for face in faces {
                #expect(Set(face.keys) == ["boundingBox", "rect", "confidence", "landmarks", "landmarkPoints"])
                let bb = try #require(face.object("boundingBox"))
                let rect = try #require(face.object("rect"))
                let (bx, by, bw, bh) = (bb.num("x")!, bb.num("y")!, bb.num("width")!, bb.num("height")!)
                // Vision (normalized, origin bottom-left) → pixels (origin top-left); both sides are rounded.
                let tolerance = 0.05 + 0.005
                #expect(abs(rect.num("x")! - bx * W) <= tolerance)
                #expect(abs(rect.num("y")! - (1 - by - bh) * H) <= tolerance)
                #expect(abs(rect.num("width")! - bw * W) <= tolerance)
                #expect(abs(rect.num("height")! - bh * H) <= tolerance)
                let confidence = try #require(face.num("confidence"))
                #expect(confidence >= 0.6 && confidence <= 1)
                let landmarks = try #require(face.object("landmarks"))
                let points = try #require(face.object("landmarkPoints"))
                #expect(Set(landmarks.keys) == ["rightEye", "leftEye", "nose", "mouthRight", "mouthLeft"])
                for (key, value) in landmarks {
                    let n = try #require(value as? JSONObject)
                    let p = try #require(points.object(key))
                    #expect(abs(p.num("x")! - n.num("x")! * W) <= tolerance, "\(key)")
                    #expect(abs(p.num("y")! - (1 - n.num("y")!) * H) <= tolerance, "\(key)")
                }
            }

            let crop = try #require(json.object("crop"))
            #expect(Set(crop.keys).isSuperset(of: ["strategy", "aspect", "ratio", "marginPixels", "region", "rect", "cutFaces", "regionFits"]))
            #expect(crop["fallback"] == nil)
            #expect(crop.string("strategy") == "all")
            #expect(crop.string("aspect") == "16:9")
            #expect(abs(crop.num("ratio")! - 16.0 / 9) < 1e-9)
            #expect(crop.num("marginPixels") == 200)
            #expect(crop["cutFaces"] is [Any])
            #expect(crop["regionFits"] is Bool)
            let region = try #require(crop.object("region"))
            #expect(Set(region.keys) == ["x", "y", "width", "height"])
            let cr = try #require(crop.object("rect"))
            let (cx, cy, cw, ch) = (cr.num("x")!, cr.num("y")!, cr.num("width")!, cr.num("height")!)
            #expect(cx >= 0 && cy >= 0 && cx + cw <= W && cy + ch <= H, "crop \(cr) outside \(W)x\(H)")
            #expect(abs(cw * 9 / 16 - ch) <= 1)

            let output = try #require(json.object("output"))
            #expect(Set(output.keys) == ["path", "width", "height", "format"])
            #expect(output.string("path") == "out.jpg")
            #expect(output.string("format") == "jpeg")
            #expect(output.num("width") == cw && output.num("height") == ch)
            let written = try readBack("out.jpg", in: dir)
            #expect(Double(written.width) == cw && Double(written.height) == ch)

            // Capture quality was not measured: no "quality" among the timings.
            let timings = try #require(json.object("timings"))
            #expect(Set(timings.keys) == ["load", "detect", "plan", "write", "total"])
            for (key, value) in timings { #expect((number(value) ?? -1) >= 0, "\(key)") }
        }
    }

    /// `timings.quality` is there whenever capture quality was measured, whatever the time it took, and only then.
    @Test func qualityTimingOnlyWhenMeasured() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            try copySample("Samples/landscape-no-face.jpg", to: dir, as: "none.jpg")
            let cases: [([String], Bool)] = [
                (["in.jpg", "--dry-run", "--json"], false),
                (["in.jpg", "--dry-run", "--json", "--min-quality", "0"], true),
                (["detect", "in.jpg", "--json"], false),
                (["detect", "in.jpg", "--json", "--quality"], true),
                (["detect", "none.jpg", "--json", "--quality"], true),
                (["annotate", "in.jpg", "-o", "a.png", "--json"], true),
                (["annotate", "in.jpg", "-o", "b.png", "--json", "--no-quality"], false),
            ]
            for (args, measured) in cases {
                let r = try expectSuccess(args, in: dir)
                let timings = try #require(try parseJSONObject(r.stdout).object("timings"), "\(args)")
                #expect((timings["quality"] != nil) == measured, "\(args): \(timings)")
                if measured { #expect((timings.num("quality") ?? -1) >= 0, "\(args)") }
            }
        }
    }
}

struct DetectTests {
    @Test func detectText() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            let r = try expectSuccess(["detect", "in.jpg"], in: dir)
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.first == "in.jpg: 2400x1350, 4 faces", "\(r.stdout)")
            #expect(lines.dropFirst().count == 4 && lines.dropFirst().allSatisfy { $0.hasPrefix("  #") }, "\(r.stdout)")
            #expect(listing(dir) == ["in.jpg"])
        }
    }

    @Test func detectJSON() throws {
        try withScratch { dir in
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            let r = try expectSuccess(["detect", "--json", "in.jpg"], in: dir)
            let json = try parseJSONObject(r.stdout)
            #expect((json["faces"] as? [Any])?.count == 4)
            #expect(json["crop"] == nil && json["output"] == nil)
        }
    }

    /// A group photo stored on its side without an EXIF orientation: all four faces, the orientation that shows
    /// them upright in the report and in detect's text, and a crop that names the faces it cannot keep.
    @Test func aPictureStoredOnItsSideGivesAllItsFaces() throws {
        try withScratch { dir in
            _ = try vips(["rot", CLI.repoFile("Samples/group.jpg").path, dir.appendingPathComponent("side.jpg").path, "d90"])
            let json = try parseJSONObject(try expectSuccess(["detect", "--json", "side.jpg"], in: dir).stdout)
            #expect((json["faces"] as? [JSONObject])?.count == 4)
            #expect(json.object("analysis")?.num("uprightOrientation") == 8, "\(json)")
            let text = try expectSuccess(["detect", "side.jpg"], in: dir).stdout
            #expect(text.contains("4 faces") && text.contains("EXIF orientation 8 shows them upright"), "\(text)")
            let crop = try expectSuccess(["--aspect", "1:1", "side.jpg", "-o", "out.jpg"], in: dir)
            #expect(crop.stdout.contains("4 faces") && crop.stderr.contains("of 4 cannot fit"), "\(crop)")
            // --margin N% is a share of the faces' height as they stand: along the picture's width here.
            let planned = try parseJSONObject(try expectSuccess(["--margin", "40%", "--json", "--dry-run", "side.jpg"], in: dir).stdout)
            let widths = try #require(planned["faces"] as? [JSONObject]).compactMap { $0.object("rect")?.num("width") }
            let margin = try #require(planned.object("crop")?.num("marginPixels"))
            #expect(widths.count == 4 && abs(margin - 0.4 * widths.reduce(0, +) / 4) < 0.02, "\(margin) \(widths)")
        }
    }

    /// Every detector's report has the same fields and names the detector that ran; CenterFace is the default.
    @Test func detectJSONHasTheSameFieldsForEveryDetector() throws {
        try withScratch { dir in
            try copySample("Samples/portrait.png", to: dir, as: "in.png")
            for detector in [nil, "centerface", "yunet", "haar"] {
                let r = try expectSuccess(["detect", "--json", "in.png"] + (detector.map { ["--detector", $0] } ?? []), in: dir)
                let json = try parseJSONObject(r.stdout)
                let analysis = try #require(json.object("analysis"))
                #expect(analysis.string("detector") == detector ?? "centerface")
                let faces = try #require(json["faces"] as? [JSONObject])
                #expect(faces.count == 1, "\(detector ?? "default"): \(r.stdout)")
                for face in faces {
                    #expect(Set(face.keys) == ["boundingBox", "rect", "confidence", "landmarks", "landmarkPoints"], "\(detector ?? "default")")
                    #expect((face["landmarks"] is NSNull) == (detector == "haar"))
                }
            }
        }
    }

    /// `--explain`: the score, then one line per component with its weight and measurements, in a fixed order.
    @Test func detectExplain() throws {
        try withScratch { dir in
            try copySample("Samples/portrait.png", to: dir, as: "in.png")
            let r = try expectSuccess(["detect", "--explain", "in.png"], in: dir)
            let lines = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let names = lines.compactMap { line -> String? in line.contains("  weight ") ? String(line.prefix { $0 != " " }) : nil }
            #expect(
                names == ["sharpness", "noise", "exposure", "size", "pose", "eyes", "mouth", "expression", "border", "compression", "confidence"], "\(r.stdout)"
            )
            #expect(lines.contains { $0.hasPrefix("quality 0.") })
            #expect(lines.contains { $0.hasPrefix("eyes") && $0.contains("eye aspect ratio 0.") })
        }
    }

    /// `--landmarks`: Vision's regions from dlib's 68 points, normalized to the face box, without the quality
    /// unless asked for; the text form says where the points came from.
    @Test func detectLandmarks() throws {
        try withScratch { dir in
            try copySample("Samples/portrait.png", to: dir, as: "in.png")
            let r = try expectSuccess(["detect", "--landmarks", "--json", "in.png"], in: dir)
            let json = try parseJSONObject(r.stdout)
            let face = try #require((json["faces"] as? [[String: Any]])?.first)
            #expect(face["quality"] == nil && json["quality"] == nil)
            let landmarks = try #require(face["landmarkRegions"] as? [String: Any])
            #expect(landmarks.string("source") == "dlib68" && (landmarks["allPoints"] as? [Any])?.count == 68)
            let regions = try #require(landmarks["regions"] as? [[String: Any]])
            #expect(
                regions.compactMap { $0["name"] as? String } == [
                    "faceContour", "leftEye", "rightEye", "leftEyebrow", "rightEyebrow", "nose", "noseCrest", "medianLine",
                    "outerLips", "innerLips", "leftPupil", "rightPupil",
                ])
            let points = regions.flatMap { ($0["normalizedPoints"] as? [[String: Any]]) ?? [] }
            #expect(points.allSatisfy { p in ["x", "y"].allSatisfy { (-0.2...1.2).contains(number(p[$0]) ?? -1) } })
            let measures = try #require(landmarks["measures"] as? [String: Any])
            #expect((0.2...0.45).contains(number(measures["eyeAspectRatio"]) ?? 0), "\(measures)")

            let text = try expectSuccess(["detect", "--landmarks", "--quality", "in.png"], in: dir).stdout
            #expect(text.contains("landmarks: 68 points (dlib), eye aspect ratio 0.") && text.contains("quality 0."), "\(text)")
        }
    }

    @Test func haarDetector() throws {
        try withScratch { dir in
            try copySample("Samples/portrait.png", to: dir, as: "in.png")
            let r = try expectSuccess(["detect", "--detector", "haar", "--json", "in.png"], in: dir)
            let json = try parseJSONObject(r.stdout)
            #expect(json.object("analysis")?.string("detector") == "haar")
            #expect(json["faces"] is [Any])
        }
    }
}

struct NoFaceTests {
    @Test func attentionByDefault() throws {
        try withScratch { dir in
            try copySample("Samples/landscape-no-face.jpg", to: dir, as: "in.jpg")
            let r = try expectSuccess(["--json", "in.jpg", "-o", "out.jpg"], in: dir)
            let json = try parseJSONObject(r.stdout)
            #expect((json["faces"] as? [Any])?.isEmpty == true)
            let crop = try #require(json.object("crop"))
            #expect(crop.string("fallback") == "attention")
            let rect = try #require(crop.object("rect"))
            #expect(rect.num("width") == 900 && rect.num("height") == 900, "largest 1:1 crop of 1600x900: \(rect)")
            #expect(imageKind(of: dir.appendingPathComponent("out.jpg")) == .jpeg)
        }
    }

    @Test func centered() throws {
        try withScratch { dir in
            try copySample("Samples/landscape-no-face.jpg", to: dir, as: "in.jpg")
            let r = try expectSuccess(["--json", "--no-face", "center", "--aspect", "4:5", "in.jpg", "-o", "out.jpg"], in: dir)
            let json = try parseJSONObject(r.stdout)
            let crop = try #require(json.object("crop"))
            #expect(crop.string("fallback") == "center")
            // swift-format-ignore: AlwaysUseLowerCamelCase
            let W = try #require(json.object("input")?.num("width"))
            // swift-format-ignore: AlwaysUseLowerCamelCase
            let H = try #require(json.object("input")?.num("height"))
            let rect = try #require(crop.object("rect"))
            let (x, y, w, h) = (rect.num("x")!, rect.num("y")!, rect.num("width")!, rect.num("height")!)
            #expect(h == H, "the largest 4:5 crop spans the height: \(rect)")
            #expect(abs(w - H * 4 / 5) <= 1)
            #expect(abs(x - (W - w) / 2) <= 1 && abs(y - (H - h) / 2) <= 1, "not centred: \(rect) in \(W)x\(H)")
            #expect(exists("out.jpg", in: dir))
        }
    }
}

struct InfoTests {
    @Test func version() throws {
        try withScratch { dir in
            let r = try expectSuccess(["--version"], in: dir)
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == FaceCropper.version)
        }
    }

    @Test func help() throws {
        try withScratch { dir in
            let r = try expectSuccess(["--help"], in: dir)
            #expect(r.stdout.contains("USAGE") || r.stdout.contains("Usage"))
            #expect(r.stdout.contains("Exit status"))
            #expect(listing(dir).isEmpty)
        }
    }
}
