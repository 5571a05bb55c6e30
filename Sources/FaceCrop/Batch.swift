// Batch mode: many inputs, several outputs each from one decode and one detection, incremental through a
// small manifest beside each input's outputs, in parallel on a fixed number of threads.
import CVipsShim
import FaceCropCore
import FoundationEssentials
import Glibc
import Synchronization

/// One image to process, and where its outputs go.
public struct BatchInput: Sendable, Hashable {
    public var path: String
    /// Folder under the output folder: the input's folder relative to the folder argument it was found
    /// under, "" for inputs given as files.
    public var subfolder: String

    public init(path: String, subfolder: String) {
        self.path = path
        self.subfolder = subfolder
    }

    public var fileName: String { path.split(separator: "/").last.map(String.init) ?? path }
    public var stem: String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fileName }
        return String(fileName[..<dot])
    }
    /// Identity under the output folder: what manifests, shards and pruning key on.
    public var key: String { subfolder.isEmpty ? fileName : "\(subfolder)/\(fileName)" }
}

public enum BatchInputs {
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif"]
    /// Folders nested deeper than this under a folder argument are reported, not walked.
    public static let maxDepth = 64

    /// What a walk found: the inputs, and the folders it could not list (each a failure of the run).
    public struct Collected: Sendable {
        public var inputs: [BatchInput] = []
        public var problems: [(path: String, error: FaceCropError)] = []
    }

    /// What a walk leaves out: folders (the output folder, when it is among the inputs) and files (outputs
    /// of earlier runs, from their manifests), by identity. Outputs must never become inputs.
    public struct Exclusions: Sendable {
        public var folders: Set<FileIdentity> = []
        public var files: Set<FileIdentity> = []
        public init() {}
    }

    /// Files are taken as given (a missing one fails later, as its own input); folders contribute the
    /// image files in them (by extension, hidden names skipped), recursively if asked. Sorted by key.
    public static func collect(_ arguments: [String], recursive: Bool) -> [BatchInput] {
        collect(arguments, recursive: recursive, excluding: Exclusions()).inputs
    }

    public static func collect(_ arguments: [String], recursive: Bool, excluding: Exclusions) -> Collected {
        var found = Collected()
        for argument in arguments {
            if isDirectory(argument) {
                var visited = Set<FileIdentity>()
                walk(argument, subfolder: "", recursive: recursive, depth: 0, excluding: excluding, visited: &visited, into: &found)
            } else {
                found.inputs.append(BatchInput(path: argument, subfolder: ""))
            }
        }
        found.inputs.sort { $0.key < $1.key }
        return found
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    static func entries(_ folder: String, hidden: Bool = false) -> [String] {
        (try? list(folder, hidden: hidden).names) ?? []
    }

    /// The names in a folder, sorted; throws when it cannot be listed.
    /// Names that are not valid UTF-8 are left out of `names` and returned, shown with their bytes escaped.
    static func list(_ folder: String, hidden: Bool = false) throws(FaceCropError) -> (names: [String], undecodable: [String]) {
        guard let dir = opendir(folder) else { throw .inputUnreadable(folder, reason: "the folder cannot be listed: \(errorText(errno))") }
        defer { closedir(dir) }
        var names = [String]()
        var undecodable = [String]()
        while let entry = readdir(dir) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard hidden || bytes.first != UInt8(ascii: ".") else { continue }
            if let name = FileName.text(bytes) {
                if name != "." && name != ".." { names.append(name) }
            } else {
                undecodable.append(FileName.shown(bytes))
            }
        }
        return (names.sorted(), undecodable.sorted())
    }

