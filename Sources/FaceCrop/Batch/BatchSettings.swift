// What a batch writes for each input: output specs, names, records, manifests.
import FaceCropCore
import FoundationEssentials
import Glibc
import Synchronization

/// One output per input: an aspect, an exact size, a width or the crop's own size, and a format.
public struct OutputSpec: Sendable, Hashable {
    /// The crop's aspect (`--aspect`, or the `--size`'s).
    public var aspect: Aspect
    /// The output's size: exact (`--size`), a width (`--width`), or nil for the crop's own size.
    public var size: OutputSize?
    /// The output format (`--format`; default JPEG).
    public var format: ImageFormat
    /// An output spec; JPEG unless `format` says otherwise.
    public init(aspect: Aspect, size: OutputSize?, format: ImageFormat = .jpeg) {
        self.aspect = aspect
        self.size = size
        self.format = format
    }
}

/// One file written for an input: in reports, manifests and the site manifest.
public struct BatchOutput: Codable, Sendable, Equatable {
    /// Where it was written (in manifests: relative to the manifest's output folder).
    public var path: String
    /// Its format.
    public var format: ImageFormat
    /// Its size in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// Its size in bytes when written: an output of another size (truncated, replaced) is redone.
    public var bytes: Int
    /// The aspect asked ("16:9", "original": the input's).
    public var aspect: String
    /// The rectangle of the (upright) input it shows.
    public var crop: PixelRect
    /// Faces (0-based, in the input's face order) the crop cuts, and whether the faces the strategy frames fit
    /// (as in the crop report): both absent when no face is cut.
    public var cutFaces: [Int]?
    /// With `cutFaces`: whether the framed faces plus margin fit inside the crop.
    public var regionFits: Bool?
    /// True when the output was asked larger than the crop and kept the crop's size (`CropOptions.withoutEnlargement`).
    public var notEnlarged: Bool?
}

/// What happened to one input: a line of the `--report` file.
public struct BatchRecord: Codable, Sendable {
    /// Written, skipped (its manifest matched: nothing changed since the last run), or failed.
    public enum Status: String, Codable, Sendable { case done, skipped, failed }
    /// The input's path, as given or found.
    public var input: String
    /// Done, skipped or failed.
    public var status: Status
    /// Faces found (done and skipped inputs).
    public var faces: Int?
    /// The faces' boxes in the upright input, in pixels (done and skipped inputs).
    public var faceBoxes: [PixelRect]?
    /// Every output, in the order of the specs (done and skipped inputs).
    public var outputs: [BatchOutput]?
    /// A failed input's error, and the exit status it alone would have had.
    public var error: String?
    /// A failed input's exit status.
    public var exitCode: Int32?

