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
        // Two holders at once did happen: the budget did not simply serialise everything.
        #expect(budget.peak > 120, "\(budget.peak)")
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
