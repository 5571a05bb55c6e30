import FaceCrop
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

// End-to-end tests of `facecrop batch`: a folder tree of inputs (good, corrupt, dangling link, hidden,
// not an image) run through the real binary, checked on disk and through the JSON Lines report.

/// The scratch tree every batch test starts from: `in/...` relative paths and what they are.
enum BatchTree {
    /// Good inputs: path under `in/` → repository file copied there.
    static let good: [(path: String, source: String)] = [
        ("a/group.jpg", "Samples/group.jpg"),  // 2400x1350, 4 faces
        ("a/b/portrait.png", "Samples/portrait.png"),  // 512x512, 1 face
        ("c/landscape.jpg", "Samples/landscape-no-face.jpg"),  // 1600x900, no face
        ("c/tiny.JPG", "Golden/tiny/input.jpg"),  // 96x72; upper-case extension
        ("top.jpg", "Golden/portrait-16x9/input.jpg"),  // 512x512
    ]
    /// Inputs that must fail: a text file named .jpg (65) and a dangling symbolic link (66).
    static let bad = ["a/broken.jpg", "a/gone.jpg"]
    /// Every input, in report order (byte-wise order of the relative path: "a/b/..." < "a/broken...").
    static var all: [String] { (good.map(\.path) + bad).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
    static var goodPaths: [String] { good.map(\.path) }

    /// Builds `dir/in/...`; besides the inputs, files that must be ignored: hidden ones, hidden folders,
    /// files without an image extension.
    static func make(in dir: URL) throws {
        let fm = FileManager.default
        let root = dir.appendingPathComponent("in")
        for sub in ["a/b", "c", ".hidden"] {
            try fm.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        for (path, source) in good { try copySample(source, to: root, as: path) }
        try Data("This is not a picture, only text.\n".utf8).write(to: root.appendingPathComponent("a/broken.jpg"))
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("a/gone.jpg").path, withDestinationPath: "nowhere.jpg")
        try copySample("Golden/tiny/input.jpg", to: root, as: ".hidden/x.jpg")
        try copySample("Golden/tiny/input.jpg", to: root, as: "c/.dot.jpg")
        try Data("notes\n".utf8).write(to: root.appendingPathComponent("a/notes.txt"))
        try copySample("Golden/tiny/input.jpg", to: root, as: "a/b/jpeg-without-extension")
    }

    /// Output paths (relative to the output folder) of `input` with the default name template and `sizes`.
    static func outputs(_ input: String, sizes: [(Int, Int)], ext: String = "jpg") -> [String] {
        let (folder, stem) = split(input)
        return sizes.map { "\(folder)\(stem)-\($0.0)x\($0.1).\(ext)" }
    }

    /// Manifests of `input` in the output folder `out`, relative to it: NAME.HASH.json in the .facecrop folder
    /// beside its outputs, one per set of options it was made with (HASH: 16 hex digits).
    static func manifests(_ input: String, in out: URL) -> [String] {
        let (folder, _) = split(input)
        let name = (input as NSString).lastPathComponent
        return listing(out.appendingPathComponent("\(folder).facecrop")).filter { manifestInputName($0) == name }.sorted().map { "\(folder).facecrop/\($0)" }
    }

    /// ("a/b/", "portrait") for "a/b/portrait.png".
    static func split(_ input: String) -> (folder: String, stem: String) {
        let name = (input as NSString).lastPathComponent
        let folder = String(input.dropLast(name.count))
        return (folder, (name as NSString).deletingPathExtension)
    }
}

/// `facecrop batch args...` in `dir`.
func runBatch(_ args: [String], in dir: URL, stdin: Data? = nil) throws -> RunResult {
    try runFaceCrop(["batch"] + args, in: dir, timeout: 120, stdin: stdin)
}

/// Every file (regular or link, hidden ones included) under `dir`, as paths relative to it.
func fileTree(_ dir: URL) -> Set<String> {
    var result: Set<String> = []
    guard let walker = FileManager.default.enumerator(atPath: dir.path) else { return result }
    for case let rel as String in walker {
        var st = stat()
        guard lstat(dir.appendingPathComponent(rel).path, &st) == 0 else { continue }
        if st.st_mode & S_IFMT != S_IFDIR { result.insert(rel) }
    }
    return result
}

/// The files of `fileTree` that are not manifests (nothing inside a `.facecrop` folder).
func imageFiles(_ dir: URL) -> Set<String> {
    fileTree(dir).filter { !$0.split(separator: "/").contains(".facecrop") }
}

/// facecrop's temporary files (".NAME.facecrop-PID-RANDOM.EXT") anywhere under `dir`.
func leftoverTempFilesInTree(_ dir: URL) -> [String] {
    fileTree(dir).filter { ($0 as NSString).lastPathComponent.contains(".facecrop-") }.sorted()
}

/// Snapshots of every regular file under `dir` (links: their target text).
func snapshotTree(_ dir: URL) throws -> [String: FileSnapshot] {
    var result: [String: FileSnapshot] = [:]
    for rel in fileTree(dir) {
        let url = dir.appendingPathComponent(rel)
        var st = stat()
        if lstat(url.path, &st) == 0, st.st_mode & S_IFMT == S_IFREG { result[rel] = try FileSnapshot(url) }
    }
    return result
}

/// Width and height from the header of a JPEG (SOFn) or PNG (IHDR) file.
func imagePixelSize(_ url: URL) -> (width: Int, height: Int)? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    let b = [UInt8](data)
    func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
    if b.count >= 24, b[0...3] == [0x89, 0x50, 0x4E, 0x47] { return (be32(16), be32(20)) }
    guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
    var i = 2
    while i + 9 < b.count {
        guard b[i] == 0xFF else { return nil }
        let marker = b[i + 1]
        if marker == 0xFF {
            i += 1
            continue
        }
        if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
            i += 2
            continue
        }
        if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { return (be16(i + 7), be16(i + 5)) }
        i += 2 + be16(i + 2)
    }
    return nil
}

/// A JSON Lines report: the per-input records in file order, and the summary (the last line).
struct BatchReport {
    var records: [JSONObject]
    var summary: JSONObject
    var text: String

