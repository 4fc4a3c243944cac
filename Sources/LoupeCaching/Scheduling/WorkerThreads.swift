import Foundation

/// The threads on which ``WorkQueue``s run their CPU-bound work: never Dispatch's global queues
/// nor Swift's cooperative pool.
///
/// On Linux the cooperative pool is built on Dispatch's global queues, whose threads number
/// the cores and grow only when a thread blocks, not when it computes: work sent to
/// `DispatchQueue.global()` that computes for seconds takes those threads from every task in
/// the process — a server's health check, its deadline timers, its signal handlers. Threads
/// created here are apart from all of that, so the kernel shares the cores between them and
/// the pool instead.
///
/// Every queue shares ``shared``: a process that makes many queues (several pipelines, a test
/// suite's servers) runs no more CPU-bound threads than its cores can take, so the event loops
/// and the cooperative pool keep their share of the cores (thirty suites' queues, each with
/// threads of its own, starved their test servers' event loops past their timeouts under
/// ThreadSanitizer). At most `limit` threads, started when work arrives and none is idle, and
/// kept for the life of the process.
final class WorkerThreads: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: `pending`, `idle` and `running` are read and written
    // only while `condition` is locked (every access below is between its lock and unlock),
    // and `limit` is a constant; the work items are `@Sendable`.
    private let condition = NSCondition()
    private var pending: [@Sendable () -> Void] = []
    /// Threads waiting for work.
    private var idle = 0
    /// Threads alive.
    private var running = 0
    private let limit: Int

    /// The threads of every queue in the process: one per core, and one more so that work handed
    /// over while a thread resumes its caller does not wait for it.
    static let shared = WorkerThreads(limit: ProcessInfo.processInfo.activeProcessorCount + 1)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `work` on one of the threads, starting one if none is idle and fewer than `limit`
    /// run; else it waits for the first thread that frees up. Work that a load handed back to
    /// a worker thread starts runs next on that thread (``WorkerHandoff``).
    func start(_ work: @escaping @Sendable () -> Void) {
        if WorkerHandoff.keepForThisThread(work) { return }
        condition.lock()
        pending.append(work)
        let spawn = idle < pending.count && running < limit
        if spawn { running += 1 }
        condition.signal()
        condition.unlock()
        if spawn {
            let thread = Thread { [self] in loop() }
            thread.name = "loupe.worker"
            thread.start()
        }
    }

    private func loop() -> Never {
        while true {
            next()()
            WorkerHandoff.runKeptWork()
        }
    }

    /// The next work, waiting for it as long as it takes: the threads are few and shared, so they
    /// live as long as the process rather than come and go (each new thread takes an id from the
    /// space process ids share, where a test's `kill` of a child already reaped could meet it).
    private func next() -> @Sendable () -> Void {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty {
            idle += 1
            condition.wait()
            idle -= 1
        }
        return pending.removeFirst()
    }
}
