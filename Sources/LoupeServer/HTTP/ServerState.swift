import Synchronization

/// What the HTTP layer needs to know about the process: whether it is draining (`/health`
/// answers 503 then, so a load balancer stops sending).
final class ServerState: Sendable {
    private let draining = Atomic<Bool>(false)

    var isDraining: Bool { draining.load(ordering: .acquiring) }

    func startDraining() { draining.store(true, ordering: .releasing) }
}