    init(_ url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw CLITestError("no report at \(url.path)") }
        text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        guard let last = lines.last else { throw CLITestError("empty report") }
        guard let summary = try parseJSONObject(last).object("summary") else { throw CLITestError("the last line is not a summary: \(last)") }
        self.summary = summary
        records = try lines.dropLast().map { try parseJSONObject($0) }
        if records.contains(where: { $0["summary"] != nil }) { throw CLITestError("more than one summary record:\n\(text)") }
    }

    /// The input path of a record relative to the `in` folder ("in/a/x.jpg", "./in/a/x.jpg" or "/…/in/a/x.jpg" → "a/x.jpg").
    static func relative(_ path: String?, under folder: String) -> String? {
        guard var path else { return nil }
        if path.hasPrefix("./") { path.removeFirst(2) }
        if path.hasPrefix(folder + "/") { return String(path.dropFirst(folder.count + 1)) }
        if let range = path.range(of: "/" + folder + "/", options: .backwards) { return String(path[range.upperBound...]) }
        return nil
    }

    /// Relative input paths of the records, in order.
    var inputs: [String] { records.map { Self.relative($0.string("input"), under: "in") ?? "?\($0.string("input") ?? "nil")" } }

    /// Relative input path → status.
    var statuses: [String: String] {
        Dictionary(zip(inputs, records.map { $0.string("status") ?? "nil" }), uniquingKeysWith: { a, b in a + "+" + b })
    }

    func record(_ input: String) -> JSONObject? { records.first { Self.relative($0.string("input"), under: "in") == input } }

    func count(_ key: String) -> Int? { summary.num(key).map { Int($0) } }
}

/// Checks the summary counts of `report`.
func expectSummary(
    _ report: BatchReport, inputs: Int, done: Int, skipped: Int, failed: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(report.count("inputs") == inputs, "summary \(report.summary)", sourceLocation: sourceLocation)
    #expect(report.count("done") == done, "summary \(report.summary)", sourceLocation: sourceLocation)
    #expect(report.count("skipped") == skipped, "summary \(report.summary)", sourceLocation: sourceLocation)
    #expect(report.count("failed") == failed, "summary \(report.summary)", sourceLocation: sourceLocation)
    #expect((report.summary.num("seconds") ?? -1) >= 0, "summary \(report.summary)", sourceLocation: sourceLocation)
    #expect(report.summary.string("version") == FaceCropper.version, "summary \(report.summary)", sourceLocation: sourceLocation)
}

/// Exactly one "Error: " line per bad input (naming it) and nothing but errors and warnings on standard error.
func expectErrorLines(_ r: RunResult, for inputs: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let errors = r.stderrLines.filter { $0.hasPrefix("Error: ") }
    #expect(errors.count == inputs.count, "expected \(inputs.count) error lines:\n\(r.stderr)", sourceLocation: sourceLocation)
    for input in inputs {
        let name = (input as NSString).lastPathComponent
        #expect(errors.filter { $0.contains(name) }.count == 1, "one error line naming \(name):\n\(r.stderr)", sourceLocation: sourceLocation)
    }
    let other = r.stderrLines.filter { !$0.hasPrefix("Error: ") && !$0.hasPrefix("Warning: ") }
    #expect(other.isEmpty, "unexpected standard error (no progress when it is a pipe): \(other)", sourceLocation: sourceLocation)
}

/// Sizes of the first test's outputs.
private let twoSizes = [(320, 180), (160, 160)]
private let twoSizeArgs = ["--size", "320x180", "--size", "160x160"]

struct BatchTests {
    /// Spec 1–4: first run, unchanged rerun, one input changed, options changed, --force.
    @Test func incrementalRuns() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            let input = dir.appendingPathComponent("in")
            let out = dir.appendingPathComponent("out")
            let inputsBefore = try snapshotTree(input)
            let args = ["in", "--recursive", "--output-dir", "out"] + twoSizeArgs + ["--report", "r.jsonl"]

            // 1. First run: two bad inputs → exit 3, everything else written.
            let first = try runBatch(args, in: dir)
            #expect(!first.timedOut && first.status == 3, "\(first)")
            expectErrorLines(first, for: BatchTree.bad)
            var expected: Set<String> = []
            for path in BatchTree.goodPaths { expected.formUnion(BatchTree.outputs(path, sizes: twoSizes)) }
            #expect(imageFiles(out) == expected, "outputs: \(imageFiles(out).sorted()) expected \(expected.sorted())")
            for path in BatchTree.goodPaths {
                for (name, size) in zip(BatchTree.outputs(path, sizes: twoSizes), twoSizes) {
                    let url = out.appendingPathComponent(name)
                    #expect(imageKind(of: url) == .jpeg, "\(name)")
                    let got = imagePixelSize(url)
                    #expect(got?.width == size.0 && got?.height == size.1, "\(name): \(String(describing: got))")
                }
                let manifests = BatchTree.manifests(path, in: out)
                #expect(manifests.count == 1, "manifests of \(path): \(manifests)")
                if let first = manifests.first, let text = try? String(contentsOf: out.appendingPathComponent(first), encoding: .utf8) {
                    #expect((try? parseJSONObject(text)) != nil, "manifest is not a JSON object: \(text.prefix(200))")
                }
            }
            for path in BatchTree.bad {
                #expect(BatchTree.manifests(path, in: out).isEmpty, "manifest for failed \(path)")
            }
            #expect(!fileTree(out).contains { $0.contains("hidden") || $0.contains("dot") || $0.contains("notes") || $0.contains("without") })
            #expect(leftoverTempFilesInTree(dir).isEmpty, "\(leftoverTempFilesInTree(dir))")
            #expect(try snapshotTree(input) == inputsBefore, "inputs were modified")

