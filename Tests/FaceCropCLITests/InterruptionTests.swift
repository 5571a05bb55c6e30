import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A batch run stopped part-way: by SIGINT or SIGTERM it removes its temporary files and exits 128 + signal;
/// after SIGKILL (which cannot be caught) the next run removes what the killed run left. Either way no
/// partial output exists, and the next run completes the rest.
struct InterruptionTests {
    static let arguments = ["batch", "in", "--output-dir", "out", "--size", "640x360", "--size", "320x180", "--jobs", "2", "-q"]
    static let inputs = 30

    /// Every file below `dir`, as paths relative to it.
    func files(_ dir: URL) -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).filter {
            !BatchInterruptionSupport.isDirectory(dir.appendingPathComponent($0))
        }
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGKILL])
    func interruptedBatchLeavesNothingPartial(_ signal: Int32) throws {
        try withScratch { dir in
            let input = dir.appendingPathComponent("in")
            try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
            for i in 0..<Self.inputs { try copySample("Samples/group.jpg", to: input, as: "g\(i).jpg") }
            let out = dir.appendingPathComponent("out")

            let process = Process()
            process.executableURL = try CLI.binary()
            process.arguments = Self.arguments
            process.currentDirectoryURL = dir
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Stop it once some work is done, while more is under way.
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline, files(out).filter({ $0.hasSuffix(".jpg") }).count < 4 { usleep(10_000) }
            kill(process.processIdentifier, signal)
            process.waitUntilExit()

            let afterStop = files(out)
            if signal != SIGKILL {
                #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal)
                #expect(afterStop.filter { $0.contains(".facecrop-") }.isEmpty, "temporary files left: \(afterStop)")
            }
            #expect(afterStop.filter { $0.hasSuffix(".jpg") }.count < 2 * Self.inputs, "the run was not interrupted")
            // Every output present is complete: it decodes.
            for name in afterStop where name.hasSuffix(".jpg") && !name.contains(".facecrop-") {
                #expect(imageKind(of: out.appendingPathComponent(name)) == .jpeg, "\(name)")
            }

            let rerun = try runFaceCrop(Self.arguments, in: dir)
            #expect(rerun.status == 0, "\(rerun)")
            let final = files(out)
            #expect(final.filter { $0.contains(".facecrop-") }.isEmpty, "temporary files left after the rerun: \(final)")
            #expect(final.filter { $0.hasSuffix(".jpg") }.count == 2 * Self.inputs)
        }
    }
}

/// A batch run removes temporary files of facecrop processes that no longer exist, and only those.
@Test func staleTemporaryFilesOfDeadProcessesAreRemoved() throws {
    try withScratch { dir in
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in"), withIntermediateDirectories: true)
        try copySample("Samples/portrait.png", to: dir.appendingPathComponent("in"), as: "p.png")
        let out = dir.appendingPathComponent("out/sub")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let dead = ".old.jpg.facecrop-\(finished.processIdentifier)-42.jpg"
        let alive = ".busy.jpg.facecrop-\(getpid())-43.jpg"
        for name in [dead, alive] { #expect(FileManager.default.createFile(atPath: out.appendingPathComponent(name).path, contents: Data("partial".utf8))) }
        let run = try runFaceCrop(["batch", "in", "--output-dir", "out", "-q"], in: dir)
        #expect(run.status == 0, "\(run)")
        #expect(listing(out) == [alive], "\(listing(out))")
    }
}

enum BatchInterruptionSupport {
    static func isDirectory(_ url: URL) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && isDir.boolValue
    }
}
