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

    @Option(name: .customLong("jobs"), parsing: .unconditional, help: "Images processed at once, 1...256 (default: the number of cores).")
    var jobsText = NumberText(min(256, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    var jobs: Int { get throws { try jobsText.value("--jobs", Limits.jobs.range, expected: Limits.jobs.expected) } }

    func validate() throws {
        if input.isEmpty && inputList == nil { throw ValidationError("Give at least one input file or folder, or --inputs.") }
        _ = try jobs
    }

    /// The inputs as given, for messages: 'photos', 'a.jpg' and the list 'list.txt'.
    var described: String {
        let names = input.map { "'\($0)'" } + (inputList.map { ["the list '\($0)'"] } ?? [])
        return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// Exits 66 with a line saying where it looked when `collected` found no image and no problem.
    func requireImages(_ collected: BatchInputs.Collected) throws {
        guard collected.inputs.isEmpty && collected.problems.isEmpty else { return }
        printError(
            "Error: No images found in \(described); facecrop reads \(BatchInputs.imageExtensions.sorted().map { "." + $0 }.joined(separator: " ")) files\(recursive ? "" : " (add --recursive for subfolders)")."
        )
        throw ExitCode(66)
    }

    /// The files a run reads, which no output may replace: the images, the --inputs list (standard input's file
    /// when the list is `-`: `--inputs - < list.txt`) and the `others` read.
    func protected(_ images: [String], reading others: [String]) -> InputSet {
        var set = InputSet(images + (inputList.map { [$0] } ?? []) + others)
        if inputList == "-" { set.insertStandardInput() }
        return set
    }

    /// The --inputs list is bounded: at most this many bytes, and lines (paths) of at most PATH_MAX bytes.
    static let maxListBytes = 64 << 20
    static let maxLineBytes = Int(PATH_MAX)

    /// Every input: the arguments, then the listed paths; folders expanded (leaving out `excluding`). Folders
    /// that cannot be listed come back as problems: each fails the run.
    func collect(excluding: BatchInputs.Exclusions = BatchInputs.Exclusions()) throws -> BatchInputs.Collected {
        var paths = input
        if let list = inputList {
            paths += try Self.readList(list)
        }
        return BatchInputs.collect(paths, recursive: recursive, excluding: excluding)
    }

    /// The paths of an --inputs list, one per line; blank lines skipped.
    static func readList(_ list: String) throws -> [String] {
        let fd = list == "-" ? STDIN_FILENO : open(list, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            printError("Error: Cannot read the input list '\(list)': \(String(cString: strerror(errno))).")
            throw ExitCode(66)
        }
        defer { if list != "-" { close(fd) } }
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                printError("Error: Cannot read the input list '\(list)': \(String(cString: strerror(errno))).")
                throw ExitCode(66)
            }
            if n == 0 { break }
            bytes += buffer.prefix(n)
            // An endless line (/dev/zero) is refused as soon as it is too long, not after the whole list.
            let lineStart = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            if bytes.count - lineStart > maxLineBytes {
                let number = bytes[..<lineStart].count { $0 == UInt8(ascii: "\n") } + 1
                printError("Error: Line \(number) of the input list '\(list)' is longer than \(maxLineBytes) bytes: not a path.")
                throw ExitCode(65)
            }
            if bytes.count > maxListBytes {
                printError("Error: The input list '\(list)' is larger than \(maxListBytes) bytes; split it.")
                throw ExitCode(65)
            }
        }
        var paths = [String]()
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.count > maxLineBytes || line.contains(0) {
                let what = line.contains(0) ? "holds a NUL byte" : "is longer than \(maxLineBytes) bytes"
                printError("Error: Line \(number + 1) of the input list '\(list)' \(what): not a path.")
                throw ExitCode(65)
            }
            let raw = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            guard let path = FileName.text(raw) else {
                printError("Error: Line \(number + 1) of the input list '\(list)' is not valid UTF-8 ('\(FileName.shown(raw))'): \(FileName.advice).")
                throw ExitCode(65)
            }
            if !path.allSatisfy(\.isWhitespace) { paths.append(path) }
        }
        return paths
    }
}
