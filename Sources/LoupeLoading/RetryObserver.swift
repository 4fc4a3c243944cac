/// Who hears about retries: set as a task-local, it is told by ``RetryingDataLoader`` before each
/// retry, so a caller (the pipeline's statistics and logs) learns of them whichever loader it
/// was given, without the loader knowing its caller.
package final class RetryObserver: Sendable {
    /// Called with the failure being retried, the attempt that failed (1-based) and the delay
    /// before the next attempt.
    package typealias Callback = @Sendable (_ error: any Error, _ failedAttempt: Int, _ delay: Duration) -> Void

    /// The observer of loads made by the current task and its children; `nil` by default.
    // A class rather than the closure itself: a task-local of function type crashed in
    // `swift_task_localValuePush` in release builds here (Swift 6.3.1, Linux).
    @TaskLocal package static var current: RetryObserver?

    let callback: Callback

    /// An observer calling `callback` before each retry.
    package init(_ callback: @escaping Callback) {
        self.callback = callback
    }
}
