import Foundation
import LoupeCaching

/// Synchronous work run as a ``WorkQueue`` runs it — on a thread of its own, under a
/// ``WorkCancellation`` — and cancelled partway: what it returned or threw, and how long after
/// the cancellation it did. The bound a cancellation must meet is checked on `stoppedAfter`.
package struct CancelledWork<T: Sendable>: Sendable {
    /// What the work returned, if it ran to its end.
    package let result: T?
    /// What it threw.
    package let error: (any Error)?
    /// From the cancellation to its return; negative when it returned before it.
    package let stoppedAfter: Duration

    /// Runs `work`, cancelling its signal `after` it started (at once, before it starts, for
    /// `.zero`): the moment a request's deadline passes mid-work.
    package static func run(after delay: Duration, _ work: @escaping @Sendable () throws -> T) async throws -> CancelledWork {
        let signal = WorkCancellation()
        if delay == .zero { signal.cancel() }
        let cancelledAt = Locked<ContinuousClock.Instant?>(delay == .zero ? .now : nil)
        let running = Task {
            try await onOwnThread { () -> (Result<T, any Error>, ContinuousClock.Instant) in
                let outcome = signal.install { Result { try work() } }
                return (outcome, .now)
            }
        }
        if delay > .zero {
            // The deadline the work is cancelled at, not a wait for something to happen.
            try await Task.sleep(for: delay)
            cancelledAt.withLock { $0 = .now }
            signal.cancel()
        }
        let (outcome, endedAt) = try await running.value
        let cancelled = cancelledAt.withLock { $0 } ?? endedAt
        let stoppedAfter = cancelled <= endedAt ? cancelled.duration(to: endedAt) : .zero - endedAt.duration(to: cancelled)
        switch outcome {
        case .success(let value): return CancelledWork(result: value, error: nil, stoppedAfter: stoppedAfter)
        case .failure(let error): return CancelledWork(result: nil, error: error, stoppedAfter: stoppedAfter)
        }
    }
}
