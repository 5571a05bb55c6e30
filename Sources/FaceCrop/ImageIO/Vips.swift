// libvips through CVipsShim: opening, decoding, cutting, resizing and saving images. (Drawing.swift makes
// images of RGB buffers with the shim too, and BatchRunner hashes files with its SHA-256.)
import CVipsShim
import FaceCropCore

/// libvips' error, with the library's own text (last message, prefixes like "VipsJpeg: " kept).
struct VipsError: Error {
    enum Kind { case notAnImage, blocked, other }
    var kind = Kind.other
    let message: String
    static let unexplained = "unknown libvips error"

    /// Reads and clears libvips' (process-wide) error buffer.
    static func take() -> VipsError {
        guard let raw = fc_error_copy() else { return VipsError(message: unexplained) }
        defer { fc_free(raw) }
        return VipsError(message: lastMessage(String(cString: raw)) ?? unexplained)
    }

    /// The last message of an error buffer: its last line, with the lines that continue it (libheif's
    /// " (2.100)" error codes start with a space).
    static func lastMessage(_ buffer: String) -> String? {
        var messages = [String]()
        for line in buffer.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
            if line.first?.isWhitespace == true, let last = messages.popLast() {
                messages.append(last + line)
            } else {
                messages.append(String(line))
            }
        }
        return messages.last
    }
}

/// libvips starts once per process, with its untrusted loaders blocked (`FaceCropper.allowUntrustedLoaders`).
private let vipsStarted: Bool = {
    guard fc_init(CommandLine.arguments.first ?? "facecrop") == 0 else { return false }
    fc_block_untrusted(1)
    return true
}()

/// Output formats facecrop writes, chosen by extension: the one list every option, help text and message about
/// output formats is made from.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    /// The raw values are the names in JSON reports; `heif` is written as HEIC (HEVC), `avif` as AV1 in HEIF.
    case jpeg, png, webp, tiff, heif, avif

    /// The extensions that name the format (any case), the usual one first.
    public var pathExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg"]
        case .png: ["png"]
        case .webp: ["webp"]
        case .tiff: ["tif", "tiff"]
        case .heif: ["heic", "heif"]
        case .avif: ["avif"]
        }
    }

    /// The usual extension, without the dot: what batch names its outputs with.
    public var fileExtension: String { pathExtensions[0] }

    /// Every format's usual extension, for messages and help: "jpg, png, webp, tif, heic or avif", or with
    /// `dotted` ".jpg, .png, .webp, .tif, .heic or .avif".
    package static func choices(dotted: Bool = false) -> String {
        let names = allCases.map { (dotted ? "." : "") + $0.fileExtension }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    /// Every format's usual extension, dotted and separated by spaces, for help texts: ".jpg .png .webp .tif .heic .avif".
    package static var dottedList: String { allCases.map { "." + $0.fileExtension }.joined(separator: " ") }

    /// Defaults that give about the same visual quality across formats (sharp's and libvips' choices: AVIF's
    /// and HEIC's scales are not JPEG's); nil for the lossless formats.
    public var defaultQuality: Int? {
        switch self {
        case .jpeg, .webp: 80
        case .heif, .avif: 50
        case .png, .tiff: nil
        }
    }

    /// The format one of `pathExtensions` names (without the dot, any case); nil for any other.
    public init?(pathExtension ext: String) {
        let ext = ext.lowercased()
        guard let format = Self.allCases.first(where: { $0.pathExtensions.contains(ext) }) else { return nil }
        self = format
    }

    /// From the extension of a path's last component ("out/a.b.png" → png); nil without a known one.
    public init?(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        self.init(pathExtension: String(name[name.index(after: dot)...]))
    }

    var shimFormat: FCFormat {
        switch self {
        case .jpeg: FC_JPEG
        case .png: FC_PNG
        case .webp: FC_WEBP
        case .tiff: FC_TIFF
        case .heif: FC_HEIF
        case .avif: FC_AVIF
        }
    }

    var supportsAlpha: Bool { self != .jpeg }

    /// The longest side the format (as libvips writes it) can hold: libjpeg's JPEG_MAX_DIMENSION, libwebp's
    /// WEBP_MAX_DIMENSION, x265's and libaom's largest pictures for HEIF and AVIF, libvips' VIPS_MAX_COORD.
    public var maxDimension: Int {
        switch self {
        case .jpeg: 65_500
        case .webp: 16_383
        case .heif, .avif: 16_384
        case .png, .tiff: 10_000_000
        }
    }

    /// Bytes libvips' encoder for the format holds for a picture of `pixels` (of samples over 8 bits: `highDepth`),
    /// on the safe side of what was measured with Debian bookworm's libvips 8.14, libwebp, libheif with x265 and
    /// libaom (docs/security.md): WebP, HEIC and AVIF are encoded whole; JPEG, PNG and TIFF are written in strips
    /// (0). Int.max on overflow.
    public func encoderMemory(pixels: Int, highDepth: Bool = false) -> Int {
        let (fixed, perPixel, deep) =
            switch self {
            case .jpeg, .png, .tiff: (0, 0, 0)
            case .webp: (0, 6, 8)
            case .heif: (32 << 20, 20, 36)
            case .avif: (48 << 20, 120, 144)  // libaom; at most a third of it for some near-square pictures under 8.8 Mpx
            }
        return checkedProduct(max(0, pixels), highDepth ? deep : perPixel).map { $0 + fixed } ?? .max
    }

    /// "a JPEG", "an AVIF": the name with its article, for messages.
    public var withArticle: String { (self == .avif ? "an " : "a ") + displayName }

    /// The format's name in messages: JPEG, PNG, WebP, TIFF, HEIC or AVIF.
    public var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        case .tiff: "TIFF"
        case .heif: "HEIC"
        case .avif: "AVIF"
        }
    }
}

