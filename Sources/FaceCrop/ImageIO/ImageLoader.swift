// Which reader decoded an image: a libvips loader, or FFmpeg for a video frame.

/// The libvips loader that read an image (its operation's name, e.g. "jpegload_source"), or ``video`` for a
/// frame FFmpeg decoded. JSON reports write it as its name.
public struct ImageLoader: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The libvips operation's name, or "video".
    public let name: String

    /// The loader named `name`.
    public init(_ name: String) { self.name = name }

    /// A video frame, decoded by FFmpeg.
    public static let video = ImageLoader("video")

    /// libvips' JPEG loader ("jpegload", "jpegload_source", "jpegload_buffer"): it can shrink on load, and its
    /// pixels sit on an 8x8 block grid. The one place a loader's name is read.
    public var isJPEG: Bool { name.hasPrefix("jpegload") }

    /// The name.
    public var description: String { name }

    /// Reads a loader written as its name (a string).
    public init(from decoder: any Decoder) throws { name = try decoder.singleValueContainer().decode(String.self) }

    /// Writes the name as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
