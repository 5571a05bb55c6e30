import ArgumentParser
import Foundation
import Synchronization
import Testing

@testable import facecrop

#if canImport(Glibc)
import Glibc
#endif

/// Every option that takes a value, of every command, found in the commands' own help (so an option added
/// later is covered without touching this file), fed hostile values: huge, tiny, negative, zero, NaN,
/// infinite, 2^31, 2^63, hundreds of digits, words. Parsing and validation run in-process for all of them
/// (a trap would take the test process down); every value accepted there then runs through the built binary,
/// `crop` on a real image so it reaches the planner and the resize. Each run must end with a documented
/// status, never a signal; a refused value is one line on standard error (64).
struct HostileValueTests {
    static let commands: [(name: String, type: ParsableCommand.Type)] = [
        ("crop", Crop.self), ("detect", Detect.self), ("batch", Batch.self), ("rank", Rank.self), ("annotate", Annotate.self),
        ("best-frame", BestFrame.self), ("stability", Stability.self),
    ]

    /// Options whose values are names, paths or words, not numbers: given hostile numbers too, but only two.
    static let textOptions: Set<String> = [
        "--output", "--output-dir", "--name", "--format", "--report", "--inputs", "--copy-to", "--sheet",
        "--contact-sheet", "--site-manifest", "--model", "--detector", "--strategy", "--no-face",
    ]

    static let values = [
        "-5", "0", "-0", "nan", "inf", "-inf", "1e308", "-1e308", "1e-300", "5e-324", "2147483648", "4294967297",
        "9223372036854775808", "18446744073709551617", "1" + String(repeating: "0", count: 400), "0x7fffffff", "abc", "",
    ]
    /// Shaped like the values of --aspect, --size, --shard and --margin, and given to those (to the others they
    /// are words like "abc").
    static let shaped = ["1e308:1", "1:3e-320", "999999999999999999999:1", "-1:1", "4294967297x1", "2147483648x2", "65501x1", "-5%", "1e308%"]
    static let shapedOptions: Set<String> = ["--aspect", "--size", "--shard", "--margin", "--quality"]

    /// Only `crop` reads a real image (so values that pass reach the planner and the resize); the others stop
    /// at their missing input once the values are accepted.
    static func base(_ command: String) -> [String] {
        switch command {
        case "crop": ["in.jpg", "-o", "out.jpg"]
        case "detect": ["missing.jpg"]
        case "batch": ["missing.jpg", "--output-dir", "out", "-q"]
        case "rank": ["missing.jpg", "--copy-to", "best"]
        case "annotate": ["missing.jpg", "-o", "annotated.png"]
        case "best-frame": ["missing.mp4", "-o", "frame.jpg"]
        default: ["missing.mp4"]
        }
    }

