import Dispatch
import Foundation
import Synchronization
import Testing

// Crops from and to memory: byte for byte what the file path writes, through both decode paths (pixels kept, or
// read twice) and several formats; clear errors for bytes that are not an image; async entry points that leave
// the awaiting task's executor free meanwhile.
@testable import FaceCrop

struct MemoryTests {
    final class Counter: Sendable { let count = Mutex(0) }

    /// Runs one job at a time, in order, on a thread of its own: not on a dispatch queue, whose turn on the
    /// shared pool can wait for seconds while other tests keep its threads busy. The thread lives as long as
    /// the test process.
    final class SerialExecutor: TaskExecutor, @unchecked Sendable {  // `jobs` under `condition`
        private let condition = NSCondition()
        private var jobs = [UnownedJob]()

        init() {
            Thread { [self] in
                while true {
                    condition.lock()
                    while jobs.isEmpty { condition.wait() }
                    let job = jobs.removeFirst()
                    condition.unlock()
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }.start()
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            condition.lock()
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let input: String, format: ImageFormat, singlePass: Bool
        var testDescription: String { "\(input) -> \(format.rawValue)\(singlePass ? "" : ", read twice")" }
    }

    static let cases: [Case] = [
        Case(input: "Samples/group.jpg", format: .jpeg, singlePass: true),
        // Read twice from the bytes, the second time with JPEG shrink-on-load (the output is a quarter of the crop).
        Case(input: "Samples/group.jpg", format: .jpeg, singlePass: false),
        Case(input: "Samples/portrait.png", format: .png, singlePass: true),
        Case(input: "Samples/portrait.png", format: .webp, singlePass: false),
        Case(input: "Golden/exif-6/input.jpg", format: .tiff, singlePass: true),
        Case(input: "Golden/cmyk/input.jpg", format: .jpeg, singlePass: false),
        Case(input: "Golden/png-alpha/input.png", format: .png, singlePass: true),
    ]

    static func bytes(_ relative: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(relative)))) }

    @Test(arguments: cases) func sameBytesAsThroughFiles(_ c: Case) throws {
        var cropper = FaceCropper(detector: Fixtures.detector)
        if !c.singlePass { cropper.singlePassBytes = 0 }
        var options = CropOptions()
        options.aspect = .ratio(width: 16, height: 9)
        options.margin = .percentOfFaceHeight(40)
        if !c.singlePass { options.size = .width(300) }
        let dir = try Fixtures.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(c.format.rawValue)").path
        let viaFiles = try cropper.run(Fixtures.path(c.input), output: out, options: options)
        let inMemory = try cropper.run(bytes: Self.bytes(c.input), format: c.format, options: options)

        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(inMemory.bytes.count > 100 && inMemory.bytes == written, "\(inMemory.bytes.count) bytes in memory, \(written.count) in the file")
        #expect(inMemory.report.crop?.rect == viaFiles.crop?.rect)
        #expect(inMemory.report.faces.map(\.rect) == viaFiles.faces.map(\.rect))
        #expect(inMemory.report.input.path == FaceCropper.memoryName && inMemory.report.input.loader == viaFiles.input.loader)
        #expect(inMemory.report.output?.path == FaceCropper.memoryName)
        #expect(inMemory.report.output?.width == viaFiles.output?.width && inMemory.report.output?.height == viaFiles.output?.height)
        #expect(inMemory.report.output?.format == c.format)
    }

    @Test func bytesThatAreNotAnImage() throws {
        var cropper = FaceCropper(detector: Fixtures.detector)
        let options = CropOptions()
        #expect(throws: FaceCropError.inputEmpty(FaceCropper.memoryName)) { try cropper.run(bytes: [], format: .jpeg, options: options) }
        #expect(throws: FaceCropError.notAnImage("upload")) {
            try cropper.run(bytes: Array("just some text".utf8), name: "upload", format: .jpeg, options: options)
        }
        let jpeg = try Self.bytes("Samples/group.jpg")
        do {
            _ = try cropper.run(bytes: Array(jpeg.prefix(jpeg.count / 2)), name: "half.jpg", format: .jpeg, options: options)
            Issue.record("half a JPEG was cropped")
        } catch {
            guard case .corruptImage(let name, _) = error else {
                Issue.record("half a JPEG: \(error)")
                return
            }
            #expect(name == "half.jpg" && error.exitCode == 65)
        }
        cropper.maxFileSize = 1000
        #expect(throws: FaceCropError.fileTooLarge(FaceCropper.memoryName, bytes: jpeg.count, limit: 1000)) {
            try cropper.run(bytes: jpeg, format: .jpeg, options: options)
        }
    }

    /// The crops run on threads of their own, not on the executor of the task that awaits them. Everything here
    /// runs on one serial executor of its own (so other tests' use of Swift's pool does not matter): with
    /// crops under way, a task started meanwhile still runs at once. A crop run on the awaiting task's executor
    /// would hold that executor until it ended.
    @Test func asyncLeavesTheCallersExecutorFree() async throws {
        let cropper = FaceCropper(detector: Fixtures.detector)
        let bytes = try Self.bytes("Samples/group.jpg")
        let executor = SerialExecutor()
        let width = 3
        let started = Counter()
        let finished = Counter()
        let seen = try await withTaskExecutorPreference(executor) {
            let crops = Task(executorPreference: executor) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<width {
                        group.addTask(executorPreference: executor) {
                            started.count.withLock { $0 += 1 }
                            _ = try await cropper.runInBackground(bytes: bytes, format: .jpeg, options: CropOptions())
                            finished.count.withLock { $0 += 1 }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Until every crop is under way. Task.yield goes back to this executor; a timer (Task.sleep) would
            // wake through Swift's shared pool, which other tests' blocking work can hold past the crops' end.
            while started.count.withLock({ $0 }) < width { await Task.yield() }
            let seen = await Task(executorPreference: executor) { finished.count.withLock { $0 } }.value
            try await crops.value
            return seen
        }
        #expect(finished.count.withLock { $0 } == width)
        // Crops run on the executor would each hold it to their end: the probe would come after all of them.
        #expect(seen < width, "a task started while \(width) crops were under way ran only after \(seen) of them had ended")
    }

    /// Several at once, from files and from bytes, give what one at a time gives.
    @Test func asyncCropsAtOnceMatchOneAtATime() async throws {
        let cropper = FaceCropper(detector: Fixtures.detector)
        let inputs = ["Samples/group.jpg", "Samples/portrait.png", "Golden/exif-6/input.jpg"]
        let expected = try inputs.map { try cropper.run(bytes: Self.bytes($0), format: .png, options: CropOptions()).bytes }
        let results = try await withThrowingTaskGroup(of: (Int, [UInt8], Int).self) { group in
            for (i, input) in inputs.enumerated() {
                let bytes = try Self.bytes(input)
                group.addTask { (i, try await cropper.runInBackground(bytes: bytes, format: .png, options: CropOptions()).bytes, 0) }
                group.addTask {
                    let report = try await cropper.analyzeInBackground(Fixtures.path(input))
                    return (i, [], report.faces.count)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (i, bytes, _) in results where !bytes.isEmpty { #expect(bytes == expected[i], "\(inputs[i])") }
        #expect(results.filter { $0.1.isEmpty }.allSatisfy { $0.2 > 0 }, "every input has a face")
    }
}
