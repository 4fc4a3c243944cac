import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCaching

/// ``WorkerHandoff``: a loader's load resumed by the worker that did its off-pool work goes on
/// on that worker; its caller, and any task that does not prefer the executor, on the pool.
@Suite struct WorkerHandoffTests {
    /// The thread running the caller's code now.
    private static func threadID() -> pthread_t { pthread_self() }

    /// Where a load ran: where it started, the worker that did its work, where it went on.
    private struct Threads: Sendable {
        let started: pthread_t, worker: pthread_t, afterwards: pthread_t
        var wentOnOnTheWorker: Bool { pthread_equal(worker, afterwards) != 0 }
        /// Work this short can end before its load has finished suspending: the load then goes
        /// on where it was, without being resumed at all.
        var neverSuspended: Bool { pthread_equal(started, afterwards) != 0 }
    }

    /// Two milliseconds of off-pool work, so that its load has suspended by the time it ends
    /// (the thread checks above still allow for one that has not).
    private static func work<T>(_ value: T) -> (T, pthread_t) {
        Thread.sleep(forTimeInterval: 0.002)
        return (value, threadID())
    }

    @Test func aLoadGoesOnOnTheWorkerThatDidItsWorkAndItsCallerOnThePool() async throws {
        let queue = WorkQueue(maximumConcurrency: 2)
        let loads = Recorder<Threads>()
        let loader = SingleFlightLoader<Int, Int>(memoryCache: nil, loadStart: .inline) { key, priority in
            let started = Self.threadID()
            let (value, worker) = try await queue.runOffPool(priority: priority) { Self.work(key * 2) }
            loads.record(Threads(started: started, worker: worker, afterwards: Self.threadID()))
            return value
        }
        for key in 0..<20 {
            #expect(try await loader.value(for: key) == key * 2)
            let load = try #require(loads.all.last)
            #expect(load.wentOnOnTheWorker || load.neverSuspended, "load \(key) went on on another thread")
            #expect(pthread_equal(load.worker, Self.threadID()) == 0, "caller \(key) ran on the worker")
        }
        #expect(loads.all.filter(\.wentOnOnTheWorker).count >= 10)
    }

    /// The same for a load started in its own task (a prefetch, or `.queued`), and for the waiter
    /// of a load that is itself a load of another loader: both prefer the executor.
    @Test func aQueuedLoadAndAnOuterLoadGoOnOnTheWorkerToo() async throws {
        let queue = WorkQueue(maximumConcurrency: 2)
        let inner = Recorder<Threads>()
        let outer = Recorder<pthread_t>()
        let decodes = SingleFlightLoader<Int, Int>(memoryCache: nil, loadStart: .queued) { key, priority in
            let started = Self.threadID()
            let (value, worker) = try await queue.runOffPool(priority: priority) { Self.work(key + 1) }
            inner.record(Threads(started: started, worker: worker, afterwards: Self.threadID()))
            return value
        }
        let images = SingleFlightLoader<Int, Int>(memoryCache: nil, loadStart: .inline) { key, priority in
            let value = try await decodes.value(for: key, priority: priority)
            outer.record(Self.threadID())
            return value * 10
        }
        for key in 0..<20 {
            #expect(try await images.value(for: key) == (key + 1) * 10)
            let load = try #require(inner.all.last)
            #expect(load.wentOnOnTheWorker || load.neverSuspended, "inner load \(key) went on on another thread")
            if load.wentOnOnTheWorker {
                #expect(pthread_equal(load.worker, try #require(outer.all.last)) != 0, "outer load \(key) went on on another thread")
            }
        }
        #expect(inner.all.filter(\.wentOnOnTheWorker).count >= 10)
    }

    /// Off-pool work a load starts once it goes on on a worker runs next on that worker, which
    /// is free for it.
    @Test func workALoadStartsOnTheWorkerRunsThere() async throws {
        let queue = WorkQueue(maximumConcurrency: 2)
        let loads = Recorder<(first: Threads, second: pthread_t)>()
        let loader = SingleFlightLoader<Int, Int>(memoryCache: nil, loadStart: .inline) { key, priority in
            let started = Self.threadID()
            let ((), first) = try await queue.runOffPool(priority: priority) { Self.work(()) }
            let afterwards = Self.threadID()
            let ((), second) = try await queue.runOffPool(priority: priority) { Self.work(()) }
            loads.record((Threads(started: started, worker: first, afterwards: afterwards), second))
            return key
        }
        for key in 0..<20 { #expect(try await loader.value(for: key) == key) }
        let onTheWorker = loads.all.filter(\.first.wentOnOnTheWorker)
        #expect(onTheWorker.count >= 10)
        #expect(onTheWorker.allSatisfy { pthread_equal($0.first.worker, $0.second) != 0 })
    }

    /// A task that does not prefer the executor (a plain caller of the queue) is resumed on the
    /// pool, as before, never on the worker.
    @Test func aPlainCallerIsResumedOnThePool() async throws {
        let queue = WorkQueue(maximumConcurrency: 2)
        for _ in 0..<20 {
            let worker = try await queue.runOffPool(priority: LoadPriority(.medium)) { Self.threadID() }
            #expect(pthread_equal(worker, Self.threadID()) == 0)
        }
    }

    /// A load cancelled while its work waits for a slot is resumed by the cancellation, off any
    /// worker, and fails with `CancellationError`; the queue is left empty.
    @Test func aLoadCancelledWhileWaitingIsResumedWhereItWasCancelled() async throws {
        let queue = WorkQueue(maximumConcurrency: 1)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let started = Counter()
        let blocker = Task {
            try await queue.runOffPool(priority: LoadPriority(.high)) {
                _ = started.increment()
                release.wait()
            }
        }
        #expect(await eventually { started.count == 1 })
        let loader = SingleFlightLoader<Int, Int>(memoryCache: nil, loadStart: .inline) { key, priority in
            try await queue.runOffPool(priority: priority) { key }
        }
        let waiting = Task { try await loader.value(for: 7) }
        #expect(await eventually { queue.waitingCount == 1 })
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(await eventually { queue.waitingCount == 0 })
        release.signal()
        try await blocker.value
        #expect(loader.loadsInFlight == 0)
    }
}