    /// (command, option) for every option with a value in the command's help.
    static func options() throws -> [(command: String, option: String)] {
        let pattern = try NSRegularExpression(pattern: #"^\s+(?:-\w, )?(--[a-z0-9-]+) <"#, options: .anchorsMatchLines)
        return commands.flatMap { command in
            let help = FaceCropCommand.helpMessage(for: command.type, columns: 200)
            return pattern.matches(in: help, range: NSRange(help.startIndex..., in: help)).compactMap { m in
                Range(m.range(at: 1), in: help).map { (command.name, String(help[$0])) }
            }
        }
    }

    /// Every (command, arguments) to try.
    static func cases() throws -> [(command: String, option: String, args: [String])] {
        try options().flatMap { command, option in
            let values = textOptions.contains(option) ? ["-5", "1e308:1"] : shapedOptions.contains(option) ? values + shaped : values
            return values.map { value in
                var args = base(command)
                if let i = args.firstIndex(of: option) ?? (option == "--output" ? args.firstIndex(of: "-o") : nil) {
                    args[i + 1] = value
                } else {
                    args += [option, value]
                }
                return (command, option, args)
            }
        }
    }

    static let documented: Set<Int32> = [0, 2, 3, 64, 65, 66, 73]

    @Test func everyOptionGetsAcleanStatusForEveryHostileValue() throws {
        let options = try Self.options()
        // The list comes from the help: a broken help would make this test pass vacuously.
        #expect(options.count >= 40, "\(options)")
        #expect(options.contains { $0 == ("crop", "--width") } && options.contains { $0 == ("stability", "--max-frames") })
        // Parsing and validation in-process, on both cores (the argument parser is slow in debug builds).
        let cases = try Self.cases()
        let outcomes = Mutex<(accepted: [[String]], refused: Int, problems: [String])>(([], 0, []))
        DispatchQueue.concurrentPerform(iterations: cases.count) { i in
            let (command, option, args) = cases[i]
            let full = [command] + args
            do {
                _ = try FaceCropCommand.parseAsRoot(full)
                // Accepted values of the other commands only meet their missing input: validation is their test.
                if command == "crop" { outcomes.withLock { $0.accepted.append(full) } }
            } catch {
                let message = FaceCropCommand.message(for: error)
                var problems = [String]()
                if FaceCropCommand.exitCode(for: error) != .validationFailure { problems.append("\(full): not 64: \(error)") }
                if message.contains("\n") || message.isEmpty { problems.append("\(full): not one line: \(message)") }
                // A negative number is a value to judge ("-5" for a file name is written "./-5").
                if !Self.textOptions.contains(option) && message.contains("Missing value") { problems.append("\(full): \(message)") }
                outcomes.withLock {
                    $0.refused += 1
                    $0.problems += problems
                }
            }
        }
        let (accepted, refused, problems) = outcomes.withLock { $0 }
        #expect(problems.isEmpty, "\(problems.count) refusals:\n\(problems.prefix(20).joined(separator: "\n"))")
        #expect(refused > 500 && accepted.count > 10, "refused \(refused), accepted \(accepted.count)")
        try withScratch { dir in
            try vips(["gaussnoise", dir.appendingPathComponent("in.jpg").path, "48", "40"])
            // Every accepted value through the binary, and one refused value per command through its main().
            let runs = accepted + Self.commands.map { [$0.name] + Self.base($0.name) + ["--max-pixels", "-5"] }
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: runs.count) { i in
                let args = runs[i]
                let problem: String?
                do {
                    let r = try runFaceCrop(args, in: dir, timeout: 120)
                    if r.signalled || r.timedOut {
                        problem = "signal or timeout: \(r)"
                    } else if !Self.documented.contains(r.status) {
                        problem = "undocumented status: \(r)"
                    } else if r.status == 64 && (r.stderrLines.count != 1 || !r.stderr.hasPrefix("Error: ")) {
                        problem = "64 without exactly one error line: \(r)"
                    } else {
                        problem = nil
                    }
                } catch {
                    problem = "\(error)"
                }
                if let problem { failures.withLock { $0.append("\(args.joined(separator: " ")): \(problem)") } }
            }
            let all = failures.withLock { $0 }
            #expect(all.isEmpty, "\(all.count) of \(runs.count) runs:\n\(all.prefix(20).joined(separator: "\n"))")
        }
    }

