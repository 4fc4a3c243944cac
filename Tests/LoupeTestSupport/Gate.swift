import LoupeCaching

/// A one-shot barrier: tasks wait until a test opens it. Lets a test hold a load in flight while
/// it arranges joins, cancellations and priorities around it. Waiting is cancellable, so a load
/// parked on a gate observes its own cancellation.
package final class Gate: Sendable {
    package init() {}
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Returns once the gate is open; throws `CancellationError` if the waiting task is cancelled.
    package func wait() async throws {
        let id = makeID()
        try await withTaskCancellationHandler {
            try await park(id, honouringCancellation: true)
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Returns once the gate is open, even if the waiting task is cancelled meanwhile: stands for
    /// work that does not check for cancellation.
    package func waitIgnoringCancellation() async {
        try? await park(makeID(), honouringCancellation: false)
    }

    private func makeID() -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    private func park(_ id: UInt64, honouringCancellation: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let resumeNow: Result<Void, any Error>? = state.withLock { state in
                if state.isOpen { return .success(()) }
                if honouringCancellation, Task.isCancelled { return .failure(CancellationError()) }
                state.waiters[id] = continuation
                return nil
            }
            if let resumeNow { continuation.resume(with: resumeNow) }
        }
    }

    /// Opens the gate for every current and future waiter.
    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    package var isOpen: Bool { state.withLock { $0.isOpen } }
}