    /// A record; the optional fields are absent unless given.
    public init(
        input: String, status: Status, faces: Int? = nil, faceBoxes: [PixelRect]? = nil, outputs: [BatchOutput]? = nil, error: String? = nil,
        exitCode: Int32? = nil
    ) {
        (self.input, self.status, self.faces, self.faceBoxes, self.outputs) = (input, status, faces, faceBoxes, outputs)
        (self.error, self.exitCode) = (error, exitCode)
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
    var faceBoxes: [PixelRect]?
    /// Paths relative to the manifest's output folder.
    var outputs: [BatchOutput]

    /// The outputs' paths in `folder`, the manifest's output folder; a recorded name that is not a plain file
    /// name there (a "/" in it, "." or "..": a manifest edited or restored from elsewhere) is left out, so that
    /// nothing outside the folder is taken for an output.
    func outputPaths(in folder: String) -> [String] {
        outputs.map(\.path).filter { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") }.map { "\(folder)/\($0)" }
    }
}

/// What a batch makes of every input: the output folder, one `OutputSpec` per output (aspect, size,
/// format), the crop options they share, the file-name template, and when an input may be skipped.
public struct BatchSettings: Sendable {
    /// Where outputs go (each input's sub-folder below it).
    public var outputDirectory: String
    /// One output per spec, for every input.
    public var specs: [OutputSpec]
    /// Crop options shared by every output (aspect and size come from each spec).
    public var crop: CropOptions
    /// Output file name: {stem} {ext} {width} {height} {aspect}.
    public var nameTemplate = "{stem}-{width}x{height}.{ext}"
    /// Everything that changes the outputs, as text: a manifest written with other options is stale.
    public var optionsKey: String
    /// Redo every input, whatever its manifest says.
    public var force = false
    /// Plan every output, write nothing (no outputs or manifests).
    public var dryRun = false
    /// Every input of the run, by identity: no output or manifest may be one of them.
    public var inputs = InputSet()

    /// Settings with the default name template, neither `force` nor `dryRun`, and no inputs to protect.
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

    /// The folder `input`'s outputs and manifest go in: the output folder, or its sub-folder for the input.
    public func folder(for input: BatchInput) -> String {
        input.subfolder.isEmpty ? outputDirectory : "\(outputDirectory)/\(input.subfolder)"
    }

    /// The manifest of `input` written with this run's options (`BatchNaming.manifestName`).
    func manifestPath(for input: BatchInput) -> String {
        "\(folder(for: input))/.facecrop/\(BatchNaming.manifestName(input: input.fileName, optionsKey: optionsKey))"
    }

    /// The output file name; `size` nil names what the spec knows before any work (its exact size, its width)
    /// and puts "W" and "H" with the aspect for the rest (for clash checks: crops of two aspects differ in size).
    public func outputName(for input: BatchInput, spec: OutputSpec, size: ImageSize?) -> String {
        BatchNaming.outputName(
            template: nameTemplate, stem: input.stem, fileExtension: spec.format.fileExtension, aspect: spec.aspect, asked: spec.size, size: size)
    }

    /// The output paths known before any work: those whose name does not depend on the crop's size (exact
    /// sizes, a width when the name has no height, a name without either), checked against the inputs first.
    public func knownOutputPaths(_ inputs: [BatchInput]) -> [String] {
        inputs.flatMap { input in
            specs.compactMap { spec -> String? in
                guard nameKnownBeforeWork(spec) else { return nil }
                return "\(folder(for: input))/\(outputName(for: input, spec: spec, size: nil))"
            }
        }
    }

    func nameKnownBeforeWork(_ spec: OutputSpec) -> Bool {
        let (usesWidth, usesHeight) = (nameTemplate.contains("{width}"), nameTemplate.contains("{height}"))
        if !usesWidth && !usesHeight { return true }
        if crop.withoutEnlargement { return false }
        switch spec.size {
        case .exact?: return true
        case .width?: return !usesHeight
        case nil: return false
        }
    }

    /// Output paths that two inputs would share (checked before any work), as "path" → inputs; a size the name
    /// holds that is known only once the faces are found is shown as `{width}` or `{height}`.
    public func clashes(_ inputs: [BatchInput]) -> [String: [String]] {
        var owners = [String: (first: BatchInput, spec: OutputSpec, inputs: [String])]()
        for input in inputs {
            for spec in specs {
                owners["\(folder(for: input))/\(outputName(for: input, spec: spec, size: nil))", default: (input, spec, [])].inputs.append(input.path)
            }
        }
        // Named for the message only where two share a path.
        let shared = owners.values.filter { $0.inputs.count > 1 }.map { owner in
            let name = BatchNaming.shownName(
                template: nameTemplate, stem: owner.first.stem, fileExtension: owner.spec.format.fileExtension, aspect: owner.spec.aspect,
                asked: owner.spec.size)
            return ("\(folder(for: owner.first))/\(name)", owner.inputs)
        }
        return Dictionary(shared, uniquingKeysWith: { a, _ in a })
    }
}

extension BatchOutput {
    func moved(to path: String) -> BatchOutput {
        var o = self
        o.path = path
        return o
    }
}
