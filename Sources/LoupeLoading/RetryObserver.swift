/// Who hears about retries: a task-local callback that ``RetryingDataLoader`` calls before each
/// retry, so a caller (the pipeline's statistics and logs) learns of them whichever loader it
/// was given, without the loader knowing its caller.
public enum RetryObserver {
    /// Called with the failure being retried, the attempt that failed (1-based) and the delay
    /// before the next attempt.
    public typealias Callback = @Sendable (_ error: any Error, _ failedAttempt: Int, _ delay: Duration) -> Void

    /// The callback for loads made by the current task and its children; `nil` by default.
    @TaskLocal public static var current: Callback?
}
