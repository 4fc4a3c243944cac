import Foundation

/// State behind a lock that a thread can wait on until it satisfies a condition: each
/// ``update(_:)`` wakes the waiters, which look again. What a test waits for (a child's line, its
/// exit) is then seen as soon as it happens, with no polling interval.
package final class ConditionLocked<State>: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: `state` is only read or written while `condition`'s
    // lock is held (every method takes it first), and it enters through a `sending` parameter
    // and leaves only as copies made under the lock, as with `Locked`.
    private let condition = NSCondition()
    private var state: State

    /// Guards `initialState`.
    package init(_ initialState: sending State) {
        state = initialState
    }

    /// Changes the state and wakes every waiter.
    package func update(_ body: (inout State) -> Void) {
        condition.lock()
        body(&state)
        condition.broadcast()
        condition.unlock()
    }

    /// A value read from the state.
    package func read<T>(_ body: (State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(state)
    }

    /// Blocks the calling thread until `satisfied` holds (checked now and after each update; it
    /// may change the state it accepts) or `deadline` passes; returns the state then and whether
    /// `satisfied` held.
    package func wait(until deadline: ContinuousClock.Instant, for satisfied: (inout State) -> Bool) -> (satisfied: Bool, state: State) {
        condition.lock()
        defer { condition.unlock() }
        // Bounded: every round ends at an update or at the deadline, which the check below ends.
        while !satisfied(&state) {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return (false, state) }
            let (seconds, attoseconds) = remaining.components
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18))
        }
        return (true, state)
    }
}
