import Synchronization
@testable import LoupeCaching

/// A one-shot barrier: tasks wait until a test opens it. Lets a test hold a load in flight while
/// it arranges joins, cancellations and priorities around it. Waiting is cancellable, so a load
/// parked on a gate observes its own cancellation.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Returns once the gate is open; throws `CancellationError` if the waiting task is cancelled.
    func wait() async throws {
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
    func waitIgnoringCancellation() async {
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
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }
}

/// A thread-safe counter for "how many times did the load run".
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult
    func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Something observed inside a load (a priority, a cancellation), for the test to read afterwards.
final class Recorder<T: Sendable>: Sendable {
    private let values = Locked<[T]>([])
    func record(_ value: T) { values.withLock { $0.append(value) } }
    var all: [T] { values.withLock { $0 } }
}

/// Polls `condition` until it holds, yielding between tries; bounded so a broken test fails
/// instead of hanging.
func eventually(
    timeout: Duration = .seconds(30),
    _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}