    private static func walk(
        _ folder: String, subfolder: String, recursive: Bool, depth: Int, excluding: Exclusions, visited: inout Set<FileIdentity>,
        into found: inout Collected
    ) {
        // A folder seen before on this walk (a symbolic link loop) is not walked again; an excluded folder (the
        // output folder inside an input folder) is not walked, unless it is the folder given.
        if let id = FileIdentity(folder) {
            if (depth > 0 && excluding.folders.contains(id)) || !visited.insert(id).inserted { return }
        }
        guard depth <= maxDepth else {
            found.problems.append((folder, .inputUnreadable(folder, reason: "it is nested more than \(maxDepth) folders deep")))
            return
        }
        let names: [String]
        do {
            let listed = try list(folder)
            names = listed.names
            // Such a name cannot be opened through a string: an image (by extension) among them is a failed input.
            for name in listed.undecodable where hasImageExtension(name) {
                let path = folder.hasSuffix("/") ? folder + name : "\(folder)/\(name)"
                found.problems.append((path, .inputUnreadable(path, reason: "its name is not valid UTF-8; \(FileName.advice)")))
            }
        } catch {
            found.problems.append((folder, error))
            return
        }
        for name in names {
            let path = folder.hasSuffix("/") ? folder + name : "\(folder)/\(name)"
            if isDirectory(path) {
                if recursive {
                    walk(
                        path, subfolder: subfolder.isEmpty ? name : "\(subfolder)/\(name)", recursive: true, depth: depth + 1,
                        excluding: excluding, visited: &visited, into: &found)
                }
            } else if hasImageExtension(name) {
                if let id = FileIdentity(path), excluding.files.contains(id) { continue }
                found.inputs.append(BatchInput(path: path, subfolder: subfolder))
            }
        }
    }

