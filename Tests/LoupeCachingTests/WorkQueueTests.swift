import LoupeTestSupport
import Testing
@testable import LoupeCaching

@Suite struct WorkQueueTests {
    @Test func neverRunsMoreThanItsBound() async throws {
        let queue = WorkQueue(maximumConcurrency: 3)
        let gauge = Locked<(running: Int, peak: Int)>((0, 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await queue.run(priority: LoadPriority(.medium)) {
                        gauge.withLock { $0.running += 1; $0.peak = max($0.peak, $0.running) }
                        try await Task.sleep(for: .milliseconds(2))
                        gauge.withLock { $0.running -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(gauge.withLock { $0.peak } == 3)
        #expect(queue.runningCount == 0 && queue.waitingCount == 0)
    }

    /// With the only slot taken, queued work starts highest priority first, newest first among
    /// equals; a priority raised while waiting counts.
    @Test func startsByPriorityNowThenNewestFirst() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let gate = Gate()
        let order = Recorder<String>()
        let blocker = Task { try await queue.run(priority: LoadPriority(.high)) { try await gate.wait() } }
        #expect(await eventually { queue.runningCount == 1 })

        let raisedLater = LoadPriority(.low)
        let plan: [(String, LoadPriority)] = [
            ("low-1", LoadPriority(.low)), ("high-1", LoadPriority(.high)), ("raised", raisedLater),
            ("low-2", LoadPriority(.low)), ("high-2", LoadPriority(.high)), ("medium", LoadPriority(.medium)),
        ]
        var tasks: [Task<Void, any Error>] = []
        for (index, (name, priority)) in plan.enumerated() {
            tasks.append(Task { try await queue.run(priority: priority) { order.record(name) } })
            #expect(await eventually { queue.waitingCount == index + 1 })
        }
        raisedLater.update(to: .userInitiated)
        gate.open()
        try await blocker.value
        for task in tasks { try await task.value }
        // .userInitiated == .high, and "raised" was queued after high-1: newest first.
        #expect(order.all == ["high-2", "raised", "high-1", "medium", "low-2", "low-1"])
    }

    @Test func cancelledWaitersLeaveAtOnceAndNeverRun() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let gate = Gate()
        let ran = Counter()
        let blocker = Task { try await queue.run(priority: LoadPriority(.medium)) { try await gate.wait() } }
        #expect(await eventually { queue.runningCount == 1 })
        let waiter = Task { try await queue.run(priority: LoadPriority(.high)) { ran.increment() } }
        #expect(await eventually { queue.waitingCount == 1 })
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(queue.waitingCount == 0)
        gate.open()
        try await blocker.value
        #expect(ran.count == 0)
        #expect(queue.runningCount == 0)
    }

    @Test func aPausedQueueStartsNothingUntilResumed() async throws {
        let queue = WorkQueue(maximumConcurrency: 2)
        queue.isPaused = true
        let ran = Counter()
        let tasks = (0..<3).map { _ in Task { try await queue.run(priority: LoadPriority(.medium)) { _ = ran.increment() } } }
        #expect(await eventually { queue.waitingCount == 3 })
        #expect(ran.count == 0 && queue.runningCount == 0)
        queue.isPaused = false
        for task in tasks { try await task.value }
        #expect(ran.count == 3)
    }

    @Test func aRateLimitSpacesStarts() async throws {
        let queue = WorkQueue(maximumConcurrency: 8, rateLimit: .init(requestsPerSecond: 50, burst: 1))
        let starts = Recorder<ContinuousClock.Instant>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask { try await queue.run(priority: LoadPriority(.medium)) { starts.record(.now) } }
            }
            try await group.waitForAll()
        }
        let times = starts.all.sorted()
        #expect(times.count == 6)
        // One token per 20 ms after the first: five gaps, at least 100 ms in all (a lower bound
        // that holds however slow the machine; an upper one would not).
        if let first = times.first, let last = times.last {
            #expect(first.duration(to: last) >= .milliseconds(95))
        }
    }
}

/// The priority a shared load sees follows its waiters: the highest of them, now.
@Suite struct LoadPriorityTests {
    @Test func aLoadsPriorityIsTheHighestOfItsWaitersAndFollowsThem() async throws {
        let gate = Gate()
        let seen = Locked<LoadPriority?>(nil)
        let loader = SingleFlightLoader<String, Int>(memoryCache: nil) { _, priority in
            seen.withLock { $0 = priority }
            try await gate.wait()
            return 1
        }
        let low = LoadPriority(.low)
        let high = LoadPriority(.high)
        let first = Task { try await loader.value(for: "k", priority: low) }
        #expect(await eventually { seen.withLock { $0 } != nil })
        let loadPriority = try #require(seen.withLock { $0 })
        #expect(loadPriority.value == .low)
        let second = Task { try await loader.value(for: "k", priority: high) }
        #expect(await eventually { loader.waiterCount(for: "k") == 2 })
        #expect(loadPriority.value == .high)
        second.cancel()
        #expect(await eventually { loader.waiterCount(for: "k") == 1 })
        #expect(loadPriority.value == .low, "lowered when the high waiter left")
        low.update(to: .medium)
        #expect(loadPriority.value == .medium, "follows a waiter's change")
        gate.open()
        #expect(try await first.value == 1)
    }

    @Test func priorityPropagatesThroughChainedLoaders() async throws {
        let gate = Gate()
        let seen = Locked<LoadPriority?>(nil)
        let inner = SingleFlightLoader<String, Int>(memoryCache: nil) { _, priority in
            seen.withLock { $0 = priority }
            try await gate.wait()
            return 2
        }
        let outer = SingleFlightLoader<String, Int>(memoryCache: nil) { key, priority in
            try await inner.value(for: key, priority: priority) * 10
        }
        let caller = LoadPriority(.low)
        let task = Task { try await outer.value(for: "k", priority: caller) }
        #expect(await eventually { seen.withLock { $0 } != nil })
        let innerPriority = try #require(seen.withLock { $0 })
        #expect(innerPriority.value == .low)
        caller.update(to: .high)
        #expect(innerPriority.value == .high)
        gate.open()
        #expect(try await task.value == 20)
    }
}
