import ArgumentParser
import FaceCrop
import Testing

@testable import facecrop

/// Argument parsing in-process: no binary, no files.
struct ParsingTests {
    @Test func cropIsTheDefaultSubcommand() throws {
        let command = try FaceCropCommand.parseAsRoot(["in.jpg", "-o", "out.jpg"])
        let crop = try #require(command as? Crop)
        #expect(crop.input == "in.jpg" && crop.output == "out.jpg")
        #expect(try FaceCropCommand.parseAsRoot(["detect", "in.jpg"]) is Detect)
        #expect(try FaceCropCommand.parseAsRoot(["crop", "in.jpg", "--dry-run"]) is Crop)
    }

    @Test func defaults() throws {
        let options = try Crop.parse(["in.jpg", "-o", "out.jpg"]).cropOptions()
        #expect(options.aspect == .ratio(width: 1, height: 1))
        #expect(options.margin == .pixels(200))
        #expect(options.strategy == .all)
        #expect(options.noFace == .attention)
        #expect(options.size == nil && options.quality == nil && !options.strip)
    }

    @Test func optionsReachTheLibrary() throws {
        let options = try Crop.parse([
            "in.jpg", "-o", "out.webp", "--aspect", "16:9", "--margin", "40%", "--width", "300", "--quality", "90",
            "--strategy", "largest", "--no-face", "fail", "--strip",
        ]).cropOptions()
        #expect(options.aspect == .ratio(width: 16, height: 9))
        #expect(options.margin == .percentOfFaceHeight(40))
        #expect(options.size == .width(300))
        #expect(options.quality == 90)
        #expect(options.strategy == .largest && options.noFace == .fail && options.strip)
    }

    @Test func sizeSetsTheAspect() throws {
        let options = try Crop.parse(["in.jpg", "-o", "out.jpg", "--size", "640x360"]).cropOptions()
        #expect(options.size == .exact(width: 640, height: 360))
        #expect(options.aspect.value(for: ImageSize(width: 1, height: 1)) == 640.0 / 360)
        // --aspect original does not override the aspect --size implies; a matching ratio is accepted.
        let original = try Crop.parse(["in.jpg", "-o", "o.jpg", "--size", "640x360", "--aspect", "original"]).cropOptions()
        #expect(original.aspect.value(for: ImageSize(width: 1, height: 1)) == 640.0 / 360)
        #expect(throws: Never.self) { try Crop.parse(["in.jpg", "-o", "o.jpg", "--size", "640x360", "--aspect", "16:9"]) }
    }

    @Test func detectionOptions() throws {
        let detect = try Detect.parse(["in.jpg", "--detector", "haar", "--threshold", "0.3", "--detect-size", "320", "--json"])
        #expect(detect.detection.detector == .haar)
        #expect(try detect.detection.threshold == 0.3)
        #expect(try detect.detection.detectSize == 320)
        #expect(detect.detection.json)
    }

    static let invalid: [[String]] = [
        ["in.jpg", "-o", "o.jpg", "--aspect", "0:1"],
        ["in.jpg", "-o", "o.jpg", "--aspect", "16:9:1"],
        ["in.jpg", "-o", "o.jpg", "--aspect", "-16:9"],
        ["in.jpg", "-o", "o.jpg", "--aspect", "inf:1"],
        ["in.jpg", "-o", "o.jpg", "--margin", "abc"],
        ["in.jpg", "-o", "o.jpg", "--margin=-1"],
        ["in.jpg", "-o", "o.jpg", "--margin", "nan"],
        ["in.jpg", "-o", "o.jpg", "--size", "0x10"],
        ["in.jpg", "-o", "o.jpg", "--size", "10x"],
        ["in.jpg", "-o", "o.jpg", "--size", "10x10x10"],
        ["in.jpg", "-o", "o.jpg", "--size", "640x360", "--aspect", "1:1"],
        ["in.jpg", "-o", "o.jpg", "--size", "640x360", "--width", "100"],
        ["in.jpg", "-o", "o.jpg", "--width", "0"],
        ["in.jpg", "-o", "o.jpg", "--width", "wide"],
        ["in.jpg", "-o", "o.jpg", "--quality", "0"],
        ["in.jpg", "-o", "o.jpg", "--quality", "101"],
        ["in.jpg", "-o", "o.jpg", "--threshold", "1.01"],
        ["in.jpg", "-o", "o.jpg", "--threshold=-0.5"],
        ["in.jpg", "-o", "o.jpg", "--detect-size", "8"],
        ["in.jpg", "-o", "o.jpg", "--max-pixels", "0"],
        ["in.jpg", "-o", "o.jpg", "--strategy", "biggest"],
        ["in.jpg", "-o", "o.jpg", "--no-face", "ignore"],
        ["in.jpg", "-o", "o.jpg", "--detector", "dlib"],
        ["in.jpg"],
        ["in.jpg", "-o", "o.gif"],
        ["in.jpg", "-o", "o.txt"],
        ["in.jpg", "-o", "o"],
        ["-o", "o.jpg"],
    ]

