import Foundation
import Testing

/// Inputs the fuzzer (scripts/fuzz.sh) found crashing facecrop, kept in Fuzz/regressions/ after the fix. Each
/// is replayed through the binary with the option sets the harness varies: it must give an output or one clean
/// error line, never a crash. Some findings (a read of freed memory) crash reliably only under
/// AddressSanitizer: scripts/sanitize.sh runs these tests that way.
struct FuzzRegressionTests {
    static let files: [String] = {
        let dir = CLI.repoFile("Fuzz/regressions")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    static let commands: [[String]] = [
        ["-o", "out.jpg"],
        ["--detector", "haar", "--aspect", "3:2", "--strategy", "largest", "--no-face", "center", "--size", "48x32", "--strip", "-o", "out.png"],
        ["--aspect", "original", "--margin", "40%", "--width", "40", "-o", "out.webp"],
        ["detect", "--quality", "--json"],
    ]

    @Test func regressionsAreKept() {
        #expect(!Self.files.isEmpty, "Fuzz/regressions/ holds the fuzzer's fixed crashers")
    }

    @Test(arguments: files)
    func replaysCleanly(_ name: String) throws {
        try withScratch { dir in
            let input = try copySample("Fuzz/regressions/" + name, to: dir, as: name)
            let before = try FileSnapshot(input)
            for command in Self.commands {
                let args = command.first == "detect" ? command + [name] : [name] + command
                let r = try runFaceCrop(args, in: dir)
                #expect(!r.timedOut && [0, 65].contains(r.status), "facecrop \(args.joined(separator: " ")): \(r)")
                if r.status == 65 {
                    #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("Error: ") && r.stderr.contains("'\(name)'"), "\(r)")
                } else if let output = command.last, output.hasPrefix("out.") {
                    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(output).path), "\(args): \(r)")
                }
                #expect(leftoverTempFiles(dir).isEmpty)
            }
            #expect(try FileSnapshot(input) == before, "the input was modified")
        }
    }
}
