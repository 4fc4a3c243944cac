import LoupeCaching
import LoupeLoading
import Synchronization

/// Who wants the byte progress of each data load: every request waiting for that data, however
/// many share the load, so a request that joins a running download also sees its progress.
final class ProgressObservers: Sendable {
    struct Observation: Sendable {
        let key: ImagePipeline.StageKey
        let id: UInt64
    }

    private struct State {
        var nextID: UInt64 = 0
        var observers: [ImagePipeline.StageKey: [UInt64: DataLoadingProgress]] = [:]
    }

    private let state = Locked(State())
    /// How many observers exist, any key: a load reports each chunk of its body, and most
    /// loads have no observer at all, so they skip the lock and the key's hashing.
    private let observerCount = Atomic<Int>(0)

    func add(_ observer: @escaping DataLoadingProgress, for key: ImagePipeline.StageKey) -> Observation {
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

    /// Tells everyone observing `key`; the observers run outside the lock.
    func notify(_ key: ImagePipeline.StageKey, received: Int, expected: Int?) {
        guard observerCount.load(ordering: .relaxed) > 0 else { return }
        let observers = state.withLock { $0.observers[key].map { Array($0.values) } ?? [] }
        for observer in observers { observer(received, expected) }
    }
}
