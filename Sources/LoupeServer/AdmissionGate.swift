import Synchronization

/// Bounds the requests doing image work: `workers` run, `queueLength` wait, and any beyond are
/// refused at once (429) rather than queued without bound.
final class AdmissionGate: Sendable {
    let capacity: Int
    private let admitted = Atomic<Int>(0)

    init(workers: Int, queueLength: Int) {
        capacity = workers + queueLength
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
}
