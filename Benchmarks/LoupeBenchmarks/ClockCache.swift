import LoupeCaching

/// A minimal CLOCK (second-chance) cache with a count limit, on the same slot-array layout and
/// lock as `MemoryCache`: built only to measure CLOCK against the LRU that `MemoryCache` uses.
final class ClockCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Slot {
        var key: Key
        var value: Value
        var referenced: Bool
    }

    private struct State {
        let capacity: Int
        var index: [Key: Int] = [:]
        var slots: [Slot] = []
        var hand = 0
    }

    private let state: Locked<State>

    init(capacity: Int) {
        state = Locked(State(capacity: capacity))
    }

    func value(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let slot = state.index[key] else { return nil }
            state.slots[slot].referenced = true
            return state.slots[slot].value
        }
    }

    func setValue(_ value: Value, forKey key: Key) {
        state.withLock { state in
            if let slot = state.index[key] {
                state.slots[slot].value = value
                state.slots[slot].referenced = true
                return
            }
            guard state.slots.count >= state.capacity else {
                state.index[key] = state.slots.count
                state.slots.append(Slot(key: key, value: value, referenced: false))
                return
            }
            // Sweep: clear reference bits until an unreferenced victim; bounded by two turns.
            for _ in 0..<(2 * state.capacity) {
                if !state.slots[state.hand].referenced { break }
                state.slots[state.hand].referenced = false
                state.hand = (state.hand + 1) % state.capacity
            }
            let victim = state.hand
            state.index[state.slots[victim].key] = nil
            state.slots[victim] = Slot(key: key, value: value, referenced: false)
            state.index[key] = victim
            state.hand = (state.hand + 1) % state.capacity
        }
    }
}