            let report = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            #expect(report.inputs == BatchTree.all, "records (in order): \(report.inputs)")
            expectSummary(report, inputs: 7, done: 5, skipped: 0, failed: 2)
            for path in BatchTree.goodPaths {
                guard let record = report.record(path) else { continue }
                #expect(record.string("status") == "done", "\(record)")
                #expect(record["error"] == nil && record["exitCode"] == nil, "\(record)")
                #expect(record.num("faces") != nil, "\(record)")
                let outputs = record["outputs"] as? [JSONObject] ?? []
                let names = BatchTree.outputs(path, sizes: twoSizes)
                #expect(Set(outputs.compactMap { BatchReport.relative($0.string("path"), under: "out") }) == Set(names), "\(record)")
                for output in outputs {
                    guard let rel = BatchReport.relative(output.string("path"), under: "out"), let i = names.firstIndex(of: rel) else { continue }
                    #expect(output.num("width") == Double(twoSizes[i].0) && output.num("height") == Double(twoSizes[i].1), "\(output)")
                    let crop = output.object("crop")
                    let (w, h) = (crop?.num("width") ?? 0, crop?.num("height") ?? 0)
                    #expect(crop?.num("x") != nil && crop?.num("y") != nil && w > 0 && h > 0, "\(output)")
                    // The crop has the output's aspect (to a pixel of rounding).
                    #expect(abs(w * Double(twoSizes[i].1) / Double(twoSizes[i].0) - h) <= 1.5, "\(output)")
                }
            }
            #expect(report.record("a/group.jpg")?.num("faces") == 4)
            #expect(report.record("c/landscape.jpg")?.num("faces") == 0)
            for (path, code) in zip(BatchTree.bad, [65.0, 66.0]) {
                guard let record = report.record(path) else { continue }
                #expect(record.string("status") == "failed", "\(record)")
                #expect(!(record.string("error") ?? "").isEmpty, "\(record)")
                #expect(record.num("exitCode") == code, "\(path): exit code as the crop command gives it: \(record)")
                #expect(record["faces"] == nil && record["outputs"] == nil, "\(record)")
            }

