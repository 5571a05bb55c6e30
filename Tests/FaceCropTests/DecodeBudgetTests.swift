import Dispatch
import Glibc
import Synchronization
import Testing

@testable import FaceCrop

/// Whole-frame decodes of parallel jobs share one budget: never more held at once, and a decode larger than
/// what is left waits rather than being refused or let through.
struct DecodeBudgetTests {
    @Test func parallelHoldersStayWithinTheBudget() {
        let budget = DecodeBudget(limit: 250)
        let inside = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let bytes = [100, 120, 60][i % 3]
            let permit = budget.enter(bytes)
            let now = inside.add(bytes, ordering: .sequentiallyConsistent).newValue
            _ = most.max(now, ordering: .sequentiallyConsistent)
            usleep(2000)
            inside.subtract(bytes, ordering: .sequentiallyConsistent)
            withExtendedLifetime(permit) {}
        }
        #expect(budget.peak <= 250, "\(budget.peak)")
        #expect(most.load(ordering: .sequentiallyConsistent) <= 250)
    }

    /// Holders that fit are let in together; one that does not fit waits until enough is given back.
    @Test func whatFitsIsLetInAndTheRestWaits() {
        let budget = DecodeBudget(limit: 250)
        var first: DecodeBudget.Permit? = budget.enter(100)
        let second = budget.enter(120)
        #expect(budget.peak == 220)  // both at once: the budget does not serialise what fits
        let entered = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let third = budget.enter(60)  // 280 would be over the limit: waits for the first to go
            entered.store(true, ordering: .sequentiallyConsistent)
            withExtendedLifetime(third) {}
            done.signal()
        }
        usleep(50_000)
        let early = entered.load(ordering: .sequentiallyConsistent)
        #expect(!early)
        first = nil
        done.wait()
        let late = entered.load(ordering: .sequentiallyConsistent)
        #expect(late && budget.peak == 220)
        withExtendedLifetime((first, second)) {}
    }

    @Test func oneDecodeAloneIsAlwaysLetIn() {
        let budget = DecodeBudget(limit: 100)
        let permit = budget.enter(300)
        #expect(budget.peak == 300)
        withExtendedLifetime(permit) {}
    }

    @Test func aPermitGivesItsBytesBackWhenReleased() {
        let budget = DecodeBudget(limit: 100)
        do { _ = budget.enter(80) }
        // Would wait forever if the first 80 bytes were still held.
        let second = budget.enter(80)
        #expect(budget.peak == 80)
        withExtendedLifetime(second) {}
    }
}

/// The queue between best-frame's registration and its analysis workers: a producer that fails cancels it, and
/// the workers waiting for frames stop, so that it can join them (they waited forever: a video whose decoding
/// failed partway hung best-frame).
@Suite(.timeLimit(.minutes(1)))
struct FrameQueueTests {
    @Test func cancelStopsWaitingConsumersAndTheProducer() throws {
        let queue = FrameQueue<Int>(capacity: 2)
        #expect(queue.push(1))
        let consumers = (0..<2).map { _ in
            BackgroundTask<[Int]> {
                var taken: [Int] = []
                while let element = queue.pop() { taken.append(element) }
                return taken
            }
        }
        usleep(50_000)  // both consumers wait on the empty queue (the test's outcome does not depend on it)
        queue.cancel()
        let taken = try consumers.flatMap { try $0.value() }
        #expect(taken.count <= 1 && taken.allSatisfy { $0 == 1 })
        #expect(!queue.push(2), "a cancelled queue takes no more")
        #expect(queue.pop() == nil)
    }

    @Test func finishDrainsTheQueue() throws {
        let queue = FrameQueue<Int>(capacity: 4)
        let consumer = BackgroundTask<[Int]> {
            var taken: [Int] = []
            while let element = queue.pop() { taken.append(element) }
            return taken
        }
        for i in 0..<10 { #expect(queue.push(i)) }
        queue.finish()
        #expect(try consumer.value() == Array(0..<10))
    }
}
