/// When and how long to wait before trying a failed load again.
///
/// Only transient failures are retried (``DataLoadingError/isTransient``: connection trouble,
/// timeouts, 5xx, 408, 429) — never another 4xx, an oversized body, or cancellation. Delays grow
/// exponentially with full jitter, so many clients failing together do not retry in lockstep; a
/// server's `Retry-After` replaces the computed delay, and one longer than
/// `maximumRetryAfter` ends the retries instead of stalling the caller.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included; 1 disables retries.
    public var maximumAttempts: Int
    /// The cap of the first retry's random delay; doubled for each further retry.
    public var initialDelay: Duration
    /// No computed delay exceeds this.
    public var maximumDelay: Duration
    /// The longest `Retry-After` that is waited for.
    public var maximumRetryAfter: Duration

    /// A policy; by default three attempts, delays up to 0.25 s, 0.5 s, capped at 10 s.
    public init(
        maximumAttempts: Int = 3,
        initialDelay: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(10),
        maximumRetryAfter: Duration = .seconds(30)
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// Never retry.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// How long to wait before attempt `attempt + 1` after `error` ended attempt `attempt`
    /// (counted from 1), or `nil` to give up.
    public func delay(after error: any Error, attempt: Int, using random: inout some RandomNumberGenerator) -> Duration? {
        guard attempt < maximumAttempts, let error = error as? DataLoadingError, error.isTransient else { return nil }
        if case .httpStatus(_, _, let retryAfter?) = error {
            let requested = Duration.milliseconds(Int64(min(retryAfter, 86_400) * 1_000))
            return requested <= maximumRetryAfter ? requested : nil
        }
        // Full jitter: uniform in [0, min(maximumDelay, initialDelay · 2^(attempt-1))].
        let exponent = min(attempt - 1, 30)
        let cap = min(maximumDelay, initialDelay * (1 << exponent))
        let nanoseconds = Int64(cap.components.seconds) * 1_000_000_000 + cap.components.attoseconds / 1_000_000_000
        guard nanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...nanoseconds, using: &random))
    }
}
