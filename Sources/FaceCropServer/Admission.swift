// Back-pressure: at most `slots` crops run at once, at most `queue` more wait for a slot, and the rest are turned
// away at once (503 with Retry-After). Waiting requests hold no source bytes: a source is read only once its
// request has a slot, so memory is bounded by the slots, never by the number of requests.
import Synchronization

/// Back-pressure on crops: at most `slots` run at once, at most `queue` more requests wait for a slot, and the rest are
/// turned away.
public final class Admission: Sendable {
    /// Crops at once (at least 1; `--slots`).
    public let slots: Int
    /// Requests that may wait for a slot (at least 0; `--queue`).
    public let queue: Int

    private struct State: ~Copyable {
        var running = 0
        var waiting: [CheckedContinuation<Bool, Never>] = []
        var waitingStart = 0
    }
    private let state = Mutex(State())

    /// A `slots` under 1 counts as 1, a negative `queue` as 0.
    public init(slots: Int, queue: Int) {
        self.slots = max(1, slots)
        self.queue = max(0, queue)
    }

    /// Crops running and requests waiting, now.
    public var load: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiting.count - $0.waitingStart) }
    }

    /// Takes a slot, waiting in the queue for one if needed; false when the queue is full too (turn the request
    /// away). Every `true` must be matched by one `leave()`.
    public func enter() async -> Bool {
        enum Outcome { case admitted, rejected, queued }
        // Decided under the lock; when queued, the continuation is stored under the same lock, so a leave() in
        // between cannot be missed.
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let outcome = state.withLock { s -> Outcome in
                if s.running < slots {
                    s.running += 1
                    return .admitted
                }
                if s.waiting.count - s.waitingStart < queue {
                    s.waiting.append(continuation)
                    return .queued
                }
                return .rejected
            }
            switch outcome {
            case .admitted: continuation.resume(returning: true)
            case .rejected: continuation.resume(returning: false)
            case .queued: break
            }
        }
    }

    /// Gives the slot back: to the first waiting request, or free.
    public func leave() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            if s.waitingStart < s.waiting.count {
                let c = s.waiting[s.waitingStart]
                s.waitingStart += 1
                if s.waitingStart > 64, s.waitingStart * 2 > s.waiting.count {
                    s.waiting.removeFirst(s.waitingStart)
                    s.waitingStart = 0
                }
                return c  // the slot passes on: running stays the same
            }
            s.running -= 1
            return nil
        }
        next?.resume(returning: true)
    }
}
