// A batch's inputs: files and folders walked (recursively, bounded, loops once), shards.
import FaceCropCore
import FoundationEssentials
import Glibc
import Synchronization

/// One image to process, and where its outputs go.
public struct BatchInput: Sendable, Hashable {
    /// The input's path: as given, or its folder argument joined with the names below it.
    public var path: String
    /// Folder under the output folder: the input's folder relative to the folder argument it was found
    /// under, "" for inputs given as files.
    public var subfolder: String

    /// An input and its sub-folder ("" for the top of the output folder).
    public init(path: String, subfolder: String) {
        self.path = path
        self.subfolder = subfolder
    }

    /// The path's last component.
    public var fileName: String { path.split(separator: "/").last.map(String.init) ?? path }
    /// The file name without its extension (a leading dot starts no extension): `{stem}` in output names.
    public var stem: String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fileName }
        return String(fileName[..<dot])
    }
    /// Identity under the output folder: what manifests, shards and pruning key on.
    public var key: String { subfolder.isEmpty ? fileName : "\(subfolder)/\(fileName)" }
}

/// A batch's inputs: files as given and the images in folders (walked recursively if asked, bounded in depth,
/// each folder once), sorted by key; and the share of them one machine takes (`shard`).
public enum BatchInputs {
    /// Extensions (matched in any case) of the files a folder contributes; files given directly are taken whatever
    /// their name.
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif"]
    /// Folders nested deeper than this under a folder argument are reported, not walked.
    public static let maxDepth = 64

    /// What a walk found: the inputs, and the folders it could not list (each a failure of the run).
    public struct Collected: Sendable {
        /// The inputs found.
        public var inputs: [BatchInput] = []
        /// Folders that could not be listed or were nested too deep, and images whose names are not UTF-8, each with
        /// its error.
        public var problems: [(path: String, error: FaceCropError)] = []
        /// Excluded folders the walk came upon and left out (the output folder inside an input folder).
        public var leftOut: [String] = []
    }

    /// What a walk leaves out: folders (the output folder, when it is among the inputs) and files (outputs
    /// of earlier runs, from their manifests), by identity. Outputs must never become inputs.
    public struct Exclusions: Sendable {
        /// Folders not walked, unless one is itself a folder argument.
        public var folders: Set<FileIdentity> = []
        /// Files left out of the folders walked.
        public var files: Set<FileIdentity> = []
        /// Nothing left out, or the files `files`.
        public init(files: Set<FileIdentity> = []) { self.files = files }
    }

    /// Files are taken as given (a missing one fails later, as its own input); folders contribute the
    /// image files in them (by extension, hidden names skipped), recursively if asked. Sorted by key.
    public static func collect(_ arguments: [String], recursive: Bool) -> [BatchInput] {
        collect(arguments, recursive: recursive, excluding: Exclusions()).inputs
    }

    /// `collect`, leaving out `excluding` and keeping what could not be walked as problems; inputs sorted by key.
    /// A file found more than once with one key (given twice, or as itself and within a folder given) is an input
    /// once; under another key (a link in another folder, another name) it is an input of that key too, with
    /// outputs of its own.
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
        var (seen, unreached) = (Set<SameFile>(), Set<String>())  // a missing file by its path
        found.inputs.removeAll { input in
            FileIdentity(input.path).map { !seen.insert(SameFile(identity: $0, key: input.key)).inserted } ?? !unreached.insert(input.path).inserted
        }
        return found
    }

    /// A file under one key.
    private struct SameFile: Hashable {
        let identity: FileIdentity
        let key: String
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
        // A directory entry is only as long as its name: `entry.pointee` would copy the whole 256-byte name
        // field, past the end of the last entry in readdir's buffer. The name is read where it lies instead.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let cName = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            let bytes = Array(UnsafeRawBufferPointer(start: cName, count: strlen(cName)))
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
            if depth > 0 && excluding.folders.contains(id) {
                found.leftOut.append(folder)
                return
            }
            if !visited.insert(id).inserted { return }
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
        inputs.filter { Shards.index(of: $0.key, count: count) == index }
    }
}