    static func hasImageExtension(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// The inputs of shard `index` (0-based) of `count`: by a stable hash of the key, so every machine
    /// agrees without coordination whatever order it listed the files in.
    public static func shard(_ inputs: [BatchInput], index: Int, count: Int) -> [BatchInput] {
        inputs.filter { Int(fnv1a($0.key) % UInt64(count)) == index }
    }

    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

/// One output per input: an aspect, an exact size, a width or the crop's own size, and a format.
public struct OutputSpec: Sendable, Hashable {
    public var aspect: Aspect
    public var size: OutputSize?
    public var format: ImageFormat
    public init(aspect: Aspect, size: OutputSize?, format: ImageFormat = .jpeg) {
        self.aspect = aspect
        self.size = size
        self.format = format
    }
}

/// One file written for an input: in reports, manifests and the site manifest.
public struct BatchOutput: Codable, Sendable, Equatable {
    public var path: String
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// Its size in bytes when written: an output of another size (truncated, replaced) is redone.
    public var bytes: Int
    /// The aspect asked ("16:9", "original": the input's).
    public var aspect: String
    /// The rectangle of the (upright) input it shows.
    public var crop: PixelRect
    /// Faces (0-based, in the input's face order) that could not fit in the crop and are cut.
    public var cutFaces: [Int]?
    /// True when the output was asked larger than the crop and kept the crop's size (`CropOptions.withoutEnlargement`).
    public var notEnlarged: Bool?
}

/// What happened to one input: a line of the `--report` file.
public struct BatchRecord: Codable, Sendable {
    public enum Status: String, Codable, Sendable { case done, skipped, failed }
    public var input: String
    public var status: Status
    public var faces: Int?
    public var outputs: [BatchOutput]?
    public var error: String?
    public var exitCode: Int32?

    public init(input: String, status: Status, faces: Int? = nil, outputs: [BatchOutput]? = nil, error: String? = nil, exitCode: Int32? = nil) {
        (self.input, self.status, self.faces, self.outputs, self.error, self.exitCode) = (input, status, faces, outputs, error, exitCode)
    }
}

/// Kept beside an input's outputs: if a later run finds the same version, input bytes and options, and
/// the outputs still there, the input is skipped. Output paths are relative to the manifest's output
/// folder, so a moved output tree stays valid.
struct Manifest: Codable {
    var version: String
    var input: String
    var sha256: String
    /// The input's size and modification time (ns) when it was hashed: when both are unchanged the bytes are
    /// taken as unchanged without reading them (rsync's quick check); otherwise the hash decides.
    var size: Int64
    var modified: Int64
    var options: String
    var faces: Int
    /// Paths relative to the manifest's output folder.
    var outputs: [BatchOutput]
}

public struct BatchSettings: Sendable {
    public var outputDirectory: String
    public var specs: [OutputSpec]
    /// Crop options shared by every output (aspect and size come from each spec).
    public var crop: CropOptions
    /// Output file name: {stem} {ext} {width} {height} {aspect}.
    public var nameTemplate = "{stem}-{width}x{height}.{ext}"
    /// Everything that changes the outputs, as text: a manifest written with other options is stale.
    public var optionsKey: String
    public var force = false
    public var dryRun = false
    /// Every input of the run, by identity: no output or manifest may be one of them.
    public var inputs = InputSet()

    public init(outputDirectory: String, specs: [OutputSpec], crop: CropOptions, optionsKey: String) {
        self.outputDirectory = outputDirectory
        self.specs = specs
        self.crop = crop
        self.optionsKey = optionsKey
    }

    /// The crop options of one output.
    public func options(for spec: OutputSpec) -> CropOptions {
        var options = crop
        options.aspect = spec.aspect
        options.size = spec.size
        return options
    }

    public func folder(for input: BatchInput) -> String {
        input.subfolder.isEmpty ? outputDirectory : "\(outputDirectory)/\(input.subfolder)"
    }

    func manifestPath(for input: BatchInput) -> String { "\(folder(for: input))/.facecrop/\(input.fileName).json" }

    /// The output file name; `size` nil names what the spec knows before any work (its exact size, its width)
    /// and puts "W" and "H" with the aspect for the rest (for clash checks: crops of two aspects differ in size).
    public func outputName(for input: BatchInput, spec: OutputSpec, size: ImageSize?) -> String {
        let aspect = spec.aspect.description.replacingOccurrences(of: ":", with: "x")
        let (width, height): (String, String) =
            switch (size, spec.size) {
            case (let size?, _): (String(size.width), String(size.height))
            case (nil, .exact(let w, let h)?): (String(w), String(h))
            case (nil, .width(let w)?): (String(w), "H\(aspect)")
            case (nil, nil): ("W\(aspect)", "H\(aspect)")
            }
        return nameTemplate.replacingOccurrences(of: "{stem}", with: input.stem)
            .replacingOccurrences(of: "{ext}", with: spec.format.fileExtension)
            .replacingOccurrences(of: "{width}", with: width)
            .replacingOccurrences(of: "{height}", with: height)
            .replacingOccurrences(of: "{aspect}", with: aspect)
    }

    /// The output paths known before any work: those of exact sizes.
    public func exactOutputPaths(_ inputs: [BatchInput]) -> [String] {
        inputs.flatMap { input in
            specs.compactMap { spec -> String? in
                guard case .exact = spec.size, !crop.withoutEnlargement else { return nil }
                return "\(folder(for: input))/\(outputName(for: input, spec: spec, size: nil))"
            }
        }
    }

    /// Output paths that two inputs would share (checked before any work), as "path" → inputs.
    public func clashes(_ inputs: [BatchInput]) -> [String: [String]] {
        var owners = [String: [String]]()
        for input in inputs {
            for spec in specs { owners["\(folder(for: input))/\(outputName(for: input, spec: spec, size: nil))", default: []].append(input.path) }
        }
        return owners.filter { $0.value.count > 1 }
    }
}

extension BatchOutput {
    func moved(to path: String) -> BatchOutput {
        var o = self
        o.path = path
        return o
    }
}

extension ImageFormat {
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .tiff: "tif"
        case .heif: "heic"
        case .avif: "avif"
        }
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Runs a batch: `process` handles one input; `run` spreads inputs over threads.
public struct BatchRunner: Sendable {
    public let cropper: FaceCropper
    public let settings: BatchSettings

    public init(cropper: FaceCropper, settings: BatchSettings) {
        self.cropper = cropper
        self.settings = settings
    }

    /// Processes every input on `jobs` threads; `report` is called (serially) as each finishes. Records come
    /// back in input order. With `failFast`, no new input starts after a failure.
    public func run(_ inputs: [BatchInput], jobs: Int, failFast: Bool, report: @escaping @Sendable (BatchRecord) -> Void) -> [BatchRecord] {
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

    /// One input: skip it when its manifest is current, else analyse it once and write every output.
    public func process(_ input: BatchInput) -> BatchRecord {
        let manifestPath = settings.manifestPath(for: input)
        var written = [String]()
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
                let outputs = old.outputs.map { o in o.moved(to: "\(folder)/\(o.path)") }
                if sameBytes, outputs.allSatisfy({ Self.isComplete($0.path, bytes: $0.bytes, format: $0.format) }) {
                    return BatchRecord(input: input.path, status: .skipped, faces: old.faces, outputs: outputs)
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
            let rendered = FaceCropper.RenderedCrops()
            var found = [BatchOutput?](repeating: nil, count: settings.specs.count)
            var paths = Set<String>()
            for (group, options, crop, size) in planned {
                // Widths a crop cannot fill without enlarging give the same file: written once, listed once.
                let todo = group.map { ($0, "\(folder)/\(settings.outputName(for: input, spec: settings.specs[$0], size: size))") }
                    .filter { paths.insert($0.1).inserted }
                if !settings.dryRun {
                    _ = try cropper.write(analysis, crop: crop.rect, to: todo.map(\.1), options: options, protecting: settings.inputs, rendered: rendered) {
                        written.append($0)
                    }
                }
                for (i, path) in todo {
                    found[i] = BatchOutput(
                        path: path, format: settings.specs[i].format, width: size.width, height: size.height,
                        bytes: settings.dryRun ? 0 : Self.fileSize(path), aspect: crop.aspect, crop: crop.rect,
                        cutFaces: crop.cutFaces.isEmpty ? nil : crop.cutFaces, notEnlarged: FaceCropper.notEnlarged(size, crop: crop.rect, options))
                }
            }
            let outputs = found.compactMap { $0 }
            if !settings.dryRun {
                let manifest = Manifest(
                    version: FaceCropper.version, input: input.key, sha256: try Self.sha256(input.path, into: &sha),
                    size: fileSize, modified: modified, options: settings.optionsKey,
                    faces: analysis.faces.count, outputs: outputs.map { $0.moved(to: String($0.path.dropFirst(folder.count + 1))) })
                try Self.writeManifest(manifest, to: manifestPath, inputs: settings.inputs)
            }
            return BatchRecord(input: input.path, status: .done, faces: analysis.faces.count, outputs: outputs)
        } catch {
            // A failed input leaves nothing: remove what it wrote before failing.
            for path in written { unlink(path) }
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
                case S_IFREG where st.st_uid == getuid() && AtomicFile.isStaleTemporary(name):
                    if unlink(path) == 0 { removed.append(path) }
                default: break
                }
            }
        }
        visit(settings.outputDirectory, depth: 0)
        return removed
    }

    /// The outputs recorded in the manifests under the output folder, by identity: a later run never takes
    /// them for inputs (when the output folder is, or is inside, an input folder).
    public static func recordedOutputs(under outputDirectory: String) -> Set<FileIdentity> {
        var found = Set<FileIdentity>()
        func visit(_ folder: String, depth: Int) {
            guard depth <= BatchInputs.maxDepth else { return }
            let manifests = "\(folder)/.facecrop"
            if BatchInputs.isDirectory(manifests) {
                for name in BatchInputs.entries(manifests) where name.hasSuffix(".json") {
                    guard let manifest = readManifest("\(manifests)/\(name)") else { continue }
                    for output in manifest.outputs {
                        if let id = FileIdentity("\(folder)/\(output.path)") { found.insert(id) }
                    }
                }
            }
            for name in BatchInputs.entries(folder) {
                var st = stat()
                if lstat("\(folder)/\(name)", &st) == 0, st.st_mode & S_IFMT == S_IFDIR { visit("\(folder)/\(name)", depth: depth + 1) }
            }
        }
        visit(outputDirectory, depth: 0)
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
    /// Returns the deleted output paths.
    public func prune(keeping inputs: [BatchInput]) -> [String] {
        let keep = Set(inputs.map(\.key))
        var deleted = [String]()
        func visit(_ folder: String) {
            let manifests = "\(folder)/.facecrop"
            if BatchInputs.isDirectory(manifests) {
                for name in BatchInputs.entries(manifests) where name.hasSuffix(".json") {
                    let path = "\(manifests)/\(name)"
                    guard let manifest = Self.readManifest(path), !keep.contains(manifest.input) else { continue }
                    for output in manifest.outputs where unlink("\(folder)/\(output.path)") == 0 { deleted.append("\(folder)/\(output.path)") }
                    unlink(path)
                }
            }
            for name in BatchInputs.entries(folder) where BatchInputs.isDirectory("\(folder)/\(name)") { visit("\(folder)/\(name)") }
        }
        visit(settings.outputDirectory)
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

    public static func sha256(_ path: String) throws(FaceCropError) -> String {
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
    public static func makeDirectories(_ path: String) throws(FaceCropError) {
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
