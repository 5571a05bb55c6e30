import FaceCrop
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

private let raiseFileSize = "raise it with --max-file-size if you trust this file."

/// Output paths checked against every input by identity, before any work; batch never re-reads its own
/// outputs; reports, listings, full disks and names with control characters handled as docs/security.md says.
struct HostilePathTests {
    /// A scratch folder with `photos/a.jpg` (Samples/group.jpg) and its snapshot.
    static func photos(_ dir: URL) throws -> FileSnapshot {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("photos"), withIntermediateDirectories: true)
        return try FileSnapshot(copySample("Samples/group.jpg", to: dir, as: "photos/a.jpg"))
    }

    @Test(arguments: [
        ["rank", "photos/a.jpg", "--sheet", "./photos/a.jpg"],
        ["rank", "photos", "--sheet", "photos/../photos/a.jpg"],
        ["rank", "photos", "--copy-to", "photos"],
        // The sheet among the copies named by rank: either could replace the other.
        ["rank", "photos", "--copy-to", ".", "--sheet", "01-a.jpg"],
        ["batch", "photos", "--output-dir", "out", "--report", "photos/a.jpg"],
        ["batch", "photos", "--output-dir", "out", "--report", "link.jpg"],
        ["batch", "photos", "--output-dir", "out", "--report", "hard.jpg"],
        ["batch", "photos/a.jpg", "--output-dir", "photos", "--name", "a.jpg", "--size", "64x64"],
        ["photos/a.jpg", "-o", "hard.jpg"],
        ["annotate", "photos/a.jpg", "-o", "link.jpg"],
        ["best-frame", "clip.mp4", "-o", "clip.jpg"],
        ["best-frame", "clip.mp4", "-o", "x.jpg", "--contact-sheet", "./x.jpg"],
        ["photos/a.jpg", "-o", "fifo.jpg"],
        // The model file is read too: no output may replace it.
        ["batch", "photos", "--output-dir", "out", "--detector", "yunet", "--model", "model.onnx", "--report", "model.onnx"],
        ["photos/a.jpg", "--detector", "yunet", "--model", "model.jpg", "-o", "./model.jpg"],
        ["annotate", "photos/a.jpg", "--detector", "yunet", "--model", "model.jpg", "-o", "model.jpg"],
        ["rank", "photos", "--detector", "yunet", "--model", "model.jpg", "--sheet", "model.jpg"],
        ["best-frame", "clip.mp4", "--detector", "yunet", "--model", "model.jpg", "-o", "model.jpg"],
        // A name that does not depend on the crop's size is known, and checked, before any work.
        ["batch", "photos/a.jpg", "--output-dir", "photos", "--name", "a.jpg", "--aspect", "1:1"],
        ["batch", "photos/a.jpg", "--output-dir", "photos", "--name", "{stem}.jpg", "--width", "64", "--no-enlarge"],
        // Two reports that are one file, before either exists.
        ["batch", "photos", "--output-dir", "out", "--report", "r.json", "--site-manifest", "./r.json"],
        // A name that would leave the output folder.
        ["batch", "photos", "--output-dir", "out", "--name", "../{stem}.{ext}"],
    ])
    func writingOverAnInputOrANodeIsRefusedBeforeAnyWork(_ args: [String]) throws {
        try withScratch { dir in
            let before = try Self.photos(dir)
            symlink("photos/a.jpg", dir.appendingPathComponent("link.jpg").path)
            link(dir.appendingPathComponent("photos/a.jpg").path, dir.appendingPathComponent("hard.jpg").path)
            // A Live Photo: a still beside a "video" (refused before anything decodes it).
            try copySample("Samples/group.jpg", to: dir, as: "clip.mp4")
            try copySample("Samples/portrait.png", to: dir, as: "clip.jpg")
            let still = try FileSnapshot(dir.appendingPathComponent("clip.jpg"))
            mkfifo(dir.appendingPathComponent("fifo.jpg").path, 0o644)
            let model = try FileSnapshot(copySample("Models/face_detection_yunet_2023mar.onnx", to: dir, as: "model.onnx"))
            let modelJPG = try FileSnapshot(copySample("Models/face_detection_yunet_2023mar.onnx", to: dir, as: "model.jpg"))
            let r = try runFaceCrop(args, in: dir)
            #expect(r.status == 64, "\(r)")
            #expect(r.stderrLines.count == 1, "\(r)")
            #expect(try FileSnapshot(dir.appendingPathComponent("photos/a.jpg")) == before)
            #expect(try FileSnapshot(dir.appendingPathComponent("clip.jpg")) == still)
            #expect(try FileSnapshot(dir.appendingPathComponent("model.onnx")) == model)
            #expect(try FileSnapshot(dir.appendingPathComponent("model.jpg")) == modelJPG)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("r.json").path))
            var st = stat()
            #expect(lstat(dir.appendingPathComponent("fifo.jpg").path, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path), "work began: \(r)")
            #expect(leftoverTempFiles(dir).isEmpty && leftoverTempFiles(dir.appendingPathComponent("photos")).isEmpty)
        }
    }

    /// An output folder inside the input folder is not walked, but the photos kept in it are not outputs either:
    /// an output of the same name is refused, before any work when its name is known then (64), else for that
    /// input (3); the batch's own recorded outputs there are made again as usual.
    @Test func photosInAnOutputFolderInsideTheInputsAreNotWrittenOver() throws {
        try withScratch { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("photos/thumbs"), withIntermediateDirectories: true)
            _ = try copySample("Samples/portrait.png", to: dir, as: "photos/me.png")
            let kept = try FileSnapshot(copySample("Samples/group.jpg", to: dir, as: "photos/thumbs/me-64x64.jpg"))
            let args = ["batch", "photos", "--recursive", "--output-dir", "photos/thumbs", "-q"]
            #expect(try runFaceCrop(args + ["--size", "64x64"], in: dir).status == 64)
            #expect(try runFaceCrop(args + ["--width", "64"], in: dir).status == 3)
            #expect(try FileSnapshot(dir.appendingPathComponent("photos/thumbs/me-64x64.jpg")) == kept)
            try FileManager.default.removeItem(at: dir.appendingPathComponent("photos/thumbs/me-64x64.jpg"))
            #expect(try runFaceCrop(args + ["--size", "64x64"], in: dir).status == 0)
            #expect(try runFaceCrop(args + ["--size", "64x64", "--force"], in: dir).status == 0)
            // A run stopped between its outputs and its manifest leaves the manifest written before them (no sizes):
            // those outputs are the batch's, made again, not photos to protect.
            let manifests = dir.appendingPathComponent("photos/thumbs/.facecrop")
            for name in listing(manifests) {
                let manifest = manifests.appendingPathComponent(name)
                let text = try String(contentsOf: manifest, encoding: .utf8)
                try text.replacing(#/"bytes" : \d+/#, with: "\"bytes\" : -1").write(to: manifest, atomically: true, encoding: .utf8)
            }
            let again = try runFaceCrop(args + ["--size", "64x64", "--json"], in: dir)
            #expect(again.status == 0 && again.stdout.contains("\"status\":\"done\""), "\(again)")
        }
    }

    /// A file name up to the system's 255 bytes is written, though the temporary name beside it holds more: that
    /// name keeps only the start of the output's, and is still recognised as facecrop's.
    @Test(arguments: [
        String(repeating: "\u{E9}", count: 125) + "b.jpg", String(repeating: "b", count: 210) + ".jpg",
        "a" + String(repeating: "\u{301}", count: 124) + ".jpg",  // one character of 249 bytes
    ])
    func longOutputNamesAreWritten(_ name: String) throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            let r = try runFaceCrop(["photos/a.jpg", "-o", name], in: dir)
            #expect(r.status == 0, "\(r)")
            #expect(imageKind(of: dir.appendingPathComponent(name)) == .jpeg)
            let temporary = AtomicFile.temporaryName(for: name)
            #expect(temporary.utf8.count <= 255 && AtomicFile.temporaryOwner(temporary)?.pid == getpid(), "\(temporary)")
        }
    }

    /// Messages that say what is wrong: standard input's size when it is a file (not what was read of it), a
    /// folder that is a file, '-' given to a command that reads files only.
    @Test(arguments: [
        ("BIN - --max-file-size 1000 -o x.jpg < photos/a.jpg", 65, "Error: Input '-' is 253448 bytes, over the limit of 1000 bytes; \(raiseFileSize)"),
        ("cat photos/a.jpg | BIN - --max-file-size 1000 -o x.jpg", 65, "Error: Input '-' is over the limit of 1000 bytes; \(raiseFileSize)"),
        ("BIN photos/a.jpg -o photos/a.jpg/x.jpg", 73, "Error: Cannot write to 'photos/a.jpg': it is not a folder."),
        ("BIN detect -", 66, "Error: Input '-' cannot be read: only 'facecrop crop' reads standard input ('-'); give this command a file."),
    ])
    func messagesSayWhatIsWrong(_ row: (command: String, status: Int32, message: String)) throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            let r = try runShell(row.command.replacing("BIN", with: "'\(try CLI.binary().path)'"), in: dir)
            #expect(r.status == row.status && r.stderrLines == [row.message], "\(r)")
        }
    }

    /// Standard input and output count by the files they are redirected from and to: neither may be written over.
    @Test(arguments: [
        "BIN - -o photos/a.jpg < photos/a.jpg", "BIN photos/a.jpg -o - --format jpg 1<>photos/a.jpg",
        "BIN photos/a.jpg -o - --format jpg >> photos/a.jpg", "BIN batch --inputs - --output-dir out --report list.txt < list.txt",
        // Any command's lines or JSON on standard output.
        "BIN detect photos/a.jpg --json >> photos/a.jpg", "BIN batch photos --output-dir out >> photos/a.jpg", "BIN rank photos >> photos/a.jpg",
        "BIN photos/a.jpg -o b.jpg >> photos/a.jpg",
    ])
    func standardStreamsOfTheInputAreRefused(_ command: String) throws {
        try withScratch { dir in
            let before = try Self.photos(dir)
            try Data("photos/a.jpg\n".utf8).write(to: dir.appendingPathComponent("list.txt"))
            let list = try FileSnapshot(dir.appendingPathComponent("list.txt"))
            let r = try runShell(command.replacing("BIN", with: "'\(try CLI.binary().path)'"), in: dir)
            #expect(r.status == 64 && r.stderrLines.count == 1, "\(r)")
            #expect(r.stderrLines.first?.hasPrefix("Error: Output ") == true, "\(r)")
            #expect(try FileSnapshot(dir.appendingPathComponent("photos/a.jpg")) == before)
            #expect(try FileSnapshot(dir.appendingPathComponent("list.txt")) == list)
        }
    }

    /// The output folder is the input folder, or inside it with --recursive: every run finds one input.
    @Test(arguments: [["photos", "--output-dir", "photos"], ["photos", "--recursive", "--output-dir", "photos/out"]])
    func batchNeverReadsItsOwnOutputs(_ args: [String]) throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            for run in 1...3 {
                let r = try runFaceCrop(["batch"] + args + ["--size", "64x64", "--aspect", "1:1"], in: dir)
                #expect(r.status == 0, "run \(run): \(r)")
                #expect(r.stdout.split(separator: "\n").count == 1, "run \(run): \(r.stdout)")
            }
            let images = (FileManager.default.enumerator(atPath: dir.appendingPathComponent("photos").path)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".jpg") && !$0.contains("/.") }
            #expect(images.count == 3, "\(images.sorted())")  // a.jpg and its two outputs, no later generation
        }
    }

    @Test func reportToAFullDeviceFailsTheRun() throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            let r = try runFaceCrop(["batch", "photos", "--output-dir", "out", "--report", "/dev/full", "-q"], in: dir)
            #expect(r.status == 73, "\(r)")
            #expect(r.errorLines == ["Error: Cannot write to '/dev/full': no space left on device."], "\(r)")
        }
    }

    /// What a command prints is output too: standard output on a full device fails the run (73), however little
    /// was printed, and in a batch whatever the input's outcome.
    @Test(arguments: [
        ["detect", "photos/a.jpg"], ["detect", "photos/a.jpg", "--json"], ["rank", "photos"], ["photos/a.jpg", "-o", "c.jpg", "--json"],
        ["batch", "photos", "--output-dir", "out", "--json"], ["--help"], ["help", "crop"], ["--version"],
    ])
    func standardOutputOnAFullDeviceFailsTheRun(_ args: [String]) throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            let command = (["\"$FACECROP\""] + args).joined(separator: " ")
            let r = try runShell("\(command) > /dev/full", in: dir)
            #expect(r.status == 73, "\(r)")
            #expect(r.errorLines.last?.hasPrefix("Error: Cannot write to '-': ") == true, "\(r)")
        }
    }

    @Test func reportAndOutputFolderProblemsComeBeforeAnyWork() throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            // A report's folders are made, as users expect of `--report build/crops.jsonl`; one that cannot be
            // made (under a file) fails before any work.
            let made = try runFaceCrop(["batch", "photos", "--output-dir", "made", "--report", "new/folder/report.jsonl"], in: dir)
            #expect(made.status == 0 && FileManager.default.fileExists(atPath: dir.appendingPathComponent("new/folder/report.jsonl").path), "\(made)")
            try Data().write(to: dir.appendingPathComponent("file"))
            let r = try runFaceCrop(["batch", "photos", "--output-dir", "out", "--report", "file/report.jsonl"], in: dir)
            #expect(r.status == 73, "\(r)")
            #expect(r.stderrLines == ["Error: Cannot write to 'file': it is not a folder."], "\(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
            let r2 = try runFaceCrop(["batch", "photos", "--output-dir", "file/out"], in: dir)
            #expect(r2.status == 73 && r2.stderrLines.count == 1 && !r2.stderr.contains("CocoaError"), "\(r2)")
            // rank's --copy-to folder likewise: refused before the ranking is printed.
            let r3 = try runFaceCrop(["rank", "photos", "--copy-to", "file/best", "-q"], in: dir)
            #expect(r3.status == 73 && r3.stderrLines.count == 1 && r3.stdout.isEmpty, "\(r3)")
        }
    }

    /// Folders nested deeper than the walk goes, and a symbolic-link loop: the run fails (3) with a line for
    /// the folder, after doing the rest; the loop is walked once.
    @Test func foldersThatCannotBeWalkedFailTheRun() throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            var deep = dir.appendingPathComponent("photos")
            for i in 0..<70 { deep.appendPathComponent("d\(i % 10)") }
            try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
            symlink("..", dir.appendingPathComponent("photos/loop").path)
            let r = try runFaceCrop(["batch", "photos", "--recursive", "--output-dir", "out", "-q"], in: dir)
            #expect(r.status == 3, "\(r)")
            #expect(r.errorLines.count == 1 && r.stderr.contains("nested more than 64 folders deep"), "\(r)")
            #expect(r.stdout.split(separator: "\n").count == 1, "\(r)")
        }
    }

    @Test func controlCharactersInNamesAreEscapedOnStandardOutput() throws {
        try withScratch { dir in
            let name = "a\u{1B}[31mred\rb\tc.jpg"
            try copySample("Samples/group.jpg", to: dir, as: name)
            for args in [[name, "-o", "out.jpg"], ["batch", name, "--output-dir", "out"], ["rank", name]] {
                let r = try runFaceCrop(args, in: dir)
                #expect(r.status == 0, "\(r)")
                #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\r") && !r.stdout.contains("\t"), "\(args): \(r.stdout)")
                #expect(r.stdout.contains("a\\x1b[31mred\\rb\\tc.jpg"), "\(r.stdout)")
            }
        }
    }

    /// A Latin-1 name ("caf\xe9.jpg") cannot be opened through a Swift string: refused as such, never reported
    /// missing; in a batch folder it is a failed input beside the others. (The shell makes the bytes: a Swift
    /// string cannot hold them.)
    @Test func namesThatAreNotUTF8AreRefusedByWhatTheyAre() throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            func sh(_ command: String) throws -> RunResult {
                try runShell("latin1=\"$(printf 'caf\\351.jpg')\"; cp photos/a.jpg \"photos/$latin1\"; \(command)", in: dir)
            }
            let crop = try sh(#""$FACECROP" "photos/$latin1" -o out.jpg"#)
            #expect(
                crop.status == 64
                    && crop.stderrLines == [
                        "Error: Argument 'photos/caf\\xe9.jpg' is not valid UTF-8: \(FileName.advice)."
                    ], "\(crop)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.jpg").path))

            let batch = try sh(#""$FACECROP" batch photos --output-dir out -q"#)
            #expect(batch.status == 3, "\(batch)")
            #expect(batch.errorLines.count == 1 && batch.stderr.contains("photos/caf\\xe9.jpg") && batch.stderr.contains("not valid UTF-8"), "\(batch)")
            #expect(listing(dir.appendingPathComponent("out")).contains("a-1350x1350.jpg"), "the other input is cropped")

            let list = try sh(#"printf 'photos/a.jpg\nphotos/%s\n' "$latin1" > list.txt; "$FACECROP" batch --inputs list.txt --output-dir out2"#)
            #expect(list.status == 65 && list.stderr.contains("Line 2 of the input list 'list.txt' is not valid UTF-8 ('photos/caf\\xe9.jpg')"), "\(list)")
        }
    }

    /// An output truncated after a run is made again, not skipped.
    @Test func truncatedOutputsAreRebuilt() throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            let args = ["batch", "photos", "--output-dir", "out", "--size", "64x64"]
            #expect(try runFaceCrop(args, in: dir).status == 0)
            let output = dir.appendingPathComponent("out/a-64x64.jpg")
            let whole = try Data(contentsOf: output)
            truncate(output.path, off_t(whole.count / 2))
            let r = try runFaceCrop(args, in: dir)
            #expect(r.status == 0 && r.stdout.contains(": done ->"), "\(r)")
            #expect(try Data(contentsOf: output).count == whole.count)
            // A file of the right size but not of the format (overwritten by something else) too.
            try Data(repeating: 0, count: whole.count).write(to: output)
            #expect(try runFaceCrop(args, in: dir).stdout.contains(": done ->"))
            #expect(try runFaceCrop(args, in: dir).stdout.contains(": skipped ->"))
        }
    }

    /// Only exactly-named temporary files of processes that are gone are removed; others are left alone.
    @Test func staleTemporaryFilesAreRecognisedSafely() throws {
        try withScratch { dir in
            _ = try Self.photos(dir)
            let out = dir.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let own = getpid()
            let stat = try String(contentsOfFile: "/proc/\(own)/stat", encoding: .utf8)
            let start = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")[19]
            let stale = [".a-64x64.jpg.facecrop-\(own)-1-0123456789abcdef.jpg", ".b.jpg.facecrop-2147483646-5-fedcba9876543210.jpg"]
            let kept = [
                ".a.jpg.facecrop-\(own)-\(start)-0123456789abcdef.jpg",  // a live writer: this test process
                ".notes.facecrop-123.jpg", "a.jpg.facecrop-2147483646-5-fedcba9876543210.jpg", ".x.facecrop-1-2-short.jpg",
            ]
            for name in stale + kept { try Data("x".utf8).write(to: out.appendingPathComponent(name)) }
            symlink("../photos/a.jpg", out.appendingPathComponent(".l.jpg.facecrop-2147483646-5-fedcba9876543210.jpg").path)
            // A file named as a stale one would be, given as an input, is an input.
            let input = ".c-64x64.jpg.facecrop-2147483646-5-fedcba9876543210.jpg"
            _ = try copySample("Samples/portrait.png", to: out, as: input)
            let r = try runFaceCrop(["batch", "photos", "out/\(input)", "--output-dir", "out", "-q"], in: dir)
            #expect(r.status == 0, "\(r)")
            let left = listing(out)
            for name in stale { #expect(!left.contains(name), "\(name) stayed") }
            for name in kept + [".l.jpg.facecrop-2147483646-5-fedcba9876543210.jpg", input] { #expect(left.contains(name), "\(name) was removed") }
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("photos/a.jpg").path))
        }
    }

    @Test(arguments: [("/dev/zero", "longer than 4096 bytes"), ("list.txt", "holds a NUL byte")])
    func inputListsAreBounded(_ list: String, _ message: String) throws {
        try withScratch { dir in
            try Data("a.jpg\n\0b.jpg\n".utf8).write(to: dir.appendingPathComponent("list.txt"))
            let r = try runFaceCrop(["batch", "--inputs", list, "--output-dir", "out"], in: dir, timeout: 30)
            #expect(r.status == 65 && !r.timedOut, "\(r)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains(message), "\(r)")
        }
    }

    /// A container with no duration (a raw H.264 stream named .mp4) is measured by its frames.
    @Test func rawVideoIsHeldToMaxDuration() throws {
        try withScratch { dir in
            let ffmpeg = Process()
            ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            ffmpeg.arguments = [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-t", "4",
                "-c:v", "libx264", "-f", "h264", dir.appendingPathComponent("raw.mp4").path,
            ]
            try ffmpeg.run()
            ffmpeg.waitUntilExit()
            try #require(ffmpeg.terminationStatus == 0)
            for command in [["best-frame", "raw.mp4"], ["stability", "raw.mp4"]] {
                let r = try runFaceCrop(command + ["--max-duration", "2"], in: dir)
                #expect(r.status == 65, "\(r)")
                #expect(
                    r.stderrLines == ["Error: Input 'raw.mp4' lasts 4.0 s, over the limit of 2.0 s; raise it with --max-duration if you trust this file."],
                    "\(r)")
            }
        }
    }

    /// An RGB float TIFF with NaN pixels: a crop (libvips finds no attention point, so the crop is centred).
    @Test func floatTIFFWithNaNIsCropped() throws {
        try withScratch { dir in
            var floats = [Float]()
            for y in 0..<64 { for x in 0..<64 { for _ in 0..<3 { floats.append((x + y) % 7 == 0 ? .nan : 0.5) } } }
            let raw = dir.appendingPathComponent("raw.bin")
            try floats.withUnsafeBytes { try Data($0).write(to: raw) }
            try vips(["rawload", raw.path, dir.appendingPathComponent("r.v").path, "64", "64", "12"])
            try vips([
                "copy", dir.appendingPathComponent("r.v").path, dir.appendingPathComponent("nan.tif").path,
                "--format", "float", "--bands", "3", "--interpretation", "scrgb",
            ])
            let r = try runFaceCrop(["nan.tif", "-o", "out.jpg"], in: dir)
            #expect(r.status == 0, "\(r)")
            #expect(imageKind(of: dir.appendingPathComponent("out.jpg")) == .jpeg)
        }
    }

    @Test func missingModelIsAMissingInput() throws {
        try withScratch { dir in
            let r = try runFaceCrop(["detect", "in.jpg", "--model", "no-such-model.onnx"], in: dir)
            #expect(r.status == 66 && r.stderrLines == ["Error: Model file 'no-such-model.onnx' cannot be read: no such file or directory."], "\(r)")
            // A model is read whole: one over 100 MiB (sparse here) is refused before it is read.
            let huge = open(dir.appendingPathComponent("huge.onnx").path, O_WRONLY | O_CREAT, 0o644)
            #expect(huge >= 0 && ftruncate(huge, 3 << 30) == 0)
            close(huge)
            let big = try runFaceCrop(["detect", "in.jpg", "--model", "huge.onnx"], in: dir)
            let refused = "Error: Model file 'huge.onnx' is 3221225472 bytes, over the 104857600 bytes a model may be."
            #expect(big.status == 65 && big.stderrLines == [refused], "\(big)")
        }
    }

    /// A model OpenCV cannot parse is damaged input (65), said in one line of facecrop's words, not OpenCV's
    /// (whose message names its own source file and ends in a newline).
    @Test(arguments: [["--detector", "yunet", "--model", "x.onnx"], ["--model", "x.onnx"], ["--detector", "haar", "--model", "x.xml"]])
    func corruptModelIsOneCleanLine(_ model: [String]) throws {
        try withScratch { dir in
            try copySample("Samples/portrait.png", to: dir, as: "in.png")
            try Data("not a model\n".utf8).write(to: dir.appendingPathComponent("x.onnx"))
            try Data("<?xml version=\"1.0\"?>\n<opencv_storage>\n<cascade>bad\n".utf8).write(to: dir.appendingPathComponent("x.xml"))
            let r = try runFaceCrop(["in.png", "-o", "out.jpg"] + model, in: dir)
            let kind = model.contains("haar") ? "a Haar cascade" : "an ONNX model"
            #expect(r.status == 65, "\(r)")
            #expect(r.stderrLines == ["Error: Model file '\(model.last!)' cannot be used: it is not \(kind) OpenCV can read."], "\(r)")
            #expect(!exists("out.jpg", in: dir))
        }
    }

    /// A full file system (a 64 KiB tmpfs, mounted when the tests run as root): 73 in the system's words,
    /// never blaming the input, nothing left behind.
    @Test(.enabled(if: getuid() == 0)) func fullDiskIsAnOutputProblem() throws {
        try withScratch { dir in
            let mount = dir.appendingPathComponent("full")
            try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
            let m = Process()
            m.executableURL = URL(fileURLWithPath: "/bin/mount")
            m.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mount.path]
            try m.run()
            m.waitUntilExit()
            guard m.terminationStatus == 0 else {
                Issue.record("cannot mount a tmpfs here (status \(m.terminationStatus))")
                return
            }
            defer {
                let u = Process()
                u.executableURL = URL(fileURLWithPath: "/bin/umount")
                u.arguments = [mount.path]
                try? u.run()
                u.waitUntilExit()
            }
            try copySample("Samples/group.jpg", to: dir, as: "in.jpg")
            for ext in ["jpg", "png", "tif", "webp"] {
                let r = try runFaceCrop(["in.jpg", "-o", "full/out.\(ext)", "--aspect", "original"], in: dir)
                #expect(r.status == 73, "\(ext): \(r)")
                #expect(r.stderrLines == ["Error: Cannot write to 'full/out.\(ext)': no space left on device."], "\(ext): \(r)")
                #expect(listing(mount).isEmpty, "\(listing(mount))")
            }
            let b = try runFaceCrop(["batch", "in.jpg", "--output-dir", "full", "--aspect", "original", "-q"], in: dir)
            #expect(b.status == 3 && b.stderr.contains("no space left on device") && !b.stderr.contains("damaged"), "\(b)")
        }
    }
}