    @Test(arguments: invalid)
    func invalidArgumentsExit64(_ args: [String]) {
        do {
            let command = try Crop.parse(args)
            Issue.record("\(args) parsed as \(command)")
        } catch {
            #expect(Crop.exitCode(for: error) == ExitCode(64), "\(args): \(error)")
            #expect(Crop.exitCode(for: error) == .validationFailure)
            #expect(Crop.fullMessage(for: error).isEmpty == false)
        }
        // The same through the root command (default subcommand).
        #expect(throws: (any Error).self) { try FaceCropCommand.parseAsRoot(args) }
    }

    /// Options that contradict each other, or an output best-frame cannot write, refused with one sentence (64).
    @Test(arguments: [
        (["best-frame", "clip.mp4", "--every-frame", "--frames", "5"], "--frames is for the sampled mode; --every-frame analyses every frame instead."),
        (
            ["annotate", "in.jpg", "-o", "a.png", "--no-quality", "--min-quality", "0.95"],
            "Use either --no-quality or --min-quality, not both: --min-quality measures capture quality."
        ),
        (
            ["best-frame", "clip.mp4", "-o", "-"],
            "best-frame writes the chosen frame to a file, not to standard output; give -o a name ending in .jpg, .png, .webp, .tif, .heic or .avif."
        ),
        (
            ["best-frame", "clip.mp4", "-o", "a.jpg", "--contact-sheet", "-"],
            "--contact-sheet writes a file, not standard output; give it a name ending in .jpg, .png, .webp, .tif, .heic or .avif."
        ),
    ])
    func contradictionsAreRefused(_ args: [String], _ message: String) {
        do {
            let command = try FaceCropCommand.parseAsRoot(args)
            Issue.record("\(args) parsed as \(command)")
        } catch {
            #expect(FaceCropCommand.exitCode(for: error) == .validationFailure, "\(args): \(error)")
            #expect(FaceCropCommand.message(for: error) == message)
        }
    }

    @Test func eachHalfOfAContradictionIsAccepted() throws {
        #expect(try FaceCropCommand.parseAsRoot(["best-frame", "clip.mp4", "--every-frame"]) is BestFrame)
        let sampled = try #require(try FaceCropCommand.parseAsRoot(["best-frame", "clip.mp4", "--frames", "5"]) as? BestFrame)
        #expect(try sampled.frames == 5)
        #expect(try BestFrame.parse(["clip.mp4"]).frames == 12)
        #expect(try FaceCropCommand.parseAsRoot(["annotate", "in.jpg", "-o", "a.png", "--no-quality"]) is Annotate)
        #expect(try FaceCropCommand.parseAsRoot(["annotate", "in.jpg", "-o", "a.png", "--min-quality", "0.95"]) is Annotate)
    }

    /// A file named with a leading '-', given bare, is named in the error; values and mistyped options are not.
    @Test(
        arguments: [
            (["-x.jpg"], "-x.jpg"),
            (["-o", "out.jpg", "-x.jpg"], "-x.jpg"),
            (["in.jpg", "-o", "out.jpg", "-x.jpg"], "-x.jpg"),
            (["-x.jpg", "-o", "out.jpg", "--margin", "-5"], nil),  // the refusal of --margin comes first either way
            (["detect", "-dir/x.png"], "-dir/x.png"),
            (["best-frame", "-clip.mp4", "--json"], "-clip.mp4"),
            (["-o", "out.jpg", "--", "-x.jpg", "-y.jpg"], nil),
            (["in.jpg", "-o", "out.jpg", "--margin=-5"], nil),
            (["in.jpg", "-o", "out.jpg", "--margin", "-5.5%"], nil),
            (["in.jpg", "-o", "out.jpg", "--threshold=-0.1"], nil),
            (["in.jpg", "-o", "out.jpg", "--threshold", "-0.1"], nil),
            (["in.jpg", "-o", "out.jpg", "--aspect", "-1.5:1"], nil),
            (["in.jpg", "-o", "out.jpg", "-x"], nil),
            (["in.jpg", "-o", "out.jpg", "--bogus"], nil),
            (["in.jpg", "-o", "out.jpg"], nil),
        ] as [([String], String?)])
    func fileNamesReadAsOptions(_ args: [String], _ name: String?) {
        #expect(FaceCropCommand.fileReadAsOption(args) == name, "\(args)")
    }
}
