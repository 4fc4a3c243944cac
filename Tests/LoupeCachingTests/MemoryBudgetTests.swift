import LoupeTestSupport
import Testing
@testable import LoupeCaching

@Suite struct MemoryBudgetTests {
    /// Past the limit a reservation waits; released memory lets waiters in first come, first
    /// served (by arrival, not by call order), and one that does not fit holds back those behind.
    @Test func waitsPastTheLimitAndLetsWaitersInByArrival() async throws {
        let budget = MemoryBudget(limit: 100)
        let first = try await budget.reserve(80, arrival: 0)
        #expect(budget.inUse == 80)
        let order = Recorder<UInt64>()
        let held = Locked<[UInt64: MemoryReservation]>([:])
        var tasks: [Task<Void, any Error>] = []
        for (index, (arrival, bytes)) in [(UInt64(3), 40), (1, 60), (2, 10)].enumerated() {
            tasks.append(Task {
                let reservation = try await budget.reserve(bytes, arrival: arrival)
                order.record(arrival)
                held.withLock { $0[arrival] = reservation }
            })
            #expect(await eventually { budget.waitingCount == index + 1 })
        }
        #expect(budget.inUse == 80, "only 10 fits beside 80 of 100, and it arrived after 60")
        first.release()
        // 60 (arrival 1) and 10 (arrival 2) fit together; 40 (arrival 3) waits for more.
        #expect(await eventually { order.all == [1, 2] })
        #expect(budget.inUse == 70)
        #expect(budget.waitingCount == 1)
        held.withLock { $0[1] = nil }
        for task in tasks { try await task.value }
        #expect(order.all == [1, 2, 3])
        #expect(budget.inUse == 50)
        held.withLock { $0.removeAll() }
        #expect(budget.inUse == 0, "a reservation dropped gives its bytes back")
    }

    /// Work already committed takes its memory at once, past the limit; a reservation settles
    /// to what its work turned out to need, which becomes the typical size.
    @Test func reserveNowPassesTheLimitAndSettleAdjusts() async throws {
        let budget = MemoryBudget(limit: 100)
        #expect(budget.typicalSize(fallback: 7) == 7)
        let estimate = try await budget.reserve(50, arrival: nil)
        let decode = budget.reserveNow(120)
        #expect(budget.inUse == 170)
        estimate.settle(to: 20)
        #expect(budget.inUse == 140)
        #expect(budget.typicalSize(fallback: 7) == 20)
        decode.release()
        decode.release()
        #expect(budget.inUse == 20)
        estimate.release()
        #expect(budget.inUse == 0)
    }

    /// A reservation larger than the whole budget gets in once nothing else is held, rather
    /// than never.
    @Test func anOversizedReservationRunsAlone() async throws {
        let budget = MemoryBudget(limit: 10)
        let small = try await budget.reserve(5, arrival: 1)
        let large = Task { try await budget.reserve(500, arrival: 2) }
        #expect(await eventually { budget.waitingCount == 1 })
        small.release()
        let reservation = try await large.value
        #expect(budget.inUse == 500)
        reservation.release()
        #expect(budget.inUse == 0)
    }

    /// A cancelled waiter leaves at once, holds nothing, and no longer holds back those behind.
    @Test func aCancelledWaiterLeavesAndUnblocksTheLine() async throws {
        let budget = MemoryBudget(limit: 100)
        let held = try await budget.reserve(90, arrival: 0)
        let big = Task { try await budget.reserve(50, arrival: 1) }
        #expect(await eventually { budget.waitingCount == 1 })
        let small = Task { try await budget.reserve(10, arrival: 2) }
        #expect(await eventually { budget.waitingCount == 2 })
        big.cancel()
        await #expect(throws: CancellationError.self) { try await big.value }
        let reservation = try await small.value
        #expect(budget.inUse == 100)
        #expect(budget.waitingCount == 0)
        reservation.release()
        held.release()
        #expect(budget.inUse == 0)
    }
}
