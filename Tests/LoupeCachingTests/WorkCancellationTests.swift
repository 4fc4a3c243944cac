import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCaching

/// ``WorkCancellation``: the signal off-pool work reads, installed by ``WorkQueue`` and cancelled
/// with the waiting task; and the queue's own threads, which leave the cooperative pool free.
@Suite struct WorkCancellationTests {
    /// Why a spinning job ended.
    private struct Stopped: Error, Equatable {}

    @Test func currentIsTheInstalledSignalAndInstallationsNest() throws {
        #expect(WorkCancellation.current == nil)
        let outer = WorkCancellation(), inner = WorkCancellation()
        let seen = outer.install { () -> [ObjectIdentifier?] in
            let first = WorkCancellation.current.map(ObjectIdentifier.init)
            let nested = inner.install { WorkCancellation.current.map(ObjectIdentifier.init) }
            return [first, nested, WorkCancellation.current.map(ObjectIdentifier.init)]
        }
        #expect(seen == [ObjectIdentifier(outer), ObjectIdentifier(inner), ObjectIdentifier(outer)])
        #expect(WorkCancellation.current == nil)
        inner.cancel()
        #expect(inner.isCancelled && !outer.isCancelled)
        #expect(throws: Stopped()) { try inner.check(Stopped()) }
        try outer.check(Stopped())
    }

    /// Work already running sees its task's cancellation through the signal, stops with its own
    /// error, and the caller gets that error once it has stopped: the slot is free by then.
    @Test func runningWorkSeesItsTaskCancelledAndFreesItsSlot() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let started = Counter()
        let task = Task {
            try await queue.runOffPool(priority: LoadPriority(.medium)) { () throws -> Int in
                guard let signal = WorkCancellation.current else { return -1 }
                _ = started.increment()
                // Bounded: 60 s of 1 ms steps at most, far past any test's patience.
                for _ in 0..<60_000 {
                    try signal.check(Stopped())
                    Thread.sleep(forTimeInterval: 0.001)
                }
                return 0
            }
        }
        #expect(await eventually { started.count == 1 })
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: Stopped.self) { try await task.value }
        // Stopped at its next check, not after its 60 s: the bound tells the two apart with room
        // for ThreadSanitizer beside other suites on two cores (seen: 6.7 s there, the waiting
        // task's resumption queued behind their work). How soon is measured, not asserted here.
        #expect(cancelled.duration(to: .now) < .seconds(30))
        #expect(queue.runningCount == 0)
        // The next work gets the slot.
        #expect(try await queue.runOffPool(priority: LoadPriority(.medium)) { 7 } == 7)
    }

    /// Off-pool work as wide as the cooperative pool, each holding its thread until cancelled,
    /// does not take the pool's threads: tasks still run meanwhile. (On Linux the pool is a
    /// Dispatch queue as wide as the cores that adds no thread for work that holds one, computing
    /// or blocked, so work sent there would starve every task.) The work sleeps in 1 ms steps
    /// rather than computing: two spinning threads on two cores slowed every suite beside this one
    /// (under ThreadSanitizer, 30 s of stall and other suites' 10 s bounds missed), and a held
    /// thread proves the same.
    @Test func offPoolWorkHoldingAThreadPerCoreLeavesTheCooperativePoolFree() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let queue = WorkQueue(maximumConcurrency: cores)
        let started = Counter()
        let spinners = (0..<cores).map { _ in
            Task {
                try await queue.runOffPool(priority: LoadPriority(.medium)) { () throws -> Int in
                    guard let signal = WorkCancellation.current else { return -1 }
                    _ = started.increment()
                    // Holds its thread (never yields it) until cancelled; bounded by 300 s.
                    for _ in 0..<300_000 {
                        try signal.check(Stopped())
                        usleep(1_000)
                    }
                    return 0
                }
            }
        }
        defer { for spinner in spinners { spinner.cancel() } }
        // Observed from a thread of its own: on the pool, the wait itself would need the pool.
        let allStarted = try await onOwnThread { () -> Bool in
            // The worker threads are the process's, shared with every suite running beside this
            // one: a spinner may wait for another suite's work to end (seen: over 30 s under
            // ThreadSanitizer beside a release build).
            let end = ContinuousClock.now + .seconds(120)
            while started.count < cores, ContinuousClock.now < end { usleep(1_000) }
            return started.count == cores
        }
        #expect(allStarted)
        let start = ContinuousClock.now
        let finished = await withTaskGroup(of: Int.self) { group in
            for index in 0..<(cores * 8) {
                group.addTask {
                    await Task.yield()
                    return index
                }
            }
            return await group.reduce(0) { count, _ in count + 1 }
        }
        #expect(finished == cores * 8)
        // While the spinners hold their threads (300 s unless cancelled), not after them; the
        // bound leaves room for ThreadSanitizer beside other suites.
        #expect(start.duration(to: .now) < .seconds(60))
        for spinner in spinners {
            spinner.cancel()
            await #expect(throws: Stopped.self) { try await spinner.value }
        }
    }
}
