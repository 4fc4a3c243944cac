/// Synchronous work handed to ``WorkQueue/runOffPool(priority:_:)``, with the task that waits
/// for its result: the queue holds these whatever their result type.
///
/// In two steps, so that the queue frees the work's slot between them: a caller that has its
/// result never sees the slot still taken.
protocol OffPoolJob: Sendable {
    /// Runs the work and keeps its outcome — or, when `cancelled` (or the waiting task was
    /// cancelled before the work started), keeps `CancellationError` without running it.
    func perform(cancelled: Bool)
    /// Hands the outcome to the waiting task; after ``perform(cancelled:)``, once.
    func resume()
}

/// An ``OffPoolJob`` producing a `T`.
final class WorkerJob<T: Sendable>: OffPoolJob {
    private struct State {
        /// Set before the job is queued or started; taken by `resume`.
        var continuation: CheckedContinuation<T, any Error>?
        var outcome: Result<T, any Error>?
    }

    private let work: @Sendable () throws -> T
    private let state = Locked(State())
    /// Cancelled by the task's cancellation handler: a worker that takes the job after this must
    /// not run it (the waiting task's own cancellation check, made for it), and work already
    /// running sees it as its thread's ``WorkCancellation/current`` and stops at its next check.
    private let cancellation = WorkCancellation()

    init(_ work: @escaping @Sendable () throws -> T) {
        self.work = work
    }

    /// Called before the job is queued or started, so `resume` always finds the continuation.
    func attach(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func cancel() {
        cancellation.cancel()
    }

    func perform(cancelled: Bool) {
        let outcome: Result<T, any Error> = cancelled || cancellation.isCancelled
            ? .failure(CancellationError())
            : cancellation.install { Result { try work() } }
        state.withLock { $0.outcome = outcome }
    }

    func resume() {
        let (continuation, outcome) = state.withLock { state in (state.continuation.take(), state.outcome.take()) }
        guard let continuation, let outcome else { return }
        continuation.resume(with: outcome)
    }
}
