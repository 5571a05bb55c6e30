import ArgumentParser
import FaceCrop

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the faces found in an image (pixels of the upright image, origin top-left)."
    )

    @Argument(help: "Input image.")
    var input: String

    @Flag(help: "Also measure each face's capture quality, 0...1, with its breakdown.")
    var quality = false

    @Flag(help: "Print the quality breakdown of each face (implies --quality).")
    var explain = false

    @Flag(
        help:
            "Also fit each face's landmarks: dlib's 68 points in Vision's regions, with eye and mouth openness (measured with the quality, which --json then leaves out unless --quality)."
    )
    var landmarks = false

    @OptionGroup var detection: DetectionOptions

    func run() throws {
        let cropper = try detection.makeCropper(quality: quality || explain || landmarks, oneImage: true)
        try refuseStandardOutputOnto(cropper.readFiles([input]))
        let start = ContinuousClock.now
        var analysis = try reportingErrors { () throws(FaceCropError) in
            var analysis = try cropper.analyze(input)
            if cropper.qualityAnalyzer != nil { try cropper.measureQuality(&analysis) }
            return analysis
        }
        analysis.timings.total = FaceCropper.ms(start, .now)
        var report = cropper.report(analysis, crop: nil, output: nil, landmarks: landmarks)
        if landmarks && !(quality || explain) {
            report.quality = nil
            for i in report.faces.indices { report.faces[i].quality = nil }
        }
        if detection.json {
            try printJSON(report)
            return
        }
        printLine("\(input): \(report.input.width)x\(report.input.height), \(report.faces.count) face\(report.faces.count == 1 ? "" : "s")")
        if let o = report.analysis.uprightOrientation {
            print("  faces found with the picture turned (EXIF orientation \(o.rawValue) shows them upright)")
        }
        for (i, f) in report.faces.enumerated() {
            let r = f.rect
            print("  #\(i + 1)  confidence \(f.confidence)  x \(r.x)  y \(r.y)  width \(r.width)  height \(r.height)")
            if let l = f.landmarkRegions {
                var line = "      landmarks: \(l.allPoints.count) points (\(l.source == .dlib68 ? "dlib" : "detector"))"
                if let m = l.measures { line += ", eye aspect ratio \(threeDecimals(m.eyeAspectRatio)), mouth openness \(threeDecimals(m.mouthOpenness))" }
                print(line)
            }
            guard let q = f.quality else { continue }
            print("      quality \(threeDecimals(q.score))")
            if explain {
                for line in q.explanation() { print("        \(line)") }
            }
        }
        if let q = report.quality { print("  quality: mean \(threeDecimals(q.mean)), min \(threeDecimals(q.min)), max \(threeDecimals(q.max))") }
    }
}
