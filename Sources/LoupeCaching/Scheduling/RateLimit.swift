/// At most `requestsPerSecond` operations start per second, in bursts of up to `burst` after a
/// quiet period (a token bucket). One type for the pipeline's setting
/// (`ImagePipeline.Configuration.dataLoadRateLimit`) and the queue that applies it.
public struct RateLimit: Sendable, Equatable {
    /// The sustained rate.
    public var requestsPerSecond: Double
    /// How many may start at once after a quiet period.
    public var burst: Int

    /// A limit of `requestsPerSecond`, with bursts of `burst`.
    ///
    /// - Parameters:
    ///   - requestsPerSecond: the sustained rate, in operations started per second (the queue applying
    ///     it counts anything below 0.001 as 0.001).
    ///   - burst: how many may start at once after a quiet period (the queue applying it counts anything
    ///     below 1 as 1).
    public init(requestsPerSecond: Double, burst: Int = 1) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
    }
}
