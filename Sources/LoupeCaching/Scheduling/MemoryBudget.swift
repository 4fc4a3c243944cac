/// Bytes of memory shared by work that holds them while it waits for something else (data
/// downloaded and not yet decoded, a decode's pixels), so that a burst of work cannot take a
/// process past its memory: past the limit, new work waits for memory to be released, first
/// come, first served.
///
/// Two ways to take memory: ``reserve(_:arrival:)`` waits until the bytes fit (work that has not
/// started, such as a download), ``reserveNow(_:)`` takes them at once even past the limit (work
/// already committed, such as a decode on its worker, which must not wait for memory that only
/// its own end releases). A waiter whose bytes do not fit while nothing is held is let in anyway:
/// one piece of work larger than the whole budget runs alone rather than never.
///
/// Generic: it counts bytes and knows nothing of what they hold.
public final class MemoryBudget: Sendable {
    private struct Waiter {
        let sequence: UInt64
        /// Earlier arrivals are served first; `nil` waits behind every arrival, in call order.
        let arrival: UInt64?
        let bytes: Int
        let continuation: CheckedContinuation<Void, any Error>

        /// Whether `self` is served before `other`.
        func precedes(_ other: Waiter) -> Bool {
            switch (arrival, other.arrival) {
            case let (mine?, theirs?) where mine != theirs: mine < theirs
            case (_?, nil): true
            case (nil, _?): false
            default: sequence < other.sequence
            }
        }
    }

    private struct State {
        var inUse = 0
        var nextSequence: UInt64 = 0
        /// In the order they are served.
        var waiters: [Waiter] = []
        /// A moving average of what reservations turned out to need (``MemoryReservation/settle(to:)``).
        var typicalSize: Double?
    }

    /// The bytes that may be held before new reservations wait.
    public let limit: Int
    private let state = Locked(State())

    /// A budget of `limit` bytes (at least one).
    ///
    /// - Parameter limit: the bytes that may be held before new reservations wait; values below 1
    ///   count as 1.
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Bytes held now (may pass ``limit`` through ``reserveNow(_:)``).
    public var inUse: Int { state.withLock { $0.inUse } }

    /// Reservations waiting for memory now.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// What a reservation usually turns out to need, from the last ones settled; `fallback`
    /// before any was.
    package func typicalSize(fallback: Int) -> Int {
        state.withLock { state in state.typicalSize.map { Int($0.rounded(.up)) } ?? fallback }
    }

    /// Waits until `bytes` fit under the limit (or nothing is held) and nobody who came earlier
    /// waits, then holds them until the reservation is released or dropped.
    ///
    /// - Parameter arrival: the caller's place in line (lower first); `nil` queues behind every
    ///   caller with one, in call order.
    /// - Throws: `CancellationError` if the task is cancelled while waiting (nothing is held).
    package func reserve(_ bytes: Int, arrival: UInt64?) async throws -> MemoryReservation {
        let bytes = max(0, bytes)
        let sequence: UInt64? = state.withLock { state in
            if state.waiters.isEmpty, fits(bytes, state) {
                state.inUse += bytes
                return nil
            }
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
        guard let sequence else { return MemoryReservation(budget: self, bytes: bytes) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    // Checked under the lock: the cancellation handler may already have run
                    // and found nothing to remove.
                    if Task.isCancelled { return true }
                    let waiter = Waiter(sequence: sequence, arrival: arrival, bytes: bytes, continuation: continuation)
                    let index = state.waiters.firstIndex { waiter.precedes($0) } ?? state.waiters.endIndex
                    state.waiters.insert(waiter, at: index)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) } else { grant() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.sequence == sequence }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
            // The head may have been the one blocking those behind it.
            if waiter != nil { grant() }
        }
        return MemoryReservation(budget: self, bytes: bytes)
    }

    /// Holds `bytes` at once, past the limit if need be, until the reservation is released or
    /// dropped.
    package func reserveNow(_ bytes: Int) -> MemoryReservation {
        let bytes = max(0, bytes)
        state.withLock { $0.inUse += bytes }
        return MemoryReservation(budget: self, bytes: bytes)
    }

    /// Changes what a reservation holds by `delta` bytes, without waiting.
    fileprivate func adjust(by delta: Int) {
        state.withLock { $0.inUse += delta }
        if delta < 0 { grant() }
    }

    /// Records what a reservation turned out to need, for ``typicalSize(fallback:)``.
    fileprivate func noteSettled(_ bytes: Int) {
        state.withLock { state in
            // Weighted towards recent sizes, smoothed over about ten.
            state.typicalSize = state.typicalSize.map { $0 * 0.9 + Double(bytes) * 0.1 } ?? Double(bytes)
        }
    }

    private func fits(_ bytes: Int, _ state: State) -> Bool {
        state.inUse == 0 || state.inUse + bytes <= limit
    }

    /// Lets in waiters from the head of the line while they fit; one that does not fit holds
    /// back those behind it (first come, first served).
    private func grant() {
        let granted = state.withLock { state -> [Waiter] in
            var granted: [Waiter] = []
            while let first = state.waiters.first, fits(first.bytes, state) {
                state.inUse += first.bytes
                granted.append(state.waiters.removeFirst())
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume() }
    }
}

/// Bytes held in a ``MemoryBudget``: released by ``release()`` or when the last reference to it
/// goes away (it travels with the data it stands for, however many stages share that data).
package final class MemoryReservation: Sendable {
    private let budget: MemoryBudget
    private let bytes: Locked<Int?>

    fileprivate init(budget: MemoryBudget, bytes: Int) {
        self.budget = budget
        self.bytes = Locked(bytes)
    }

    /// Bytes held now (0 once released).
    package var heldBytes: Int { bytes.withLock { $0 ?? 0 } }

    /// Holds `actual` bytes instead of the estimate reserved, at once (the work it stands for has
    /// already taken them), and records `actual` as what such work needs.
    package func settle(to actual: Int) {
        let actual = max(0, actual)
        let delta = bytes.withLock { held -> Int in
            guard let current = held else { return 0 }
            held = actual
            return actual - current
        }
        budget.noteSettled(actual)
        if delta != 0 { budget.adjust(by: delta) }
    }

    /// Gives the bytes back; later calls do nothing.
    package func release() {
        let held = bytes.withLock { $0.take() }
        if let held, held > 0 { budget.adjust(by: -held) }
    }

    deinit {
        release()
    }
}