/// Output sizes checked before any work: what the format can hold, the output pixel limit and the memory its
/// encoder would take.
package enum OutputLimits {
    package static func check(
        _ size: ImageSize, format: ImageFormat, path: String, maxPixels: Int, maxEncodeMemory: Int, highDepth: Bool = false
    ) throws(FaceCropError) {
        if size.width < 1 || size.height < 1 {
            throw .outputTooLarge(path, width: size.width, height: size.height, reason: "which is not a picture")
        }
        if max(size.width, size.height) > format.maxDimension {
            throw .outputTooLarge(
                path, width: size.width, height: size.height,
                reason: "over the \(format.maxDimension) pixels \(format.withArticle) side can have")
        }
        guard let pixels = checkedProduct(size.width, size.height), pixels <= maxPixels else {
            throw .outputTooLarge(
                path, width: size.width, height: size.height,
                reason: "over the limit of \(maxPixels) output pixels; raise it with --max-output-pixels")
        }
        let bytes = format.encoderMemory(pixels: pixels, highDepth: highDepth)
        if bytes > maxEncodeMemory {
            throw .outputTooLarge(
                path, width: size.width, height: size.height,
                reason:
                    "which the \(format.displayName) encoder holds whole in memory: about \(mebibytes(bytes, roundingUp: true)), over the limit of \(mebibytes(maxEncodeMemory)); raise it with --max-encode-memory"
            )
        }
    }
}

/// Values handed to libvips as C ints: checked, so an out-of-range size is an error, not a trap.
func cInt(_ value: Int) throws(VipsError) -> Int32 {
    guard let v = Int32(exactly: value) else { throw VipsError(message: "\(value) is beyond what libvips can take (\(Int32.max))") }
    return v
}

