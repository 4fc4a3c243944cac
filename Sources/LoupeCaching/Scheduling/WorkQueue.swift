import Synchronization

/// Runs async operations at most `maximumConcurrency` at a time, starting waiting ones in
/// priority order — newest first among equals — and optionally no faster than a rate limit.
///
/// Work whose ``LoadPriority`` carries an arrival (a service's requests) is first come, first
/// served instead: among equal priorities the earliest arrival starts first, and before work
/// without one, which only a caller mixing the two modes in one queue would see.
///
/// Priorities are ``LoadPriority`` values read when a slot frees up, not when work was queued,
/// so a request whose priority changed while it waited (a cell scrolled into view, or out of
/// it) is ordered by its priority now. Newest first because in a list that scrolls fast the
/// cells that just appeared are the ones still on screen when the work finishes.
///
/// A waiter whose task is cancelled leaves the queue at once with `CancellationError` and
/// never runs. Generic: it knows nothing of what the work is (downloads, decodes).
///
/// Synchronous, CPU-bound work (``runOffPool(priority:_:)``) runs on the threads every queue
/// shares (``WorkerThreads``), off Swift's cooperative pool and Dispatch's, and a worker that finishes
/// one runs the next waiting one itself: a busy queue hands its work from worker to worker without a round trip through the
/// waiting task (resumed on the pool only to send its work back to a worker).
package final class WorkQueue: Sendable {
    /// How a waiter starts once it has a slot.
    private enum Start {
        /// Resumed, the waiting task runs its operation itself (``run(priority:order:_:)``).
        case resume(CheckedContinuation<Void, any Error>)
        /// Run on the worker thread that starts it (``runOffPool(priority:_:)``).
        case job(any OffPoolJob)
    }

    private struct Waiter {
        /// Unique per waiter: how a cancelled waiter is found.
        let sequence: UInt64
        /// Among equal priorities, higher starts first: `sequence` (newest first) unless the
        /// caller gave an order.
        let order: UInt64
        let priority: LoadPriority
        /// `priority.standing` when last read; valid while `LoadPriority.changes` has not moved.
        var snapshot: LoadPriority.Standing
        let start: Start

        /// Whether `self` starts after `other`: lower priority; among equals, a later arrival
        /// (or none, when the other has one), else a lower order.
        func startsAfter(_ other: Waiter) -> Bool {
            if snapshot.priority != other.snapshot.priority { return snapshot.priority < other.snapshot.priority }
            switch (snapshot.arrival, other.snapshot.arrival) {
            case let (mine?, theirs?) where mine != theirs: return mine > theirs
            case (nil, _?): return true
            case (_?, nil): return false
            default: return order < other.order
            }
        }
    }

    private struct State {
        var running = 0
        var nextSequence: UInt64 = 0
        /// Sorted so that the next to start is last.
        var waiters: [Waiter] = []
        /// The `LoadPriority.changes` value the snapshots were read at.
        var snapshotsChange: UInt64 = 0
        /// Rate-limit tokens; refilled from `refilledAt` on every decision.
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
        /// Whether a task is already sleeping until the next token.
        var wakeScheduled = false
        /// While set, nothing new starts.
        var isPaused = false
    }

    /// How many operations may run at once.
    package let maximumConcurrency: Int
    package let rateLimit: RateLimit?
    private let state: Locked<State>

    package init(maximumConcurrency: Int, rateLimit: RateLimit? = nil) {
        self.maximumConcurrency = max(1, maximumConcurrency)
        self.rateLimit = rateLimit.map { RateLimit(requestsPerSecond: max($0.requestsPerSecond, 0.001), burst: max(1, $0.burst)) }
        state = Locked(State(tokens: Double(self.rateLimit?.burst ?? 0), refilledAt: .now))
    }

    /// The number of operations running now.
    package var runningCount: Int { state.withLock { $0.running } }

    /// The number of operations waiting for a slot now.
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// While `true`, waiting operations do not start (running ones go on); they start, in
    /// order, once it is `false` again.
    package var isPaused: Bool {
        get { state.withLock { $0.isPaused } }
        set {
            state.withLock { $0.isPaused = newValue }
            if !newValue { dispatch() }
        }
    }

    /// Waits for a slot (in priority order), runs `operation`, and frees the slot.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting (the operation then
    ///   never runs), or whatever `operation` throws.
    ///
    /// - Parameter order: among waiters of equal priority, the higher order starts first; by
    ///   default the newest waiter's is highest. A caller handing over a batch whose first item
    ///   matters most (the prefetcher) numbers them itself. Runs on the caller's executor
    ///   (`nonsending`) until it waits, so waiters that arrive from one thread queue in the
    ///   order they called.
    nonisolated(nonsending)
    package func run<T>(priority: LoadPriority, order: UInt64? = nil, _ operation: () async throws -> sending T) async throws -> sending T {
        try await acquire(priority: priority, order: order)
        defer { release() }
        return try await operation()
    }

    nonisolated(nonsending)
    private func acquire(priority: LoadPriority, order: UInt64?) async throws {
        // A free slot and nobody ahead: start without suspending.
        guard let sequence = takeSlotOrSequence() else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                wait(.resume(continuation), sequence: sequence, order: order, priority: priority)
            }
        } onCancel: {
            leave(sequence)
        }
    }

    /// Runs synchronous, CPU-bound `work` on one of the shared worker threads, off Swift's
    /// cooperative pool (whose few threads must stay free for continuations), once a slot is free and in
    /// priority order like ``run(priority:order:_:)``; returns its result.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before `work` starts (it then never
    ///   runs), or whatever `work` throws. Once started, `work` sees the task's cancellation as
    ///   its thread's ``WorkCancellation/current`` and may stop at its next check (with its own
    ///   error); the caller is resumed when it has stopped, so the slot is free again then.
    nonisolated(nonsending)
    package func runOffPool<T: Sendable>(priority: LoadPriority, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let job = WorkerJob(work)
        let sequence = takeSlotOrSequence()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                job.attach(continuation)
                if let sequence {
                    wait(.job(job), sequence: sequence, order: nil, priority: priority)
                } else {
                    startOnWorker(job)
                }
            }
        } onCancel: {
            // Not started yet: it never will be (whether it still waits in the queue, or a
            // worker has just taken it).
            job.cancel()
            if let sequence { leave(sequence) }
        }
    }

    /// Takes a slot if one is free and nobody waits for one (returns `nil`), else returns the
    /// caller's place in the queue.
    private func takeSlotOrSequence() -> UInt64? {
        state.withLock { state -> UInt64? in
            if state.waiters.isEmpty, !state.isPaused, state.running < maximumConcurrency, takeToken(&state) {
                state.running += 1
                return nil
            }
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
    }

    /// Queues a waiter (unless its task is cancelled) and starts what can start.
    private func wait(_ start: Start, sequence: UInt64, order: UInt64?, priority: LoadPriority) {
        // Read outside the lock: it may be a shared load's priority, behind other locks.
        let readAt = LoadPriority.changes.load(ordering: .acquiring)
        let snapshot = priority.standing
        let cancelled = state.withLock { state -> Bool in
            // Checked under the lock: the cancellation handler may already have run and
            // found nothing to remove.
            if Task.isCancelled { return true }
            let waiter = Waiter(
                sequence: sequence, order: order ?? sequence, priority: priority, snapshot: snapshot, start: start)
            state.waiters.insert(waiter, at: insertionIndex(of: waiter, in: state.waiters))
            // Read at another moment than the others' snapshots: the order may not hold.
            if readAt != state.snapshotsChange { state.snapshotsChange = .max }
            return false
        }
        if cancelled { Self.cancel(start) } else { dispatch() }
    }

    /// Removes a cancelled waiter, if it still waits, and tells it so.
    private func leave(_ sequence: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.sequence == sequence }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter.map { Self.cancel($0.start) }
    }

    private static func cancel(_ start: Start) {
        switch start {
        case .resume(let continuation): continuation.resume(throwing: CancellationError())
        case .job(let job):
            job.perform(cancelled: true)
            job.resume()
        }
    }

    private func release() {
        state.withLock { $0.running -= 1 }
        dispatch()
    }

    /// Runs `job` on a worker thread, then, on the same thread, every job that its slot
    /// can start next. Each job's slot is freed before its caller is resumed (as `run` frees it
    /// before returning), and its caller is resumed before the next job runs — on this thread
    /// when the caller is a loader's load (``WorkerHandoff``).
    private func startOnWorker(_ job: any OffPoolJob) {
        WorkerThreads.shared.start { [self] in
            var next: (any OffPoolJob)? = job
            while let job = next {
                job.perform(cancelled: false)
                state.withLock { $0.running -= 1 }
                next = dispatch(keepingOneJob: true)
                WorkerHandoff.resumingHere { job.resume() }
                // This thread runs next the work its resumed loads started; the queue's next job
                // goes to another.
                if WorkerHandoff.keepsWork, let kept = next {
                    startOnWorker(kept)
                    next = nil
                }
            }
        }
    }

    /// Starts as many waiters as the slots and the rate limit allow, best first. With
    /// `keepingOneJob` (on a worker whose job just ended), the first job among them is returned
    /// for the caller to run itself instead of being sent to another worker.
    @discardableResult
    private func dispatch(keepingOneJob: Bool = false) -> (any OffPoolJob)? {
        let (started, wakeAfter) = state.withLock { state -> ([Waiter], Duration?) in
            var started: [Waiter] = []
            while !state.isPaused, state.running < maximumConcurrency, !state.waiters.isEmpty {
                guard takeToken(&state) else { break }
                resortIfPrioritiesChanged(&state)
                state.running += 1
                started.append(state.waiters.removeLast())
            }
            var wakeAfter: Duration?
            if let rateLimit, !state.isPaused, !state.waiters.isEmpty, state.running < maximumConcurrency, !state.wakeScheduled {
                state.wakeScheduled = true
                wakeAfter = .seconds((1 - state.tokens) / rateLimit.requestsPerSecond)
            }
            return (started, wakeAfter)
        }
        var kept: (any OffPoolJob)?
        for waiter in started {
            switch waiter.start {
            case .resume(let continuation):
                continuation.resume()
            case .job(let job):
                if keepingOneJob, kept == nil { kept = job } else { startOnWorker(job) }
            }
        }
        scheduleWake(after: wakeAfter)
        return kept
    }

    /// Wakes the queue when the rate limit gives its next token.
    private func scheduleWake(after wakeAfter: Duration?) {
        if let wakeAfter {
            Task { [weak self] in
                try? await Task.sleep(for: wakeAfter)
                self?.state.withLock { $0.wakeScheduled = false }
                self?.dispatch()
            }
        }
    }

    /// Reads every waiter's priority again and re-sorts, if any priority may have changed since
    /// the last read. Lock order: this queue's lock, then the priorities' (loaders'), never the
    /// reverse.
    private func resortIfPrioritiesChanged(_ state: inout State) {
        let changes = LoadPriority.changes.load(ordering: .acquiring)
        guard changes != state.snapshotsChange else { return }
        state.snapshotsChange = changes
        for index in state.waiters.indices { state.waiters[index].snapshot = state.waiters[index].priority.standing }
        state.waiters.sort { $0.startsAfter($1) }
    }

    /// Where `waiter` goes in `waiters` (sorted so that the next to start is last): after every
    /// waiter that starts after it. Binary search.
    private func insertionIndex(of waiter: Waiter, in waiters: [Waiter]) -> Int {
        var (low, high) = (0, waiters.count)
        while low < high {
            let middle = (low + high) / 2
            if waiters[middle].startsAfter(waiter) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Takes a rate-limit token, if the limit allows one now (always without a limit).
    private func takeToken(_ state: inout State) -> Bool {
        guard let rateLimit else { return true }
        refill(&state, rateLimit)
        guard state.tokens >= 1 else { return false }
        state.tokens -= 1
        return true
    }

    private func refill(_ state: inout State, _ rateLimit: RateLimit) {
        let now = ContinuousClock.now
        let elapsed = state.refilledAt.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        state.tokens = min(Double(rateLimit.burst), state.tokens + seconds * rateLimit.requestsPerSecond)
        state.refilledAt = now
    }
}
