import LoupeCaching
import LoupeLoading
import Synchronization

/// Who follows each data load as it runs — its byte progress, or its bytes for progressive
/// previews: every request waiting for that data, however many share the load, so a request
/// that joins a running download follows it too.
final class DataLoadObservers<Observer: Sendable>: Sendable {
    struct Observation: Sendable {
        let key: ImagePipeline.StageKey
        let id: UInt64
    }

    private struct State {
        var nextID: UInt64 = 0
        var observers: [ImagePipeline.StageKey: [UInt64: Observer]] = [:]
    }

    private let state = Locked(State())
    /// How many observers exist, any key: a load reports each chunk of its body, and most
    /// loads have no observer at all, so they skip the lock and the key's hashing.
    private let observerCount = Atomic<Int>(0)

    /// Whether no load has an observer.
    var isEmpty: Bool { observerCount.load(ordering: .relaxed) == 0 }

    func add(_ observer: Observer, for key: ImagePipeline.StageKey) -> Observation {
        observerCount.add(1, ordering: .relaxed)
        return state.withLock { state in
            defer { state.nextID += 1 }
            state.observers[key, default: [:]][state.nextID] = observer
            return Observation(key: key, id: state.nextID)
        }
    }

    func remove(_ observation: Observation) {
        observerCount.subtract(1, ordering: .relaxed)
        state.withLock { state in
            state.observers[observation.key]?[observation.id] = nil
            if state.observers[observation.key]?.isEmpty == true { state.observers[observation.key] = nil }
        }
    }

    /// Hands everyone observing `key` to `tell`, outside the lock.
    func notify(_ key: ImagePipeline.StageKey, _ tell: (Observer) -> Void) {
        guard observerCount.load(ordering: .relaxed) > 0 else { return }
        let observers = state.withLock { $0.observers[key].map { Array($0.values) } ?? [] }
        for observer in observers { tell(observer) }
    }
}
