import FaceCropCore
import Glibc
import Synchronization

/// Blocking work on a thread of its own, joined with `value()`. Used to put libvips' and OpenCV's blocking
/// C calls on both cores at once; Swift's cooperative pool is the wrong place for blocking calls.
package final class BackgroundTask<Value: Sendable>: @unchecked Sendable {
    private let box = ResultBox<Value>()
    private let thread: pthread_t?

    package init(_ body: @escaping @Sendable () throws -> Value) {
        let box = self.box
        thread = startThread { box.result = Result { try body() } }
    }

    /// Waits for the work and returns its result. Call exactly once.
    package func value() throws -> Value {
        if let thread { pthread_join(thread, nil) }
        return try box.result!.get()
    }
}

/// Written by the worker thread before it ends, read after pthread_join: no other synchronisation needed.
private final class ResultBox<Value>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}

private final class Job: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Runs `work` on a new thread, or right here if no thread can be made (then returns nil).
private func startThread(_ work: @escaping () -> Void) -> pthread_t? {
    var thread = pthread_t()
    let job = Unmanaged.passRetained(Job(work)).toOpaque()
    let started =
        pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, job) == 0
    if started { return thread }
    Unmanaged<Job>.fromOpaque(job).takeRetainedValue().run()
    return nil
}

/// Runs `work` on a new detached thread (nothing joins it), or right here if no thread can be made.
package func runDetached(_ work: @escaping @Sendable () -> Void) {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let job = Unmanaged.passRetained(Job(work)).toOpaque()
    let started =
        pthread_create(
            &thread, &attributes,
            { raw in
                Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, job) == 0
    if !started { Unmanaged<Job>.fromOpaque(job).takeRetainedValue().run() }
}

/// Calls `body` for every index in 0..<count on `jobs` threads (at most 256, `Limits.jobs`), each taking the
/// next index in turn. `body` returns false to start no further indices (those under way finish). Returns when
/// all have finished.
package func concurrentForEach(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Bool) {
    let next = Mutex((index: 0, stop: false))
    let workers = (0..<max(1, min(jobs, count, Limits.jobs.range.upperBound))).map { _ in
        BackgroundTask {
            while let index = next.withLock({ s -> Int? in
                guard !s.stop, s.index < count else { return nil }
                defer { s.index += 1 }
                return s.index
            }) {
                if !body(index) { next.withLock { $0.stop = true } }
            }
        }
    }
    for worker in workers { try? worker.value() }
}