            // 2. The same run again: good inputs skipped, outputs untouched, bad ones fail again.
            let outputsBefore = try snapshotTree(out).filter { !$0.key.contains(".facecrop/") }
            let second = try runBatch(args, in: dir)
            #expect(second.status == 3, "\(second)")
            expectErrorLines(second, for: BatchTree.bad)
            let report2 = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            #expect(report2.inputs == BatchTree.all, "\(report2.inputs)")
            expectSummary(report2, inputs: 7, done: 0, skipped: 5, failed: 2)
            for path in BatchTree.goodPaths {
                #expect(report2.statuses[path] == "skipped", "\(path): \(report2.statuses)")
                // A skipped record still lists the input's outputs.
                let outputs = report2.record(path)?["outputs"] as? [JSONObject] ?? []
                #expect(
                    Set(outputs.compactMap { BatchReport.relative($0.string("path"), under: "out") }) == Set(BatchTree.outputs(path, sizes: twoSizes)),
                    "skipped record of \(path): \(String(describing: report2.record(path)))")
            }
            for path in BatchTree.bad { #expect(report2.statuses[path] == "failed") }
            #expect(try snapshotTree(out).filter { !$0.key.contains(".facecrop/") } == outputsBefore, "a skipped input's outputs were rewritten")

            // Options that do not change outputs (--jobs, --quiet, the report's name) keep inputs current.
            _ = try runBatch(args.dropLast(2) + ["--jobs", "1", "--quiet", "--report", "r2b.jsonl"], in: dir)
            expectSummary(try BatchReport(dir.appendingPathComponent("r2b.jsonl")), inputs: 7, done: 0, skipped: 5, failed: 2)

            // An output deleted: its input is redone (and only it).
            try FileManager.default.removeItem(at: out.appendingPathComponent("a/group-160x160.jpg"))
            _ = try runBatch(args, in: dir)
            let report2c = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            expectSummary(report2c, inputs: 7, done: 1, skipped: 4, failed: 2)
            #expect(report2c.statuses["a/group.jpg"] == "done", "\(report2c.statuses)")
            #expect(exists("a/group-160x160.jpg", in: out))

            // A manifest written by another version: its input is redone.
            let landscapeManifest = out.appendingPathComponent(try #require(BatchTree.manifests("c/landscape.jpg", in: out).first))
            var manifest = try parseJSONObject(String(decoding: try Data(contentsOf: landscapeManifest), as: UTF8.self))
            #expect(manifest["version"] != nil, "the manifest records no version under 'version': \(manifest.keys.sorted())")
            manifest["version"] = "0.0.0-older"
            try JSONSerialization.data(withJSONObject: manifest).write(to: landscapeManifest)
            _ = try runBatch(args, in: dir)
            let report2d = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            expectSummary(report2d, inputs: 7, done: 1, skipped: 4, failed: 2)
            #expect(report2d.statuses["c/landscape.jpg"] == "done", "\(report2d.statuses)")

            // 3. One input replaced by another picture: only it is redone.
            let before3 = try snapshotTree(out).filter { !$0.key.contains(".facecrop/") }
            let top = input.appendingPathComponent("top.jpg")
            try FileManager.default.removeItem(at: top)
            try copySample("Golden/greyscale/input.jpg", to: input, as: "top.jpg")
            let third = try runBatch(args, in: dir)
            #expect(third.status == 3, "\(third)")
            let report3 = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            expectSummary(report3, inputs: 7, done: 1, skipped: 4, failed: 2)
            for path in BatchTree.goodPaths {
                #expect(report3.statuses[path] == (path == "top.jpg" ? "done" : "skipped"), "\(path): \(report3.statuses)")
            }
            let after3 = try snapshotTree(out)
            for name in BatchTree.outputs("top.jpg", sizes: twoSizes) {
                #expect(after3[name]?.data != before3[name]?.data, "\(name) was not rewritten")
            }
            for path in BatchTree.goodPaths where path != "top.jpg" {
                for name in BatchTree.outputs(path, sizes: twoSizes) { #expect(after3[name] == before3[name], "\(name) changed") }
            }

            // 4. Another option: everything redone; then --force redoes everything again.
            let margin = args + ["--margin", "10%"]
            let fourth = try runBatch(margin, in: dir)
            #expect(fourth.status == 3, "\(fourth)")
            let report4 = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            expectSummary(report4, inputs: 7, done: 5, skipped: 0, failed: 2)
            for path in BatchTree.goodPaths { #expect(report4.statuses[path] == "done", "\(path): \(report4.statuses)") }
            let again = try runBatch(margin, in: dir)
            expectSummary(try BatchReport(dir.appendingPathComponent("r.jsonl")), inputs: 7, done: 0, skipped: 5, failed: 2)
            #expect(again.status == 3)
            let forced = try runBatch(margin + ["--force"], in: dir)
            #expect(forced.status == 3, "\(forced)")
            let report5 = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            expectSummary(report5, inputs: 7, done: 5, skipped: 0, failed: 2)
            for path in BatchTree.goodPaths { #expect(report5.statuses[path] == "done", "\(path): \(report5.statuses)") }
            #expect(imageFiles(out) == expected)
            #expect(leftoverTempFilesInTree(dir).isEmpty, "\(leftoverTempFilesInTree(dir))")
            #expect(try snapshotTree(input).filter { $0.key != "top.jpg" } == inputsBefore.filter { $0.key != "top.jpg" })
        }
    }

    /// Spec 5: --jobs 1 and --jobs 4 write the same files, byte for byte, and the same report.
    @Test func jobsDoNotChangeResults() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            let common = ["in", "--recursive"] + twoSizeArgs
            let one = try runBatch(common + ["--output-dir", "out1", "--jobs", "1", "--report", "r1.jsonl"], in: dir)
            let four = try runBatch(common + ["--output-dir", "out4", "--jobs", "4", "--report", "r4.jsonl"], in: dir)
            #expect(one.status == 3 && four.status == 3, "\(one)\n\(four)")
            let out1 = dir.appendingPathComponent("out1")
            let out4 = dir.appendingPathComponent("out4")
            #expect(!fileTree(out1).isEmpty)
            #expect(fileTree(out1) == fileTree(out4), "\(fileTree(out1).symmetricDifference(fileTree(out4)))")
            for name in imageFiles(out1) {
                let a = try Data(contentsOf: out1.appendingPathComponent(name))
                let b = try? Data(contentsOf: out4.appendingPathComponent(name))
                #expect(a == b, "\(name) differs between --jobs 1 and --jobs 4")
            }
            let r1 = try BatchReport(dir.appendingPathComponent("r1.jsonl"))
            let r4 = try BatchReport(dir.appendingPathComponent("r4.jsonl"))
            #expect(r1.inputs == BatchTree.all && r4.inputs == BatchTree.all, "\(r1.inputs) / \(r4.inputs)")
            // Same records once the output folder's name is taken out.
            func normalized(_ r: BatchReport, _ folder: String) -> [String] {
                r.records.map { record in
                    var record = record
                    if let outputs = record["outputs"] as? [JSONObject] {
                        record["outputs"] = outputs.map { o in
                            var o = o
                            o["path"] = BatchReport.relative(o.string("path"), under: folder)
                            return o
                        }
                    }
                    let data = (try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])) ?? Data()
                    return String(decoding: data, as: UTF8.self)
                }
            }
            #expect(normalized(r1, "out1") == normalized(r4, "out4"))
        }
    }

    /// Spec 6: three shards into one folder process every input exactly once.
    @Test func shardsCoverEveryInputOnce() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            var seen: [String] = []
            for k in 1...3 {
                let r = try runBatch(
                    ["in", "--recursive", "--output-dir", "out", "--size", "160x160", "--shard", "\(k)/3", "--report", "r\(k).jsonl"], in: dir)
                let report = try BatchReport(dir.appendingPathComponent("r\(k).jsonl"))
                let failed = report.records.filter { $0.string("status") == "failed" }.count
                #expect(r.status == (failed > 0 ? 3 : 0), "shard \(k)/3: \(r)")
                #expect(report.count("inputs") == report.records.count, "shard \(k)/3: \(report.summary)")
                for path in report.inputs {
                    let status = report.statuses[path]
                    #expect(status == (BatchTree.bad.contains(path) ? "failed" : "done"), "shard \(k)/3: \(path) \(String(describing: status))")
                }
                seen += report.inputs
            }
            #expect(seen.sorted() == BatchTree.all.sorted(), "inputs over the three shards: \(seen.sorted())")
            var expected: Set<String> = []
            for path in BatchTree.goodPaths { expected.formUnion(BatchTree.outputs(path, sizes: [(160, 160)])) }
            #expect(imageFiles(dir.appendingPathComponent("out")) == expected)
            // The same shard again: the same inputs, now skipped.
            _ = try runBatch(["in", "--recursive", "--output-dir", "out", "--size", "160x160", "--shard", "2/3", "--report", "again.jsonl"], in: dir)
            let again = try BatchReport(dir.appendingPathComponent("again.jsonl"))
            #expect(again.inputs == (try BatchReport(dir.appendingPathComponent("r2.jsonl"))).inputs)
            #expect(again.records.allSatisfy { $0.string("status") != "done" }, "\(again.text)")
        }
    }

    /// Runs with other options into one folder (one format per run, as a site build's steps) keep a manifest each,
    /// so each skips when run again; a manifest named after the input alone (facecrop 0.2.0) is replaced by the
    /// run that redoes its input, and one of another input under that name is left alone.
    @Test func runsWithOtherOptionsKeepAManifestEach() throws {
        try withScratch { dir in
            try copySample("Golden/tiny/input.jpg", to: dir, as: "g.jpg")
            let out = dir.appendingPathComponent("out")
            let jpeg = ["g.jpg", "--output-dir", "out", "--size", "64x64", "--report", "r.jsonl"]
            let runs = [jpeg, jpeg + ["--format", "webp"]]
            for (round, status) in [(0, "done"), (1, "skipped")] {
                for args in runs {
                    let run = try runBatch(args, in: dir)
                    #expect(run.status == 0, "\(run)")
                    let report = try BatchReport(dir.appendingPathComponent("r.jsonl"))
                    #expect(report.records.map { $0.string("status") } == [status], "round \(round), \(args): \(report.text)")
                }
            }
            let manifests = BatchTree.manifests("g.jpg", in: out)
            #expect(manifests.count == 2 && imageFiles(out) == ["g-64x64.jpg", "g-64x64.webp"], "\(fileTree(out).sorted())")

            let unkeyed = out.appendingPathComponent(".facecrop/g.jpg.json")
            let other = out.appendingPathComponent(".facecrop/h.jpg.json")
            let text = String(decoding: try Data(contentsOf: out.appendingPathComponent(try #require(manifests.first))), as: UTF8.self)
            try Data(text.utf8).write(to: unkeyed)
            try Data(text.utf8).write(to: other)  // names g.jpg inside: not h.jpg's, and not g.jpg's by its name
            let forced = try runBatch(runs[0] + ["--force"], in: dir)
            #expect(forced.status == 0, "\(forced)")
            #expect(!FileManager.default.fileExists(atPath: unkeyed.path) && FileManager.default.fileExists(atPath: other.path))
            #expect(BatchTree.manifests("g.jpg", in: out) == manifests)
        }
    }

    /// Spec 7: --inputs - and --inputs FILE; files so given go straight into the output folder; {aspect}; --format png.
    @Test func inputListsNameTemplateAndFormat() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            let fromStdin = try runBatch(
                [
                    "--inputs", "-", "--output-dir", "outA", "--aspect", "16:9", "--aspect", "4:5", "--name", "{stem}_{aspect}.{ext}",
                    "--format", "png", "--report", "a.jsonl",
                ], in: dir, stdin: Data("in/a/group.jpg\n\nin/a/b/portrait.png\n".utf8))
            #expect(fromStdin.status == 0, "\(fromStdin)")
            let outA = dir.appendingPathComponent("outA")
            #expect(imageFiles(outA) == ["group_16x9.png", "group_4x5.png", "portrait_16x9.png", "portrait_4x5.png"], "\(fileTree(outA).sorted())")
            #expect(BatchTree.manifests("group.jpg", in: outA).count == 1, "\(fileTree(outA).sorted())")
            for (name, ratio) in [("group_16x9.png", 16.0 / 9), ("group_4x5.png", 0.8), ("portrait_16x9.png", 16.0 / 9), ("portrait_4x5.png", 0.8)] {
                let url = outA.appendingPathComponent(name)
                #expect(imageKind(of: url) == .png, "\(name)")
                guard let size = imagePixelSize(url) else { continue }
                #expect(abs(Double(size.width) / ratio - Double(size.height)) <= 1.5, "\(name): \(size)")
            }
            let reportA = try BatchReport(dir.appendingPathComponent("a.jsonl"))
            // Sorted by output path: group_… before portrait_… (files given directly have no folder in it).
            #expect(reportA.inputs == ["a/group.jpg", "a/b/portrait.png"], "sorted by output path: \(reportA.inputs)")
            expectSummary(reportA, inputs: 2, done: 2, skipped: 0, failed: 0)
            for record in reportA.records {
                for output in record["outputs"] as? [JSONObject] ?? [] {
                    guard let rel = BatchReport.relative(output.string("path"), under: "outA"), let size = imagePixelSize(outA.appendingPathComponent(rel))
                    else {
                        Issue.record("output not found: \(output)")
                        continue
                    }
                    #expect(output.num("width") == Double(size.width) && output.num("height") == Double(size.height), "\(output)")
                    #expect(output.object("crop")?.num("width") == Double(size.width), "no resize with --aspect: \(output)")
                }
            }

            // {aspect} of a --size is its reduced ratio; a file given as an argument goes straight into the output folder.
            let sized = try runBatch(
                ["in/c/tiny.JPG", "--output-dir", "outC", "--size", "320x180", "--size", "100x100", "--name", "{stem}-{aspect}.{ext}"], in: dir)
            #expect(sized.status == 0, "\(sized)")
            #expect(
                imageFiles(dir.appendingPathComponent("outC")) == ["tiny-16x9.jpg", "tiny-1x1.jpg"], "\(fileTree(dir.appendingPathComponent("outC")).sorted())")

            try Data("in/top.jpg\n\nin/c/landscape.jpg\n".utf8).write(to: dir.appendingPathComponent("list.txt"))
            let fromFile = try runBatch(["--inputs", "list.txt", "--output-dir", "outB"], in: dir)
            #expect(fromFile.status == 0, "\(fromFile)")
            let names = imageFiles(dir.appendingPathComponent("outB"))
            #expect(names.contains("landscape-900x900.jpg"), "largest 1:1 crop of 1600x900: \(names.sorted())")
            let tops = names.filter { $0.hasPrefix("top-") }
            #expect(names.count == 2 && tops.count == 1, "\(names.sorted())")
            for name in names {
                let numbers = name.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                let size = imagePixelSize(dir.appendingPathComponent("outB/\(name)"))
                #expect(
                    numbers.count == 2 && numbers[0] == numbers[1] && size?.width == numbers[0] && size?.height == numbers[1],
                    "\(name): \(String(describing: size))")
                #expect(imageKind(of: dir.appendingPathComponent("outB/\(name)")) == .jpeg, "jpg is the default format")
            }
        }
    }

    /// Spec 8: --prune deletes the outputs and manifest of an input that is gone, and nothing else.
    @Test func prune() throws {
        try withScratch { dir in
            let fm = FileManager.default
            let input = dir.appendingPathComponent("in")
            let out = dir.appendingPathComponent("out")
            try fm.createDirectory(at: input.appendingPathComponent("p"), withIntermediateDirectories: true)
            try copySample("Golden/tiny/input.jpg", to: input, as: "p/one.jpg")
            try copySample("Golden/greyscale/input.jpg", to: input, as: "p/two.jpg")
            try copySample("Golden/cmyk/input.jpg", to: input, as: "three.jpg")
            let args = ["in", "--recursive", "--output-dir", "out", "--size", "64x64", "--size", "48x32", "--report", "r.jsonl"]
            let first = try runBatch(args, in: dir)
            #expect(first.status == 0, "\(first)")
            let all = imageFiles(out)
            #expect(all.count == 6, "\(all.sorted())")
            try Data("mine\n".utf8).write(to: out.appendingPathComponent("notes.txt"))
            try fm.removeItem(at: input.appendingPathComponent("p/two.jpg"))
            let twoFiles = BatchTree.outputs("p/two.jpg", sizes: [(64, 64), (48, 32)]) + BatchTree.manifests("p/two.jpg", in: out)
            #expect(twoFiles.count == 3, "\(twoFiles)")

            let kept = try runBatch(args, in: dir)
            #expect(kept.status == 0, "\(kept)")
            for name in twoFiles { #expect(exists(name, in: out), "\(name) deleted without --prune") }
            let report = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            #expect(report.inputs == ["p/one.jpg", "three.jpg"], "\(report.inputs)")
            expectSummary(report, inputs: 2, done: 0, skipped: 2, failed: 0)

            let before = try snapshotTree(out)
            let pruned = try runBatch(args + ["--prune"], in: dir)
            #expect(pruned.status == 0, "\(pruned)")
            for name in twoFiles { #expect(!exists(name, in: out), "\(name) not pruned") }
            #expect(exists("notes.txt", in: out), "--prune deleted a file facecrop did not write")
            let listed = try BatchReport(dir.appendingPathComponent("r.jsonl")).summary["pruned"] as? [String]
            #expect(Set(listed ?? []) == Set(twoFiles.filter { !$0.contains(".facecrop/") }.map { "out/\($0)" }), "\(String(describing: listed))")
            let after = try snapshotTree(out)
            for (name, snapshot) in before where !twoFiles.contains(name) && !name.contains(".facecrop/") {
                #expect(after[name] == snapshot, "\(name) changed or vanished")
            }
            #expect(imageFiles(out) == all.subtracting(twoFiles).union(["notes.txt"]), "\(imageFiles(out).sorted())")
            #expect(BatchTree.manifests("p/one.jpg", in: out).count == 1 && BatchTree.manifests("three.jpg", in: out).count == 1)
        }
    }

    /// --prune deletes only what it may: never an input of the run (an earlier run's output given as an input),
    /// never a file a manifest names outside its own folder, and nothing at all when an input could not be listed.
    @Test func pruneSparesInputsAndWhatIsNotItsOwn() throws {
        try withScratch { dir in
            let fm = FileManager.default
            for sub in ["in", "more"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
            _ = try copySample("Golden/tiny/input.jpg", to: dir, as: "in/x.jpg")
            _ = try copySample("Golden/greyscale/input.jpg", to: dir, as: "more/y.jpg")
            let out = dir.appendingPathComponent("out")
            #expect(try runBatch(["in", "--output-dir", "out", "--size", "64x64", "-q"], in: dir).status == 0)
            let earlier = try FileSnapshot(out.appendingPathComponent("x-64x64.jpg"))

            // An input cannot be listed (its name is not UTF-8): nothing is pruned, though in/x.jpg is not among
            // this run's inputs.
            #expect(try runShell("cp more/y.jpg \"more/$(printf 'caf\\351.jpg')\"", in: dir).status == 0)
            let unlisted = try runBatch(["more", "--output-dir", "out", "--size", "64x64", "--prune", "-q"], in: dir)
            #expect(unlisted.status == 3 && unlisted.stderr.contains("nothing was pruned"), "\(unlisted)")
            #expect(try runShell("rm more/caf*", in: dir).status == 0)
            #expect(try FileSnapshot(out.appendingPathComponent("x-64x64.jpg")) == earlier)

            // The earlier output is an input of this run: in/x.jpg's manifest names it, and goes, but it stays.
            let r = try runBatch(["out/x-64x64.jpg", "more", "--output-dir", "out", "--size", "32x32", "--prune", "-q"], in: dir)
            #expect(r.status == 0, "\(r)")
            #expect(try FileSnapshot(out.appendingPathComponent("x-64x64.jpg")) == earlier)
            #expect(BatchTree.manifests("x.jpg", in: out).isEmpty && exists("x-64x64-32x32.jpg", in: out))

            // A manifest naming a file outside its folder, and a symbolic link to another batch's output folder:
            // neither that file nor the other batch's outputs go.
            let victim = try FileSnapshot(copySample("Golden/tiny/input.jpg", to: dir, as: "victim.jpg"))
            let manifest = out.appendingPathComponent(BatchTree.manifests("y.jpg", in: out)[0])
            let text = try String(contentsOf: manifest, encoding: .utf8).replacing("\"y-64x64.jpg\"", with: "\"../victim.jpg\"")
            try text.write(to: manifest, atomically: true, encoding: .utf8)
            #expect(try runBatch(["more", "--output-dir", "other", "--size", "64x64", "-q"], in: dir).status == 0)
            let others = try snapshotTree(dir.appendingPathComponent("other"))
            symlink("../other", out.appendingPathComponent("link").path)
            let last = try runBatch(["out/x-64x64.jpg", "--output-dir", "out", "--size", "32x32", "--prune", "-q"], in: dir)
            #expect(last.status == 0 && BatchTree.manifests("y.jpg", in: out).isEmpty, "\(last)")
            #expect(try FileSnapshot(dir.appendingPathComponent("victim.jpg")) == victim)
            #expect(try snapshotTree(dir.appendingPathComponent("other")) == others, "pruned through a symbolic link")
        }
    }

    /// An input that fails leaves no manifest naming its outputs, so a later --prune cannot take a photo of the
    /// user's at an output's path (here another input, which batch refuses to write over) for one of them; an
    /// earlier run's manifest it replaced is put back, so that run's outputs are still pruned.
    @Test func aFailedInputLeavesNoManifestForPruneToFollow() throws {
        try withScratch { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("col"), withIntermediateDirectories: true)
            _ = try copySample("Golden/tiny/input.jpg", to: dir, as: "col/x.jpg")
            // Without --size the output's name (its crop's size, 72x72) is known only once the faces are found.
            let photo = try FileSnapshot(copySample("Golden/greyscale/input.jpg", to: dir, as: "col/x-72x72.jpg"))
            let failed = try runBatch(["col", "--output-dir", "col", "-q"], in: dir)
            #expect(failed.status == 3 && failed.stderr.contains("Output 'col/x-72x72.jpg' is the input file"), "\(failed)")
            #expect(BatchTree.manifests("x.jpg", in: dir.appendingPathComponent("col")).isEmpty)
            _ = try copySample("Golden/tiny/input.jpg", to: dir, as: "other.jpg")
            #expect(try runBatch(["other.jpg", "--output-dir", "col", "--prune", "-q"], in: dir).status == 0)
            #expect(try FileSnapshot(dir.appendingPathComponent("col/x-72x72.jpg")) == photo, "--prune deleted the user's photo")

            // A run that succeeded, then one refused (its output is now an input too): the first run's manifest
            // stays as it was.
            _ = try copySample("Golden/tiny/input.jpg", to: dir, as: "y.jpg")
            let out = dir.appendingPathComponent("out")
            #expect(try runBatch(["y.jpg", "--output-dir", "out", "--size", "64x64", "-q"], in: dir).status == 0)
            func manifests() throws -> [FileSnapshot] { try BatchTree.manifests("y.jpg", in: out).map { try FileSnapshot(out.appendingPathComponent($0)) } }
            let before = try manifests()
            let again = try runBatch(["y.jpg", "out/y-64x64.jpg", "--output-dir", "out", "--size", "64x64", "--force", "-q"], in: dir)
            #expect(again.status == 64 && again.stderr.contains("is the input file"), "\(again)")
            #expect(try manifests() == before && before.count == 1)
        }
    }

    /// Nor may a report or site manifest go where batch keeps its manifests, where it could replace one.
    @Test func aReportInAManifestFolderIsRefused() throws {
        try withScratch { dir in
            _ = try copySample("Golden/tiny/input.jpg", to: dir, as: "x.jpg")
            #expect(try runBatch(["x.jpg", "--output-dir", "out", "-q"], in: dir).status == 0)
            let manifest = try #require(BatchTree.manifests("x.jpg", in: dir.appendingPathComponent("out")).first)
            let before = try FileSnapshot(dir.appendingPathComponent("out/\(manifest)"))
            for (option, path) in [("--report", "out/\(manifest)"), ("--site-manifest", "out/.facecrop/./site.json")] {
                let r = try runBatch(["x.jpg", "--output-dir", "out", "--force", option, path, "-q"], in: dir)
                let refusal = "Error: \(option) '\(path)' is in a .facecrop folder, where batch keeps its manifests; write it elsewhere."
                #expect(r.status == 64 && r.errorLines == [refusal], "\(r)")
            }
            #expect(try FileSnapshot(dir.appendingPathComponent("out/\(manifest)")) == before)
        }
    }

    /// A report or site manifest may not be one of the run's images: refused before any work when the image's
    /// name is known then, else when the run ends, without writing over the image.
    @Test(arguments: [["--size", "64x64"], ["--width", "64"]])
    func aReportThatIsAnOutputIsRefused(_ size: [String]) throws {
        try withScratch { dir in
            _ = try copySample("Golden/tiny/input.jpg", to: dir, as: "x.jpg")
            let r = try runBatch(["x.jpg", "--output-dir", "out", "--site-manifest", "out/x-64x64.jpg", "-q"] + size, in: dir)
            #expect(r.status == 64 && r.stderrLines.last?.hasPrefix("Error: Output ") == true, "\(r)")
            let image = dir.appendingPathComponent("out/x-64x64.jpg")
            #expect(!FileManager.default.fileExists(atPath: image.path) || imageKind(of: image) == .jpeg)
        }
    }

    /// `batch --json`: one record per input in input order whatever the jobs, then the summary.
    @Test func jsonLinesComeInInputOrder() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            let r = try runBatch(["in", "--recursive", "--output-dir", "out", "--json", "--jobs", "2"] + twoSizeArgs, in: dir)
            #expect(r.status == 3, "\(r)")
            let lines = r.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let inputs = lines.dropLast().map { ($0?["input"] as? String).flatMap { BatchReport.relative($0, under: "in") } ?? "?" }
            #expect(inputs == BatchTree.all, "\(inputs)")
            let summary = lines.last??["summary"] as? [String: Any]
            #expect(summary?["inputs"] as? Int == BatchTree.all.count && summary?["failed"] as? Int == BatchTree.bad.count, "\(r.stdout)")
        }
    }

    /// Spec 9: --dry-run writes nothing but the report and lists every output with its crop.
    @Test func dryRun() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            let before = fileTree(dir)
            let r = try runBatch(["in", "--recursive", "--output-dir", "out", "--dry-run", "--report", "r.jsonl"] + twoSizeArgs, in: dir)
            #expect(r.status == 3, "bad inputs still fail: \(r)")
            #expect(
                !FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path),
                "--dry-run created the output folder: \(fileTree(dir.appendingPathComponent("out")))")
            #expect(fileTree(dir) == before.union(["r.jsonl"]), "\(fileTree(dir).symmetricDifference(before).sorted())")
            let report = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            expectSummary(report, inputs: 7, done: 5, skipped: 0, failed: 2)
            let lines = r.stdout.split(separator: "\n").map(String.init)
            let cropPattern = /(\d+)x(\d+)\+(\d+)\+(\d+)/
            for path in BatchTree.goodPaths {
                #expect(report.statuses[path] == "done", "\(report.statuses)")
                let outputs = report.record(path)?["outputs"] as? [JSONObject] ?? []
                for name in BatchTree.outputs(path, sizes: twoSizes) {
                    let matching = lines.filter { $0.contains("out/" + name) }
                    #expect(matching.count == 1, "one line for out/\(name):\n\(r.stdout)")
                    // The crop is the first WxH+X+Y after the output's path.
                    guard let line = matching.first, let at = line.range(of: "out/" + name),
                        let m = line[at.upperBound...].firstMatch(of: cropPattern)
                    else {
                        Issue.record("no WxH+X+Y crop for \(name) in: \(matching)")
                        continue
                    }
                    // The crop printed is the one reported.
                    let crop = outputs.first { BatchReport.relative($0.string("path"), under: "out") == name }?.object("crop")
                    #expect(
                        crop?.num("width") == Double(m.1) && crop?.num("height") == Double(m.2) && crop?.num("x") == Double(m.3)
                            && crop?.num("y") == Double(m.4), "\(line) vs \(String(describing: crop))")
                }
            }
            #expect(lines.filter { $0.firstMatch(of: cropPattern) != nil }.count == 10, "one line per output:\n\(r.stdout)")
        }
    }

    /// Spec 10: --fail-fast stops at the first failure.
    @Test func failFast() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            let r = try runBatch(["in", "--recursive", "--output-dir", "out", "--size", "64x64", "--jobs", "1", "--fail-fast", "--report", "r.jsonl"], in: dir)
            #expect(r.status == 3, "\(r)")
            #expect(r.stderrLines.filter { $0.hasPrefix("Error: ") }.count == 1, "\(r.stderr)")
            #expect(r.stderrLines.first { $0.hasPrefix("Error: ") }?.contains("broken.jpg") == true, "\(r.stderr)")
            let report = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            // In order a/b/portrait.png, a/broken.jpg, ...: the run stops at the second input.
            #expect(report.records.count < BatchTree.all.count, "\(report.inputs)")
            #expect(report.inputs.starts(with: ["a/b/portrait.png", "a/broken.jpg"]), "\(report.inputs)")
            #expect(report.statuses["a/broken.jpg"] == "failed")
            #expect(report.count("failed") == 1, "\(report.summary)")
            let out = dir.appendingPathComponent("out")
            #expect(!exists("top-64x64.jpg", in: out) && !exists("c/landscape-64x64.jpg", in: out), "work went on: \(fileTree(out).sorted())")
            #expect(leftoverTempFilesInTree(dir).isEmpty)
        }
    }

    /// A folder without --recursive contributes only the image files directly in it.
    @Test func folderWithoutRecursive() throws {
        try withScratch { dir in
            try BatchTree.make(in: dir)
            let r = try runBatch(["in", "--output-dir", "out", "--size", "64x64", "--report", "r.jsonl"], in: dir)
            #expect(r.status == 0, "\(r)")
            #expect(imageFiles(dir.appendingPathComponent("out")) == ["top-64x64.jpg"])
            let report = try BatchReport(dir.appendingPathComponent("r.jsonl"))
            #expect(report.inputs == ["top.jpg"])
            expectSummary(report, inputs: 1, done: 1, skipped: 0, failed: 0)
        }
    }
}

