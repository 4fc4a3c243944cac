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
