import LoupeCaching

/// A moving average of the time the service spends per request, from requests that finished
/// their work: what the admission gate multiplies by the line ahead of a new request to judge
/// whether it can finish before its deadline.
///
/// Weighted towards recent requests (each new one counts a fifth), so that it follows a change
/// of load or of sources within a few requests, and no single slow request decides it.
final class ServiceTimeEstimate: Sendable {
    private let seconds = Locked<Double?>(nil)

    /// Seconds per request now; `nil` before any request finished (nothing is refused then).
    var secondsPerRequest: Double? { seconds.withLock { $0 } }

    /// Counts one request's time (seconds).
    func record(_ sample: Double) {
        guard sample.isFinite, sample >= 0 else { return }
        seconds.withLock { value in
            value = value.map { $0 * 0.8 + sample * 0.2 } ?? sample
        }
    }
}
