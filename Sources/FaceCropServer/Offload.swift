// Blocking work off the event loops and Swift's cooperative pool, and a time limit over async work.
import FaceCrop
import Glibc
import Synchronization

/// Runs `body` on a new detached thread (libvips and OpenCV block; Swift's cooperative pool has one thread per
/// core and NIO's event loops must never block) and resumes the caller with its result.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws(FaceCropError) -> T) async throws(FaceCropError) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, FaceCropError>, Never>) in
        runDetached { continuation.resume(returning: Result { () throws(FaceCropError) in try body() }) }
    }
    return try result.get()
}

/// Set once the time limit of `withTimeout` has passed: work that has not started yet should not.
final class Deadline: Sendable {
    private let flag = Atomic<Bool>(false)
    var passed: Bool { flag.load(ordering: .acquiring) }
    func expire() { flag.store(true, ordering: .releasing) }
}

private final class Once<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>
    init(_ c: CheckedContinuation<T, Never>) { continuation = Mutex(c) }
    func resume(_ value: T) {
        let c = continuation.withLock { c -> CheckedContinuation<T, Never>? in
            defer { c = nil }
            return c
        }
        c?.resume(returning: value)
    }
}

/// `body`'s result, or `timeoutError` once `limit` has passed. `body` runs in a task of its own and is left to
/// finish after a timeout (blocking work cannot be interrupted); it is told through its `Deadline`, so it can
/// skip work not yet started and give back what it holds.
func withTimeout<T: Sendable>(
    _ limit: Duration, timeoutError: ServerError, _ body: @escaping @Sendable (Deadline) async throws(ServerError) -> T
) async throws(ServerError) -> T {
    let deadline = Deadline()
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ServerError>, Never>) in
        let once = Once(continuation)
        let timer = Task {
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled else { return }
            deadline.expire()
            once.resume(.failure(timeoutError))
        }
        Task {
            let result: Result<T, ServerError>
            do throws(ServerError) { result = .success(try await body(deadline)) } catch { result = .failure(error) }
            timer.cancel()
            once.resume(result)
        }
    }
    return try result.get()
}
