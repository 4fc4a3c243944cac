/// Wraps a loader and retries its transient failures as a ``RetryPolicy`` says.
///
/// Retrying lives in its own layer so every loader — AsyncHTTPClient, URLSession, a test double —
/// gets the same policy, and so the attempt count is bounded in one place. The attempts share
/// one deadline, the base loader's ``DataLoading/downloadTimeout`` (or the request's shorter
/// ``DataRequest/timeout``) from the first attempt's start: an attempt ends by it, and a retry
/// whose delay would reach it is not made, so a source that stalls costs the download's limit
/// once, not once per attempt.
public struct RetryingDataLoader<Base: DataLoading>: DataLoading {
    /// The loader that does the work.
    public let base: Base
    /// When to try again.
    public let policy: RetryPolicy
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Retries `base`'s transient failures by `policy`.
    ///
    /// - Parameter sleep: waits between attempts; tests may shorten it. It must throw
    ///   `CancellationError` when the task is cancelled, as `Task.sleep` does.
    public init(
        _ base: Base,
        policy: RetryPolicy = RetryPolicy(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.base = base
        self.policy = policy
        self.sleep = sleep
    }

    /// The base loader's limit: the attempts share it.
    public var downloadTimeout: Duration? { base.downloadTimeout }

    public func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        // A request's own timeout, when shorter, bounds all its attempts the same way.
        let end = request.timeLimit(within: base.downloadTimeout).map { DownloadDeadline.end(withLimit: $0) } ?? DownloadDeadline.current
        return try await DownloadDeadline.$current.withValue(end) {
            try await attempts(request, progress: progress, until: end)
        }
    }

    private func attempts(_ request: DataRequest, progress: DataLoadingProgress?, until end: ContinuousClock.Instant?) async throws -> DataResponse {
        var random = SystemRandomNumberGenerator()
        var attempt = 1
        while true {
            do {
                return try await base.loadData(for: request, progress: progress)
            } catch {
                // `delay` returns nil once `attempt` reaches `maximumAttempts`, which bounds the loop.
                guard !(error is CancellationError), !Task.isCancelled,
                      let delay = policy.delay(after: error, attempt: attempt, using: &random),
                      end.map({ ContinuousClock.now.advanced(by: delay) < $0 }) ?? true
                else { throw error }
                RetryObserver.current?.callback(error, attempt, delay)
                try await sleep(delay)
                attempt += 1
            }
        }
    }
}