/// An owned libvips image. libvips images are immutable once built and their reference counts are
/// atomic, so sharing one across threads is safe: hence @unchecked Sendable.
final class VipsImage: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { fc_unref(pointer) }

    /// Runs a shim call that produces a new image, turning libvips' error channel into a Swift error.
    static func make(_ body: (UnsafeMutablePointer<OpaquePointer?>) -> Int32) throws(VipsError) -> VipsImage {
        guard vipsStarted else { throw VipsError(message: "libvips failed to start") }
        var out: OpaquePointer?
        fc_lock_shared()
        var rc = body(&out)
        // No open loader knows the input: libvips' other format modules are opened, with no other thread in
        // libvips (`fc_load_all_modules`, once per process), and the input is looked at again.
        if rc == FC_NOT_AN_IMAGE {
            fc_unlock_shared()
            let opened = fc_load_all_modules()
            fc_lock_shared()
            if opened != 0 { rc = body(&out) }
        }
        defer { fc_unlock_shared() }
        guard rc == 0, let image = out else {
            if let out { fc_unref(out) }
            var error = VipsError.take()
            if rc == FC_NOT_AN_IMAGE { error.kind = .notAnImage }
            if rc == FC_BLOCKED { error.kind = .blocked }
            throw error
        }
        return VipsImage(image)
    }

    static func check(_ body: () -> Int32) throws(VipsError) {
        fc_lock_shared()
        defer { fc_unlock_shared() }
        if body() != 0 { throw VipsError.take() }
    }

    /// Runs `body` with no other thread inside libvips (their calls wait), so the error buffer holds only
    /// what `body` did.
    static func exclusively<T>(_ body: () -> T) -> T {
        fc_lock_exclusive()
        defer { fc_unlock_exclusive() }
        return body()
    }

    static func start() { _ = vipsStarted }

    /// See `FaceCropper.openImageModulesOnDemand`.
    static func loadModulesOnDemand() { fc_load_modules_on_demand() }

    /// See `FaceCropper.returnLargeBlocksWhenFreed`.
    static func mapLargeBlocks() { fc_map_large_blocks() }

    static func setBlockUntrusted(_ block: Bool) {
        guard vipsStarted else { return }
        fc_block_untrusted(block ? 1 : 0)
    }

    /// Opens a file (header now, pixels on demand). shrink > 1: JPEG shrink-on-load.
    static func open(_ path: String, sequential: Bool, shrink: Int = 1) throws(VipsError) -> VipsImage {
        let shrink = Int32(clamping: shrink)
        return try make { fc_open(path, sequential ? 1 : 0, 1, shrink, $0) }
    }

    /// Decodes into a box with shrink-on-load, upright.
    static func thumbnail(_ path: String, box: Int) throws(VipsError) -> VipsImage {
        let box = try cInt(box)
        return try make { fc_thumbnail(path, box, box, 1, $0) }
    }

    /// `open` on encoded bytes in memory.
    static func open(_ blob: VipsBlob, sequential: Bool, shrink: Int = 1) throws(VipsError) -> VipsImage {
        let shrink = Int32(clamping: shrink)
        return try make { fc_open_blob(blob.pointer, sequential ? 1 : 0, 1, shrink, $0) }
    }

    /// `thumbnail` on encoded bytes in memory.
    static func thumbnail(_ blob: VipsBlob, box: Int) throws(VipsError) -> VipsImage {
        let box = try cInt(box)
        return try make { fc_thumbnail_blob(blob.pointer, box, box, 1, $0) }
    }

    /// A shrunk upright in-memory copy of an image already in memory.
    func preview(box: Int) throws(VipsError) -> VipsImage {
        let box = try cInt(box)
        return try Self.make { fc_preview(pointer, box, $0) }
    }

    var width: Int { Int(fc_width(pointer)) }
    var height: Int { Int(fc_height(pointer)) }
    var size: ImageSize { ImageSize(width: width, height: height) }
    var bands: Int { Int(fc_bands(pointer)) }
    var decodedBytes: Int { Int(fc_decoded_bytes(pointer)) }
    var hasAlpha: Bool { fc_has_alpha(pointer) != 0 }

    /// The decoder, when it holds the whole frame in memory (progressive JPEG, interlaced PNG, GIF, WebP, HEIF),
    /// with the bytes it takes for this image; nil when the image streams.
    var wholeFrameDecode: (kind: String, bytes: Int)? {
        var perPixel: Int32 = 0
        let kind = fc_whole_frame_format(pointer, &perPixel)
        let name: String
        switch Int(kind) {
        case Int(FC_PROGRESSIVE_JPEG): name = "a progressive JPEG"
        case Int(FC_INTERLACED_PNG): name = "an interlaced PNG"
        case Int(FC_GIF): name = "a GIF"
        case Int(FC_WEBP_WHOLE): name = "a WebP"
        case Int(FC_HEIF_WHOLE): name = "a HEIF image"
        default: return nil
        }
        let pixels = width.multipliedReportingOverflow(by: height)
        let bytes = pixels.partialValue.multipliedReportingOverflow(by: Int(perPixel))
        return (name, pixels.overflow || bytes.overflow ? .max : bytes.partialValue)
    }
    var hasICCProfile: Bool { fc_has_icc_profile(pointer) != 0 }
    /// Floats tagged scRGB (0...1) whose values reach past 2: sRGB written as floats of 0...255. Reads every
    /// pixel, so only for an image in memory.
    var isSRGBAsFloat: Bool { fc_is_srgb_as_float(pointer) != 0 }
    /// The same pixels, tagged sRGB.
    func taggedSRGB() throws(VipsError) -> VipsImage { try Self.make { fc_tag_srgb(pointer, $0) } }
    var orientation: Orientation { Orientation(rawValue: Int(fc_orientation(pointer))) ?? .up }
    var loader: ImageLoader { ImageLoader(Self.string(fc_loader(pointer))) }
    /// Pixels libvips' savers would write wrongly as they are, which `sRGB()` converts: CMYK, and colour spaces
    /// other than RGB or grey (a TIFF's scRGB, CIELAB, XYZ; libvips 8.14 writes scRGB as a black JPEG).
    var needsSRGB: Bool { !["srgb", "rgb", "b-w", "rgb16", "grey16", "multiband"].contains(Self.string(fc_interpretation(pointer))) }

    private static func string(_ raw: UnsafeMutablePointer<CChar>?) -> String {
        guard let raw else { return "" }
        defer { fc_free(raw) }
        return String(cString: raw)
    }

    func extract(_ r: PixelRect) throws(VipsError) -> VipsImage {
        let (x, y, w, h) = (try cInt(r.x), try cInt(r.y), try cInt(r.width), try cInt(r.height))
        return try Self.make { fc_extract(pointer, x, y, w, h, $0) }
    }
    func resized(width: Int, height: Int) throws(VipsError) -> VipsImage {
        let (w, h) = (try cInt(width), try cInt(height))
        return try Self.make { fc_resize_to(pointer, w, h, $0) }
    }
    func inMemory() throws(VipsError) -> VipsImage { try Self.make { fc_copy_memory(pointer, $0) } }
    func upright() throws(VipsError) -> VipsImage { try Self.make { fc_autorot(pointer, $0) } }
    /// Turned as `orientation` shows a picture (`.right`, `.down` or `.left`: quarter turns, not mirrored).
    func shown(as orientation: Orientation) throws(VipsError) -> VipsImage {
        let quarters: Int32 =
            switch orientation {
            case .right: 1
            case .down: 2
            case .left: 3
            default: 0
            }
        guard quarters > 0 else { return self }
        return try Self.make { fc_rot(pointer, quarters, $0) }
    }
    func flattenedOnWhite() throws(VipsError) -> VipsImage { try Self.make { fc_flatten_white(pointer, $0) } }
    func sRGB() throws(VipsError) -> VipsImage { try Self.make { fc_to_srgb(pointer, $0) } }
    /// The pixels converted from their embedded profile to sRGB (unchanged without a profile).
    func profileToSRGB() throws(VipsError) -> VipsImage { try Self.make { fc_profile_to_srgb(pointer, $0) } }

    /// Packed 8-bit RGB pixels, alpha flattened on white.
    func withRGB8<R>(_ body: (UnsafePointer<UInt8>, Int, Int) throws -> R) throws -> R {
        var buffer: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0
        var h: Int32 = 0
        try Self.check { fc_rgb8(pointer, &buffer, &w, &h) }
        defer { fc_free(buffer) }
        return try withExtendedLifetime(self) { try body(buffer!, Int(w), Int(h)) }
    }

    /// libvips' attention centre for a crop of width x height.
    func attentionCenter(width: Int, height: Int) throws(VipsError) -> Point {
        var x: Int32 = 0
        var y: Int32 = 0
        let (w, h) = (try cInt(width), try cInt(height))
        try Self.check { fc_attention_center(pointer, w, h, &x, &y) }
        return Point(x: Double(x), y: Double(y))
    }

    func save(to path: String, format: ImageFormat, quality: Int?, strip: Bool) throws(VipsError) {
        let q = Self.saveQuality(quality)
        try Self.check { fc_save(pointer, path, format.shimFormat, q, strip ? 1 : 0) }
    }

    /// The encoder quality libvips takes: 0 (the format's default) to 100.
    static func saveQuality(_ quality: Int?) -> Int32 { Int32(clamping: min(max(quality ?? 0, 0), 100)) }

    /// The bytes `save(to:format:quality:strip:)` would write, in memory (same encoder, same options).
    func encoded(format: ImageFormat, quality: Int?, strip: Bool) throws(VipsError) -> [UInt8] {
        var data: UnsafeMutableRawPointer?
        var length = 0
        let q = Self.saveQuality(quality)
        try Self.check { fc_save_memory(pointer, format.shimFormat, q, strip ? 1 : 0, &data, &length) }
        defer { fc_free(data) }
        guard let data else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
    }

    static func canSave(_ format: ImageFormat) -> Bool { vipsStarted && fc_can_save(format.shimFormat) != 0 }

    /// Largest channel difference and the share of pixels differing by more than `threshold`.
    func compare(with other: VipsImage, threshold: Double) throws(VipsError) -> (maxDelta: Double, mismatch: Double) {
        var maxDelta = 0.0
        var mismatch = 0.0
        try Self.check { fc_compare(pointer, other.pointer, threshold, &maxDelta, &mismatch) }
        return (maxDelta, mismatch)
    }
}

