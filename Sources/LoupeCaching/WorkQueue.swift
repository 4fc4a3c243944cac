/// Runs async operations at most `maximumConcurrency` at a time, starting waiting ones in
/// priority order — newest first among equals — and optionally no faster than a rate limit.
///
/// Priorities are ``LoadPriority`` values read when a slot frees up, not when work was queued,
/// so a request whose priority changed while it waited (a cell scrolled into view, or out of
/// it) is ordered by its priority now. Newest first because in a list that scrolls fast the
/// cells that just appeared are the ones still on screen when the work finishes.
///
/// A waiter whose task is cancelled leaves the queue at once with `CancellationError` and
/// never runs. Generic: it knows nothing of what the work is (downloads, decodes).
package final class WorkQueue: Sendable {
    /// At most this many requests per second, with bursts of up to `burst` at once.
    package struct RateLimit: Sendable, Equatable {
        package var requestsPerSecond: Double
        package var burst: Int

        package init(requestsPerSecond: Double, burst: Int) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
        }
    }

    private struct Waiter {
        let sequence: UInt64
        let priority: LoadPriority
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var nextSequence: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        /// Rate-limit tokens; refilled from `refilledAt` on every decision.
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
        /// Whether a task is already sleeping until the next token.
        var wakeScheduled = false
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

    /// Waits for a slot (in priority order), runs `operation`, and frees the slot.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting (the operation then
    ///   never runs), or whatever `operation` throws.
    package func run<T>(priority: LoadPriority, _ operation: () async throws -> sending T) async throws -> sending T {
        try await acquire(priority: priority)
        defer { release() }
        return try await operation()
    }

    private func acquire(priority: LoadPriority) async throws {
        let sequence = state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    // Checked under the lock: the cancellation handler may already have run and
                    // found nothing to remove.
                    if Task.isCancelled { return true }
                    state.waiters[sequence] = Waiter(sequence: sequence, priority: priority, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) } else { dispatch() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: sequence) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release() {
        state.withLock { $0.running -= 1 }
        dispatch()
    }

    /// Starts as many waiters as the slots and the rate limit allow, best first.
    private func dispatch() {
        let (started, wakeAfter) = state.withLock { state -> ([Waiter], Duration?) in
            var started: [Waiter] = []
            var wakeAfter: Duration?
            while state.running < maximumConcurrency, !state.waiters.isEmpty {
                if let rateLimit {
                    refill(&state, rateLimit)
                    guard state.tokens >= 1 else {
                        if !state.wakeScheduled {
                            state.wakeScheduled = true
                            wakeAfter = .seconds((1 - state.tokens) / rateLimit.requestsPerSecond)
                        }
                        break
                    }
                    state.tokens -= 1
                }
                // Linear in the waiters: priorities are read live, so no order can be kept
                // between decisions. Lock order: this lock, then the priorities' (loaders'),
                // never the reverse.
                guard let best = state.waiters.values.max(by: { a, b in
                    let (pa, pb) = (a.priority.value, b.priority.value)
                    return pa != pb ? pa < pb : a.sequence < b.sequence
                }) else { break }
                state.waiters[best.sequence] = nil
                state.running += 1
                started.append(best)
            }
            return (started, wakeAfter)
        }
        for waiter in started { waiter.continuation.resume() }
        if let wakeAfter {
            Task { [weak self] in
                try? await Task.sleep(for: wakeAfter)
                self?.state.withLock { $0.wakeScheduled = false }
                self?.dispatch()
            }
        }
    }

    private func refill(_ state: inout State, _ rateLimit: RateLimit) {
        let now = ContinuousClock.now
        let elapsed = state.refilledAt.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        state.tokens = min(Double(rateLimit.burst), state.tokens + seconds * rateLimit.requestsPerSecond)
        state.refilledAt = now
    }
}
