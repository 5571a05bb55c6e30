// Batch mode: many inputs, several outputs each from one decode and one detection, incremental through a
// small manifest beside each input's outputs, in parallel on a fixed number of threads.
import CVipsShim
import FaceCropCore
import FoundationEssentials
import Glibc
import Synchronization

/// Runs a batch: `process` handles one input; `run` spreads inputs over threads.
public struct BatchRunner: Sendable {
    /// Analyses every input: its detector, limits and quality analyser.
    public let cropper: FaceCropper
    /// What is made of every input, and where.
    public let settings: BatchSettings

    /// A runner of `settings` with `cropper`; its jobs share the cropper's `maxDecodeMemory`.
    public init(cropper: FaceCropper, settings: BatchSettings) {
        self.cropper = cropper.sharingDecodeMemory()
        self.settings = settings
    }

    /// Processes every input on `jobs` threads (at most 256); `report` is called (serially) as each finishes.
    /// Records come back in input order. With `failFast`, no new input starts after a failure. The detector keeps
    /// its nets for two input sizes meanwhile (`FaceDetector.keepsNetsForTwoSizes`): photos of both orientations.
    public func run(_ inputs: [BatchInput], jobs: Int, failFast: Bool, report: @escaping @Sendable (BatchRecord) -> Void) -> [BatchRecord] {
        cropper.detector.keepsNetsForTwoSizes(true)
        defer { cropper.detector.keepsNetsForTwoSizes(false) }
        let records = Mutex([BatchRecord?](repeating: nil, count: inputs.count))
        concurrentForEach(inputs.count, jobs: jobs) { index in
            let record = process(inputs[index])
            records.withLock { r in
                r[index] = record
                report(record)
            }
            return !(failFast && record.status == .failed)
        }
        return records.withLock { $0.compactMap { $0 } }
    }

    /// What a failed input does with its manifest: nothing (it wrote none), remove the one it wrote, or put back
    /// the bytes of the one it replaced.
    private enum ManifestUndo {
        case nothing, remove
        case restore([UInt8])
    }