/// Encoded image bytes copied once into a libvips blob, which the images opened from it share (libvips counts
/// references to it atomically, so it can be shared between threads).
final class VipsBlob: @unchecked Sendable {
    let pointer: OpaquePointer
    let count: Int
    /// The first bytes, for `InputCheck.announcedFormat(head:)`.
    let head: [UInt8]

    init(_ bytes: [UInt8]) throws(VipsError) {
        guard let pointer = bytes.withUnsafeBytes({ fc_blob_copy($0.baseAddress, $0.count) }) else {
            throw VipsError(message: "out of memory for \(bytes.count) bytes")
        }
        self.pointer = pointer
        self.count = bytes.count
        self.head = Array(bytes.prefix(InputCheck.headLength))
    }

    deinit { fc_blob_unref(pointer) }
}

/// Where an image is read from: a file, or encoded bytes in memory.
enum ImageInput: Sendable {
    case file(String)
    case memory(VipsBlob, name: String)

    /// The path, or the name given to the bytes (for messages and reports).
    var name: String {
        switch self {
        case .file(let path): return path
        case .memory(_, let name): return name
        }
    }

    func open(sequential: Bool, shrink: Int = 1) throws(VipsError) -> VipsImage {
        switch self {
        case .file(let path): return try VipsImage.open(path, sequential: sequential, shrink: shrink)
        case .memory(let blob, _): return try VipsImage.open(blob, sequential: sequential, shrink: shrink)
        }
    }

    func thumbnail(box: Int) throws(VipsError) -> VipsImage {
        switch self {
        case .file(let path): return try VipsImage.thumbnail(path, box: box)
        case .memory(let blob, _): return try VipsImage.thumbnail(blob, box: box)
        }
    }
}
