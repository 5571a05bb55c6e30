import Glibc

/// A bounded queue from one producer thread to one consumer: lets the video decoder run ahead of the analysis
/// (up to `capacity` frames) instead of waiting for each frame to be analysed. POSIX mutex and conditions
/// (allocated, so their addresses never move); all state is read and written under the mutex, hence
/// @unchecked Sendable.
final class FrameQueue<Element>: @unchecked Sendable {
    private let capacity: Int
    /// Taken elements are set to nil at once (they may hold decoded pictures), the array compacted now and then.
    private var items: [Element?] = []
    private var head = 0
    private var finished = false
    private var cancelled = false
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Producer: adds an element, waiting while the queue is full. False when the consumer has cancelled.
    func push(_ element: Element) -> Bool {
        locked {
            while items.count - head >= capacity && !cancelled { pthread_cond_wait(changed, mutex) }
            guard !cancelled else { return false }
            items.append(element)
            pthread_cond_broadcast(changed)
            return true
        }
    }

    /// Producer: no more elements.
    func finish() {
        locked {
            finished = true
            pthread_cond_broadcast(changed)
        }
    }

    /// Consumer: the next element, waiting for one; nil once the producer has finished and all were taken, or
    /// once the queue is cancelled.
    func pop() -> Element? {
        locked {
            while head == items.count && !finished && !cancelled { pthread_cond_wait(changed, mutex) }
            guard !cancelled, head < items.count else { return nil }
            let element = items[head]
            items[head] = nil
            head += 1
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            pthread_cond_broadcast(changed)
            return element
        }
    }

    /// Either side: stop the other. The producer's next push returns false; the consumers' pops return nil, so
    /// a producer that fails can join them.
    func cancel() {
        locked {
            cancelled = true
            pthread_cond_broadcast(changed)
        }
    }
}
