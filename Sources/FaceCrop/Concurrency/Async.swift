// async entry points. The work is blocking C (libvips, OpenCV, dlib), so it runs on a thread of its own: the
// caller's executor (an actor, the main actor, or Swift's cooperative pool, which has one thread per core) stays
// free while it runs, and other tasks go on. Not cancellable once started: a crop is short and never leaves a
// partial file.
import Glibc

extension FaceCropper {
    /// `run(_:output:options:)` on a thread of its own, suspending the caller until it is done.
    public func runInBackground(_ input: String, output: String?, options: CropOptions) async throws(FaceCropError) -> CropReport {
        try await offload { () throws(FaceCropError) in try self.run(input, output: output, options: options) }
    }

    /// `run(bytes:name:format:options:)` (in memory) on a thread of its own, suspending the caller until it is done.
    public func runInBackground(
        bytes: [UInt8], name: String = FaceCropper.memoryName, format: ImageFormat, options: CropOptions
    ) async throws(FaceCropError) -> CroppedImage {
        try await offload { () throws(FaceCropError) in try self.run(bytes: bytes, name: name, format: format, options: options) }
    }

    /// `analyze(_:)` on a thread of its own.
    public func analyzeInBackground(_ path: String) async throws(FaceCropError) -> Analysis {
        try await offload { () throws(FaceCropError) in try self.analyze(path) }
    }

    /// `analyze(bytes:name:)` on a thread of its own.
    public func analyzeInBackground(bytes: [UInt8], name: String = FaceCropper.memoryName) async throws(FaceCropError) -> Analysis {
        try await offload { () throws(FaceCropError) in try self.analyze(bytes: bytes, name: name) }
    }
}

/// Runs `body` on a new detached thread and resumes the caller with its result.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws(FaceCropError) -> T) async throws(FaceCropError) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, FaceCropError>, Never>) in
        runDetached { continuation.resume(returning: Result { () throws(FaceCropError) in try body() }) }
    }
    return try result.get()
}
