import LoupeTestSupport
import Testing
@testable import LoupeCaching

/// First come, first served: work whose priority carries an arrival (a service's requests)
/// starts in arrival order among equal priorities, and shared work keeps its earliest
/// requester's place.
@Suite struct WorkQueueArrivalOrderTests {
    /// Queued in an order unlike their arrivals, equal-priority work starts by arrival; a higher
    /// priority still starts first, and work without an arrival after every arrival.
    @Test func equalPrioritiesStartInArrivalOrder() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let gate = Gate()
        let order = Recorder<String>()
        let blocker = Task { try await queue.run(priority: LoadPriority(.high)) { try await gate.wait() } }
        #expect(await eventually { queue.runningCount == 1 })
        let plan: [(String, LoadPriority)] = [
            ("arrival-7", LoadPriority(.medium, arrival: 7)), ("no-arrival", LoadPriority(.medium)),
            ("arrival-2", LoadPriority(.medium, arrival: 2)), ("high-arrival-9", LoadPriority(.high, arrival: 9)),
            ("arrival-5", LoadPriority(.medium, arrival: 5)), ("arrival-1", LoadPriority(.medium, arrival: 1)),
        ]
        var tasks: [Task<Void, any Error>] = []
        for (index, (name, priority)) in plan.enumerated() {
            tasks.append(Task { try await queue.run(priority: priority) { order.record(name) } })
            #expect(await eventually { queue.waitingCount == index + 1 })
        }
        gate.open()
        try await blocker.value
        for task in tasks { try await task.value }
        #expect(order.all == ["high-arrival-9", "arrival-1", "arrival-2", "arrival-5", "arrival-7", "no-arrival"])
    }

    /// The same order for CPU-bound work run on worker threads (decodes, encodes).
    @Test func offPoolWorkStartsInArrivalOrder() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        queue.isPaused = true
        let order = Recorder<UInt64>()
        let arrivals: [UInt64] = [40, 10, 30, 20, 50, 0]
        var tasks: [Task<Void, any Error>] = []
        for (index, arrival) in arrivals.enumerated() {
            tasks.append(Task { try await queue.runOffPool(priority: LoadPriority(.medium, arrival: arrival)) { order.record(arrival) } })
            #expect(await eventually { queue.waitingCount == index + 1 })
        }
        queue.isPaused = false
        for task in tasks { try await task.value }
        #expect(order.all == arrivals.sorted())
    }

    /// A shared load's arrival is its earliest waiter's, read live: the load an early request
    /// joins moves ahead of one a request in between started.
    @Test func sharedWorkKeepsItsEarliestRequestersPlace() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        queue.isPaused = true
        let order = Recorder<String>()
        let loader = SingleFlightLoader<String, String>(memoryCache: nil) { key, priority in
            try await queue.run(priority: priority) { order.record(key) }
            return key
        }
        let late = Task { try await loader.value(for: "shared", priority: LoadPriority(.medium, arrival: 9)) }
        #expect(await eventually { queue.waitingCount == 1 })
        let middle = Task { try await loader.value(for: "other", priority: LoadPriority(.medium, arrival: 5)) }
        #expect(await eventually { queue.waitingCount == 2 })
        let early = Task { try await loader.value(for: "shared", priority: LoadPriority(.medium, arrival: 1)) }
        #expect(await eventually { loader.waiterCount(for: "shared") == 2 })
        queue.isPaused = false
        #expect(try await late.value == "shared")
        #expect(try await middle.value == "other")
        #expect(try await early.value == "shared")
        #expect(order.all == ["shared", "other"])
    }
}
