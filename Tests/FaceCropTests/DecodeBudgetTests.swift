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
