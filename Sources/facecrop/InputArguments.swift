import ArgumentParser
import FaceCrop
import Glibc

/// The inputs of `batch` and `rank`: files and folders, a list of paths, and how many to process at once.
struct InputArguments: ParsableArguments {
    @Argument(help: "Image files and folders.")
    var input: [String] = []

    @Option(name: .customLong("inputs"), help: "Also read input paths, one per line, from this file ('-' for standard input).")
    var inputList: String?

    @Flag(help: "Look for images in sub-folders too (for batch, their layout is mirrored under --output-dir).")
    var recursive = false

    @Option(help: "Images processed at once (default: the number of cores).")
    var jobs = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    func validate() throws {
        if input.isEmpty && inputList == nil { throw ValidationError("Give at least one input file or folder, or --inputs.") }
        guard jobs >= 1 else { throw ValidationError("Expected a positive integer for --jobs but received '\(jobs)'.") }
    }

    /// Every input: the arguments, then the listed paths; folders expanded.
    func collect() throws -> [BatchInput] {
        var paths = input
        if let list = inputList {
            guard let text = Self.read(list) else {
                printError("Error: Cannot read the input list '\(list)': \(String(cString: strerror(errno))).")
                throw ExitCode(66)
            }
            paths += text.split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
        }
        return BatchInputs.collect(paths, recursive: recursive)
    }

    static func read(_ path: String) -> String? {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { if path != "-" { close(fd) } }
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while case let n = Glibc.read(fd, &buffer, buffer.count), n > 0 { bytes += buffer.prefix(n) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
