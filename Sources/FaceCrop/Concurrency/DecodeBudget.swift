// Whole-frame decodes of parallel jobs held to one memory budget.
import Glibc

/// Bytes of whole-frame decodes (progressive JPEG, interlaced PNG, GIF, WebP, HEIF: decoders that hold the
/// whole picture in memory) shared by the threads of one run, so that `batch --jobs N` holds at most the budget,
/// not N times it. `enter` waits until the bytes fit beside the decodes under way; a decode alone is always let
/// in (each is already within `FaceCropper.maxDecodeMemory`), so the run always moves on. A thread must hold
/// one permit at a time: a second `enter` while holding one could wait for itself.
package final class DecodeBudget: @unchecked Sendable {
    // pthread objects at fixed addresses (never moved), guarding `inUse` and `peak`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var inUse = 0
    private var highest = 0
    package let limit: Int

    package init(limit: Int) {
        self.limit = limit
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Waits until `bytes` fit, then holds them until the permit is released (when the last reference to it goes).
    package func enter(_ bytes: Int) -> Permit {
        pthread_mutex_lock(mutex)
        while inUse > 0 && (inUse > limit - bytes) { pthread_cond_wait(changed, mutex) }
        inUse += bytes
        highest = max(highest, inUse)
        pthread_mutex_unlock(mutex)
        return Permit(budget: self, bytes: bytes)
    }

    /// The most bytes held at once so far.
    package var peak: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return highest
    }

    fileprivate func leave(_ bytes: Int) {
        pthread_mutex_lock(mutex)
        inUse -= bytes
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }

    /// Bytes held in the budget; given back when the permit is freed.
    package final class Permit: @unchecked Sendable {
        private let budget: DecodeBudget
        private let bytes: Int

        fileprivate init(budget: DecodeBudget, bytes: Int) {
            (self.budget, self.bytes) = (budget, bytes)
        }

        deinit { budget.leave(bytes) }
    }
}
