// Output paths checked before any work.
import Glibc
import Synchronization

/// Checks an output path before any work: known extension, existing writable folder, not an input, not an
/// existing FIFO or device (which a rename would replace).
package enum OutputCheck {
    @discardableResult
    static func writable(_ path: String, input: String) throws(FaceCropError) -> ImageFormat {
        try writable(path, inputs: InputSet([input]))
    }

    @discardableResult
    package static func writable(_ path: String, inputs: InputSet) throws(FaceCropError) -> ImageFormat {
        guard let format = ImageFormat(path: path) else { throw .unsupportedOutputFormat(path) }
        guard VipsImage.canSave(format) else { throw .unsupportedOutputFormat(path) }
        try destination(path, inputs: inputs)
        return format
    }

    /// The checks every written path gets, whatever its format (reports and manifests too): not an input (by
    /// identity), an existing folder we may write in, and, unless `allowStreams`, not an existing FIFO, device
    /// or socket (a report may go to /dev/stdout; an image would replace the node).
    package static func destination(_ path: String, inputs: InputSet, allowStreams: Bool = false) throws(FaceCropError) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        if name.isEmpty || name == "." || name == ".." { throw .outputNotWritable(path, reason: "it names a folder") }
        if inputs.input(at: path) != nil { throw .outputSameAsInput(path) }
        let dir = directory(of: path)
        var st = stat()
        guard stat(dir, &st) == 0 else { throw .outputDirectoryMissing(dir) }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw .outputNotWritable(dir, reason: "it is not a folder") }
        if stat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw .outputNotWritable(path, reason: "it is a directory")
            default:
                if !allowStreams { throw .outputNotRegularFile(path) }
                if access(path, W_OK) != 0 { throw .outputNotWritable(path, reason: errorText(errno)) }
                return
            }
        }
        if access(dir, W_OK) != 0 { throw .outputNotWritable(path, reason: errorText(errno)) }
    }

    /// Refuses two outputs that are one file: the same identity when they exist, else the same name in the
    /// same folder (by the folder's identity).
    package static func distinct(_ outputs: [String]) throws(FaceCropError) {
        for (i, a) in outputs.enumerated() {
            for b in outputs[(i + 1)...] where sameDestination(a, b) { throw .outputsClash(a, b) }
        }
    }

    package static func sameDestination(_ a: String, _ b: String) -> Bool {
        if let ia = FileIdentity(a), let ib = FileIdentity(b) { return ia == ib }
        func split(_ p: String) -> (FileIdentity?, String) {
            (FileIdentity(directory(of: p)), p.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? p)
        }
        let (da, na) = split(a)
        let (db, nb) = split(b)
        return da != nil && da == db && na == nb
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Same path after resolving links, or the same inode (hard links).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let ia = FileIdentity(a) else { return false }
        return ia == FileIdentity(b)
    }
}