    /// One input: skip it when its manifest is current, else analyse it once and write every output.
    public func process(_ input: BatchInput) -> BatchRecord {
        let manifestPath = settings.manifestPath(for: input)
        var written = [String]()
        var manifestUndo = ManifestUndo.nothing
        do throws(FaceCropError) {
            try InputCheck.readableFile(input.path, maxBytes: cropper.maxFileSize)
            let (fileSize, modified) = Self.sizeAndTime(input.path)
            var sha: String?
            let folder = settings.folder(for: input)
            if !settings.force, let old = Self.readManifest(manifestPath), old.version == FaceCropper.version,
                old.options == settings.optionsKey
            {
                var sameBytes = old.size == fileSize && old.modified == modified
                if !sameBytes { sameBytes = try Self.sha256(input.path, into: &sha) == old.sha256 }
                let paths = old.outputPaths(in: folder)
                let outputs = zip(old.outputs, paths).map { o, path in o.moved(to: path) }
                if sameBytes, paths.count == old.outputs.count, outputs.allSatisfy({ Self.isComplete($0.path, bytes: $0.bytes, format: $0.format) }) {
                    return BatchRecord(input: input.path, status: .skipped, faces: old.faces, faceBoxes: old.faceBoxes, outputs: outputs)
                }
            }
            let analysis = try cropper.screen(cropper.analyze(input.path), minimum: settings.crop.minQuality)
            if !settings.dryRun { try Self.makeDirectories(folder) }
            // Specs that differ only in format share one plan, one cut and one resize; each format is encoded
            // from it. Outputs keep the specs' order.
            var groups = [[Int]]()
            for (i, spec) in settings.specs.enumerated() {
                let same = { (g: [Int]) in settings.specs[g[0]].aspect == spec.aspect && settings.specs[g[0]].size == spec.size }
                if let g = groups.firstIndex(where: same) { groups[g].append(i) } else { groups.append([i]) }
            }
            // Larger sizes first: smaller ones of the same crop are resized from them (`RenderedCrops`).
            let planned = try groups.map { (group) throws(FaceCropError) in
                let options = settings.options(for: settings.specs[group[0]])
                let crop = try cropper.plan(analysis, options: options)
                return (group, options, crop, FaceCropper.outputSize(for: crop.rect, options))
            }.sorted { $0.3.width * $0.3.height > $1.3.width * $1.3.height }
            // Every output's path, before any is written. Widths a crop cannot fill without enlarging give the same
            // file: written once, listed once.
            var paths = Set<String>()
            let jobs = planned.map { group, options, crop, size in
                let todo = group.map { ($0, "\(folder)/\(settings.outputName(for: input, spec: settings.specs[$0], size: size))") }
                    .filter { paths.insert($0.1).inserted }
                return (todo, options, crop, size)
            }
            func outputs(bytes: (String) -> Int) -> [BatchOutput] {
                var found = [BatchOutput?](repeating: nil, count: settings.specs.count)
                for (todo, options, crop, size) in jobs {
                    for (i, path) in todo {
                        found[i] = BatchOutput(
                            path: path, format: settings.specs[i].format, width: size.width, height: size.height, bytes: bytes(path), aspect: crop.aspect,
                            crop: crop.rect, cutFaces: crop.cutFaces.isEmpty ? nil : crop.cutFaces, regionFits: crop.cutFaces.isEmpty ? nil : crop.regionFits,
                            notEnlarged: FaceCropper.notEnlarged(size, crop: crop.rect, options))
                    }
                }
                return found.compactMap { $0 }
            }
            let faceBoxes = analysis.faceRects.map { $0.enclosingPixels(in: analysis.size) }
            func manifest(_ outputs: [BatchOutput], sha256: String) -> Manifest {
                Manifest(
                    version: FaceCropper.version, input: input.key, sha256: sha256, size: fileSize, modified: modified, options: settings.optionsKey,
                    faces: analysis.faces.count, faceBoxes: faceBoxes, outputs: outputs.map { $0.moved(to: String($0.path.dropFirst(folder.count + 1))) })
            }
            if !settings.dryRun {
                // Every output is checked first (none may be an input, each within the limits): a manifest names
                // only files this batch may write, since --prune deletes what manifests name.
                for (todo, options, crop, _) in jobs {
                    _ = try cropper.checkedOutputs(analysis, crop: crop.rect, to: todo.map(\.1), options: options, protecting: settings.inputs)
                }
                // Recorded before any is written, without sizes (so never current): outputs an interrupted run leaves
                // are this batch's, made again by the next run, never taken for photos of the user's.
                let replaced = (try? Data(contentsOf: URL(fileURLWithPath: manifestPath))).map { [UInt8]($0) }
                try Self.writeManifest(manifest(outputs(bytes: { _ in -1 }), sha256: ""), to: manifestPath, inputs: settings.inputs)
                manifestUndo = replaced.map(ManifestUndo.restore) ?? .remove
                let rendered = FaceCropper.RenderedCrops()
                for (todo, options, crop, _) in jobs {
                    _ = try cropper.write(analysis, crop: crop.rect, to: todo.map(\.1), options: options, protecting: settings.inputs, rendered: rendered) {
                        written.append($0)
                    }
                }
            }
            let outputs = outputs(bytes: { settings.dryRun ? 0 : Self.fileSize($0) })
            if !settings.dryRun {
                try Self.writeManifest(manifest(outputs, sha256: try Self.sha256(input.path, into: &sha)), to: manifestPath, inputs: settings.inputs)
                // facecrop 0.2.0 named the manifest after the input alone, whatever the options: it is replaced.
                let unkeyed = "\(folder)/.facecrop/\(input.fileName).json"
                if Self.readManifest(unkeyed)?.input == input.key { unlink(unkeyed) }
            }
            return BatchRecord(input: input.path, status: .done, faces: analysis.faces.count, faceBoxes: faceBoxes, outputs: outputs)
        } catch {
            // A failed input leaves no output: remove what it wrote before failing, and put back the manifest it
            // replaced (an earlier run's outputs stay known to --prune), or remove its own.
            for path in written { unlink(path) }
            switch manifestUndo {
            case .nothing: break
            case .remove: unlink(manifestPath)
            case .restore(let bytes): try? AtomicFile.write(bytes, to: manifestPath)
            }
            return BatchRecord(input: input.path, status: .failed, error: error.description, exitCode: error.exitCode)
        }
    }

