import Synchronization

/// Bounds the requests doing image work and gives each its place in line: `workers` run,
/// `queueLength` wait (downloading, or waiting for memory or a worker), and any beyond are
/// refused at once (429) rather than queued without bound. A request that would not start
/// before its deadline, judged from the requests ahead of it and the recent time per request,
/// is refused at once too, instead of holding a connection and memory until it times out.
///
/// Admitted requests are numbered in arrival order; the number travels with the request's work
/// (its ``LoupeCaching/LoadPriority``) so that every stage serves them first come, first served.
final class AdmissionGate: Sendable {
    /// Why a request was refused, as `/metrics` counts it.
    enum Refusal: String, Sendable, CaseIterable {
        /// `workers + queueLength` requests were already in.
        case queueFull = "queue_full"
        /// The work ahead would take it past its deadline.
        case deadline
    }

    /// One admitted request: its place in line and what its outcome teaches the estimate.
    struct Ticket: Sendable {
        /// Arrival order among admitted requests (lower came first).
        let arrival: UInt64
        /// Requests admitted before it and not finished when it arrived.
        let ahead: Int
        let admittedAt: ContinuousClock.Instant
    }

    let capacity: Int
    let workers: Int
    private let admitted = Atomic<Int>(0)
    private let nextArrival = Atomic<UInt64>(0)
    /// Seconds per request while requests queue: how fast the line moves.
    let serviceTime = ServiceTimeEstimate()

    init(workers: Int, queueLength: Int) {
        self.workers = max(1, workers)
        capacity = self.workers + max(0, queueLength)
    }

    /// Requests admitted and not yet finished.
    var count: Int { admitted.load(ordering: .relaxed) }

    /// Admits one request, or returns false when `capacity` are already in.
    func enter() -> Bool {
        var current = admitted.load(ordering: .relaxed)
        while current < capacity {
            let (exchanged, original) = admitted.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Ends an admitted request.
    func leave() {
        admitted.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Admits a request that must finish within `deadline`, or says why not: the line is full,
    /// or the requests ahead of it would take it past the deadline (with the seconds after which
    /// a retry may fit). An admitted request must be ended with ``leave(_:completedWork:)``.
    func admit(deadline: Duration) -> Result<Ticket, RefusedRequest> {
        let admittedAt = ContinuousClock.now
        let ahead = count
        if let perRequest = serviceTime.secondsPerRequest {
            // Its own work counts too: it must finish, not only start, before the deadline.
            let estimate = Double(ahead + 1) * perRequest
            let limit = Self.seconds(deadline)
            if estimate > limit {
                // By then enough of the line ahead has gone for a request to fit.
                let retryAfter = Int((estimate - limit).rounded(.up))
                return .failure(RefusedRequest(reason: .deadline, retryAfter: min(max(retryAfter, 1), 60)))
            }
        }
        guard enter() else { return .failure(RefusedRequest(reason: .queueFull, retryAfter: 1)) }
        return .success(Ticket(arrival: takeArrival(), ahead: ahead, admittedAt: admittedAt))
    }

    /// The next place in line: for admitted requests, and for work that shares the stages
    /// without admission (batch items), which must not wait behind everything that comes later.
    func takeArrival() -> UInt64 {
        nextArrival.add(1, ordering: .relaxed).newValue
    }

    /// Ends an admitted request; one that did its work (not refused, failed or abandoned along
    /// the way) teaches the estimate how long a request takes in line.
    func leave(_ ticket: Ticket, completedWork: Bool) {
        leave()
        guard completedWork else { return }
        // In a first-come, first-served line a request finishes after the ones ahead of it and
        // itself: its time in the system divided by their number is the time the line spends
        // per request (a lone request's whole time, a queued one's share of the throughput).
        let sojourn = Self.seconds(ticket.admittedAt.duration(to: .now))
        serviceTime.record(sojourn / Double(ticket.ahead + 1))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}

/// A request the gate turned away: why, and when to retry.
struct RefusedRequest: Error, Sendable {
    let reason: AdmissionGate.Refusal
    /// Seconds, for `Retry-After`.
    let retryAfter: Int

    /// The service's answer.
    var serviceError: ServiceError {
        switch reason {
        case .queueFull: ServiceError.queueFull
        case .deadline:
            ServiceError(429, "overloaded", "the requests ahead would take this one past its deadline; retry later",
                         retryAfter: retryAfter)
        }
    }
}
