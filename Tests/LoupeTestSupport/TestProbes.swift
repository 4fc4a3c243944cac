import LoupeCaching
import Synchronization

/// A thread-safe counter for "how many times did the load run".
package final class Counter: Sendable {
    package init() {}
    private let value = Atomic<Int>(0)
    @discardableResult
    package func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    package var count: Int { value.load(ordering: .relaxed) }
}

/// Something observed inside a load (a priority, a cancellation), for the test to read afterwards.
package final class Recorder<T: Sendable>: Sendable {
    package init() {}
    private let values = Locked<[T]>([])
    package func record(_ value: T) { values.withLock { $0.append(value) } }
    package var all: [T] { values.withLock { $0 } }
}

/// How many operations run at once, and the most that ever did: checks a concurrency bound over
/// a whole run, instead of sleeping and looking once.
package final class HighWaterMark: Sendable {
    package init() {}
    private let state = Locked((current: 0, maximum: 0))

    /// An operation starts.
    package func enter() {
        state.withLock { state in
            state.current += 1
            state.maximum = max(state.maximum, state.current)
        }
    }

    /// An operation ends.
    package func leave() { state.withLock { $0.current -= 1 } }

    /// The most that ran at once so far.
    package var maximum: Int { state.withLock { $0.maximum } }
}
