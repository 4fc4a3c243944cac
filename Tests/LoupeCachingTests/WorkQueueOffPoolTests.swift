import Dispatch
import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCaching

/// ``WorkQueue/runOffPool(priority:_:)``: synchronous work on worker threads, in the queue's
/// bound and order, handed from worker to worker.
@Suite struct WorkQueueOffPoolTests {
    /// The thread running the caller's code now.
    private static func threadID() -> pthread_t { pthread_self() }

    @Test func returnsEachResultAndNeverRunsMoreThanItsBound() async throws {
        let queue = WorkQueue(maximumConcurrency: 2)
        let gauge = Locked<(running: Int, peak: Int)>((0, 0))
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<40 {
                group.addTask {
                    let value = try await queue.runOffPool(priority: LoadPriority(.medium)) {
                        gauge.withLock { $0.running += 1; $0.peak = max($0.peak, $0.running) }
                        Thread.sleep(forTimeInterval: 0.001)
                        gauge.withLock { $0.running -= 1 }
                        return index * 10
                    }
                    return (index, value)
                }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        #expect(results == Dictionary(uniqueKeysWithValues: (0..<40).map { ($0, $0 * 10) }))
        #expect(gauge.withLock { $0.peak } <= 2)
        #expect(queue.runningCount == 0 && queue.waitingCount == 0)
    }

    /// With the only slot held by blocked work, queued work starts by priority, newest first
    /// among equals — and on the thread whose work just ended, not on another.
    @Test func waitingWorkStartsByPriorityOnTheWorkerThatFreedTheSlot() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() } // never leave a thread blocked, even when an expectation fails
        let started = Counter()
        let blocker = Task {
            try await queue.runOffPool(priority: LoadPriority(.high)) { () -> pthread_t in
                _ = started.increment()
                release.wait()
                return Self.threadID()
            }
        }
        #expect(await eventually { started.count == 1 })
        let runs = Recorder<(String, pthread_t)>()
        let plan: [(String, TaskPriority)] = [("low", .low), ("high-1", .high), ("medium", .medium), ("high-2", .high)]
        var tasks: [Task<Void, any Error>] = []
        for (index, (name, priority)) in plan.enumerated() {
            tasks.append(Task { try await queue.runOffPool(priority: LoadPriority(priority)) { runs.record((name, Self.threadID())) } })
            #expect(await eventually { queue.waitingCount == index + 1 })
        }
        release.signal()
        let blockerThread = try await blocker.value
        for task in tasks { try await task.value }
        #expect(runs.all.map(\.0) == ["high-2", "high-1", "medium", "low"])
        #expect(runs.all.map(\.1) == Array(repeating: blockerThread, count: 4))
        #expect(queue.runningCount == 0 && queue.waitingCount == 0)
    }

    @Test func aCancelledWaiterLeavesAtOnceAndNeverRuns() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let started = Counter()
        let blocker = Task { try await queue.runOffPool(priority: LoadPriority(.medium)) { _ = started.increment(); release.wait() } }
        #expect(await eventually { started.count == 1 })
        let ran = Counter()
        let waiter = Task { try await queue.runOffPool(priority: LoadPriority(.high)) { _ = ran.increment() } }
        #expect(await eventually { queue.waitingCount == 1 })
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(queue.waitingCount == 0)
        release.signal()
        try await blocker.value
        #expect(ran.count == 0)
        #expect(queue.runningCount == 0)
    }

    @Test func anAlreadyCancelledCallerRunsNothing() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let ran = Counter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.runOffPool(priority: LoadPriority(.medium)) { _ = ran.increment() }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ran.count == 0)
        #expect(queue.runningCount == 0 && queue.waitingCount == 0)
    }

    /// Work that throws hands its error to its caller and frees its slot for the next.
    @Test func aThrowingWorkReportsItsErrorAndFreesItsSlot() async throws {
        struct Failure: Error, Equatable {}
        let queue = WorkQueue(maximumConcurrency: 1)
        await #expect(throws: Failure()) { try await queue.runOffPool(priority: LoadPriority(.medium)) { throw Failure() } }
        #expect(try await queue.runOffPool(priority: LoadPriority(.medium)) { 7 } == 7)
        #expect(queue.runningCount == 0)
    }
}