    /// Deletes temporary files left in the output folder by facecrop processes that were killed: only regular
    /// files of ours (same user) named exactly as `AtomicFile` names them, whose writer is gone. Symbolic links
    /// are neither followed nor deleted.
    public func removeStaleTemporaryFiles() -> [String] {
        var removed = [String]()
        func visit(_ folder: String, depth: Int) {
            guard depth <= BatchInputs.maxDepth else { return }
            for name in BatchInputs.entries(folder, hidden: true) {
                let path = "\(folder)/\(name)"
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: visit(path, depth: depth + 1)
                case S_IFREG where st.st_uid == getuid() && AtomicFile.isStaleTemporary(name) && settings.inputs.input(at: path) == nil:
                    if unlink(path) == 0 { removed.append(path) }
                default: break
                }
            }
        }
        visit(settings.outputDirectory, depth: 0)
        return removed
    }

    /// Every manifest under `outputDirectory`, with its path and the folder its outputs are in. Folders only, not
    /// symbolic links to them (another tree's outputs), and no deeper than inputs are walked.
    static func forEachManifest(under outputDirectory: String, _ body: (_ manifest: Manifest, _ path: String, _ folder: String) -> Void) {
        func visit(_ folder: String, depth: Int) {
            guard depth <= BatchInputs.maxDepth else { return }
            let manifests = "\(folder)/.facecrop"
            if BatchInputs.isDirectory(manifests) {
                for name in BatchInputs.entries(manifests) where name.hasSuffix(".json") {
                    let path = "\(manifests)/\(name)"
                    if let manifest = readManifest(path) { body(manifest, path, folder) }
                }
            }
            for name in BatchInputs.entries(folder) {
                var st = stat()
                if lstat("\(folder)/\(name)", &st) == 0, st.st_mode & S_IFMT == S_IFDIR { visit("\(folder)/\(name)", depth: depth + 1) }
            }
        }
        visit(outputDirectory, depth: 0)
    }

    /// The outputs recorded in the manifests under the output folder, by identity: a later run never takes
    /// them for inputs (when the output folder is, or is inside, an input folder).
    package static func recordedOutputs(under outputDirectory: String) -> Set<FileIdentity> {
        var found = Set<FileIdentity>()
        forEachManifest(under: outputDirectory) { manifest, _, folder in
            for path in manifest.outputPaths(in: folder) {
                if let id = FileIdentity(path) { found.insert(id) }
            }
        }
        return found
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : -1
    }

    /// An output is complete when it has the size it was written with and starts as its format does.
    static func isComplete(_ path: String, bytes: Int, format: ImageFormat) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) == bytes else { return false }
        let announced = InputCheck.announcedFormat(path)
        switch format {
        case .jpeg: return announced == "JPEG"
        case .png: return announced == "PNG"
        case .webp: return announced == "WebP"
        case .tiff: return announced == "TIFF"
        case .heif, .avif: return announced == "HEIF"
        }
    }

    /// Deletes the outputs and manifests of inputs not in `inputs` (every manifest under the output folder).
    /// Returns the deleted output paths. Only regular files a manifest names in its own folder are deleted, and
    /// never an input of this run (`settings.inputs`): an output of an earlier run may be an input now.
    public func prune(keeping inputs: [BatchInput]) -> [String] {
        let keep = Set(inputs.map(\.key))
        var deleted = [String]()
        Self.forEachManifest(under: settings.outputDirectory) { manifest, path, folder in
            guard !keep.contains(manifest.input) else { return }
            for output in manifest.outputPaths(in: folder) where settings.inputs.input(at: output) == nil {
                var st = stat()
                if lstat(output, &st) == 0, st.st_mode & S_IFMT == S_IFREG, unlink(output) == 0 { deleted.append(output) }
            }
            unlink(path)
        }
        return deleted
    }

    /// The file's SHA-256, computed once: kept in `cache`.
    static func sha256(_ path: String, into cache: inout String?) throws(FaceCropError) -> String {
        if let cache { return cache }
        let value = try sha256(path)
        cache = value
        return value
    }

    static func sizeAndTime(_ path: String) -> (Int64, Int64) {
        var st = stat()
        guard stat(path, &st) == 0 else { return (-1, -1) }
        return (Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    package static func sha256(_ path: String) throws(FaceCropError) -> String {
        var hex = [CChar](repeating: 0, count: 65)
        guard fc_sha256_file(path, &hex) == 0 else { throw .inputUnreadable(path, reason: errorText(errno)) }
        return String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func readManifest(_ path: String) -> Manifest? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return nil }
        return try? JSONDecoder().decode(Manifest.self, from: data)
    }

    static func writeManifest(_ manifest: Manifest, to path: String, inputs: InputSet) throws(FaceCropError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(manifest) else { throw .imageProcessing("cannot encode the manifest") }
        try makeDirectories(OutputCheck.directory(of: path))
        try OutputCheck.destination(path, inputs: inputs)
        try AtomicFile.write([UInt8](data), to: path)
    }

    /// mkdir -p.
    package static func makeDirectories(_ path: String) throws(FaceCropError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/\(part)"
            if mkdir(current, 0o777) != 0 && errno != EEXIST {
                throw .outputNotWritable(current, reason: errorText(errno))
            }
        }
        if !BatchInputs.isDirectory(path) { throw .outputNotWritable(path, reason: "it is not a folder") }
    }
}