    /// Values that once crashed facecrop, each refused with its own sharp-like message.
    @Test(arguments: [
        (["in.jpg", "-o", "out.jpg", "--aspect", "1e308:1"], "Expected a ratio from 1:10000 to 10000:1 for --aspect but received '1e308:1'."),
        (["in.jpg", "-o", "out.jpg", "--width", "2147483648"], "Expected an integer from 1 to 10000000 for --width but received '2147483648'."),
        (["in.jpg", "-o", "out.jpg", "--width", "0"], "Expected an integer from 1 to 10000000 for --width but received '0'."),
        (["in.jpg", "-o", "out.jpg", "--margin", "-5"], "Expected a number of pixels (200) or a percentage (40%) for --margin but received '-5'."),
        (["in.jpg", "-o", "out.jpg", "--width", "65501"], "Expected at most 65500 for --width (the largest JPEG side) but received '65501'."),
        (["in.jpg", "-o", "out.webp", "--size", "16384x100"], "Output 'out.webp' would be 16384x100 pixels, over the 16383 pixels a WebP side can have."),
        (["in.jpg", "-o", "out.avif", "--size", "16385x100"], "Output 'out.avif' would be 16385x100 pixels, over the 16384 pixels an AVIF side can have."),
        (["in.jpg", "-o", "."], "Expected a file name for -o but received '.', which names a folder."),
        (["in.jpg", "-o", "dir/.."], "Expected a file name for -o but received 'dir/..', which names a folder."),
        (["in.jpg", "-o", "out.png/"], "Expected a file name for -o but received 'out.png/', which names a folder."),
        (["annotate", "in.jpg", "-o", "."], "Expected a file name for -o but received '.', which names a folder."),
        (["batch", "in.jpg", "--output-dir", ""], "Expected a folder for --output-dir but received ''."),
        (["batch", "in.jpg", "--output-dir", "o", "--jobs", "-1"], "Expected an integer from 1 to 256 for --jobs but received '-1'."),
        (
            ["in.jpg", "-o", "out.jpg", "--width", "65500", "--aspect", "1:1"],
            "Output 'out.jpg' would be 65500x65500 pixels, over the limit of 268402689 output pixels; raise it with --max-output-pixels."
        ),
        (
            ["in.jpg", "-o", "out.avif", "--width", "16383", "--aspect", "1:1"],
            "Output 'out.avif' would be 16383x16383 pixels, which the AVIF encoder holds whole in memory: about 30765 MiB, over the limit of 2048 MiB; raise it with --max-encode-memory."
        ),
        (
            ["in.jpg", "-o", "out.heic", "--size", "4000x3000", "--max-encode-memory", "100000"],
            "Output 'out.heic' would be 4000x3000 pixels, which the HEIC encoder holds whole in memory: about 261 MiB, over the limit of 100000 bytes; raise it with --max-encode-memory."
        ),
        (["in.jpg", "-o", "out.jpg", "--max-encode-memory", "0"], "Expected an integer from 1 to 1099511627776 for --max-encode-memory but received '0'."),
        // A dry run checks the output's own format too, and without -o only the pixel limit.
        (["in.jpg", "-o", "out.webp", "--width", "60000", "--dry-run"], "Expected at most 16383 for --width (the largest WebP side) but received '60000'."),
        (
            ["in.jpg", "--width", "65500", "--aspect", "1:10000", "--dry-run"],
            "The output would be 65500x655000000 pixels, over the limit of 268402689 output pixels; raise it with --max-output-pixels."
        ),
        // Decimal numbers only: Swift's Double would read hexadecimal too.
        (["in.jpg", "-o", "out.jpg", "--margin", "0x10"], "Expected a number of pixels (200) or a percentage (40%) for --margin but received '0x10'."),
        (["in.jpg", "-o", "out.jpg", "--threshold", "0x1p-1"], "Expected a number from 0 to 1 for --threshold but received '0x1p-1'."),
        (["in.jpg", "-o", "out.jpg", "--size", "65500x1"], "Expected WIDTHxHEIGHT from 1:10000 to 10000:1 in shape for --size but received '65500x1'."),
        (["best-frame", "in.mp4", "--frames", "100", "--max-frames", "50"], "Expected at most --max-frames (50) for --frames but received '100'."),
    ])
    func refusedWithASharpMessage(_ args: [String], _ message: String) throws {
        try withScratch { dir in
            let r = try runFaceCrop(args, in: dir)
            #expect(r.status == 64, "\(r)")
            #expect(r.stderrLines == ["Error: \(message)"], "\(r)")
        }
    }

    /// Standard output is named '-' in the refusal, as with a fixed --size, found once the crop is planned.
    @Test func standardOutputOverTheEncoderLimitIsNamedDash() throws {
        try withScratch { dir in
            let tiny = dir.appendingPathComponent("tiny.png")
            try vips(["black", tiny.path, "8", "8"])
            let r = try runFaceCrop(["-", "-o", "-", "--format", "avif", "--max-encode-memory", "1000"], in: dir, stdin: try Data(contentsOf: tiny))
            #expect(r.status == 64 && r.stdout.isEmpty, "\(r)")
            #expect(
                r.stderrLines == [
                    "Error: Output '-' would be 8x8 pixels, which the AVIF encoder holds whole in memory: about 49 MiB, over the limit of 1000 bytes; raise it with --max-encode-memory."
                ], "\(r)")
        }
    }
}