/// Spec 11: argument errors are exit 64, before any work.
enum BatchArgumentError: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case noInputs, noOutputDir, shardZero, shardAboveN, shardWord, sameNameFromTwoFiles, sameNameFromTemplate, gifFormat

    var testDescription: String { rawValue }

    var args: [String] {
        let tree = ["in", "--recursive", "--output-dir", "out"]
        return switch self {
        case .noInputs: ["--output-dir", "out"]
        case .noOutputDir: ["in", "--recursive"]
        case .shardZero: tree + ["--shard", "0/3"]
        case .shardAboveN: tree + ["--shard", "4/3"]
        case .shardWord: tree + ["--shard", "x"]
        case .sameNameFromTwoFiles: ["in/a/x.jpg", "in/b/x.jpg", "--output-dir", "out"]
        case .sameNameFromTemplate: tree + ["--name", "fixed.{ext}"]
        case .gifFormat: tree + ["--format", "gif"]
        }
    }
}

struct BatchArgumentTests {
    @Test(arguments: BatchArgumentError.allCases)
    func exit64(_ error: BatchArgumentError) throws {
        try withScratch { dir in
            let fm = FileManager.default
            for sub in ["in/a", "in/b"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
            try copySample("Golden/tiny/input.jpg", to: dir, as: "in/a/x.jpg")
            try copySample("Golden/cmyk/input.jpg", to: dir, as: "in/b/x.jpg")
            try copySample("Golden/greyscale/input.jpg", to: dir, as: "in/a/y.jpg")  // a/x.jpg and a/y.jpg → a/fixed.jpg
            let before = try snapshotTree(dir)
            let r = try runBatch(error.args + ["--report", "r.jsonl"], in: dir)
            #expect(!r.timedOut && r.status == 64, "\(error.args): \(r)")
            #expect(r.stderrLines.first?.hasPrefix("Error: ") == true, "\(r.stderr)")
            #expect(try snapshotTree(dir) == before, "files appeared or changed: \(fileTree(dir).sorted())")
            #expect(!fm.fileExists(atPath: dir.appendingPathComponent("out").path), "output folder created")
            if error == .sameNameFromTwoFiles {
                // The name's size is known only once the faces are found: shown as the template has it.
                let clash = "Error: 'in/a/x.jpg' and 'in/b/x.jpg' would both write 'out/x-{width}x{height}.jpg'; give their folders with"
                #expect(r.stderrLines.first?.hasPrefix(clash) == true, "\(r.stderr)")
            }
        }
    }

    /// A file given more than once with one key (twice, as itself and in its folder, by another path) is one
    /// input; the same file in another folder (a hard link) is an input of its own, with its own outputs.
    @Test func anInputGivenTwiceIsDoneOnce() throws {
        try withScratch { dir in
            for sub in ["in/2023", "in/2024"] {
                try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
            try copySample("Golden/tiny/input.jpg", to: dir, as: "in/x.jpg")
            let r = try runBatch(["in", "in/x.jpg", "./in/x.jpg", "--output-dir", "out", "--json"], in: dir)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.split(separator: "\n").count == 2, "one record and the summary: \(r.stdout)")
            try copySample("Golden/tiny/input.jpg", to: dir, as: "in/2023/a.jpg")
            #expect(link(dir.appendingPathComponent("in/2023/a.jpg").path, dir.appendingPathComponent("in/2024/a.jpg").path) == 0)
            let linked = try runBatch(["in", "--recursive", "--output-dir", "out", "-q"], in: dir)
            #expect(linked.status == 0, "\(linked)")
            #expect(exists("2023/a-72x72.jpg", in: dir.appendingPathComponent("out")) && exists("2024/a-72x72.jpg", in: dir.appendingPathComponent("out")))
            let ranked = try runFaceCrop(["rank", "in", "in/x.jpg", "--json"], in: dir)
            #expect((try parseJSONObject(ranked.stdout)["ranked"] as? [Any])?.count == 1, "\(ranked)")
        }
    }
}
