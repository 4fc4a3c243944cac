import LoupeCaching

extension OrderedBatch {
    /// The items of a batch in input order, each delivered as soon as it and every earlier item
    /// are done (see ``OrderedBatch/results(window:)``). Each iteration runs the operations anew.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Item
        public typealias Failure = CancellationError

        let batch: OrderedBatch
        let window: Int

        public func makeAsyncIterator() -> Iterator {
            Iterator(owner: IterationOwner(OrderedBatchIteration(batch: batch, window: window)))
        }
    }

    /// Iterates ``Results``; dropping it before the end cancels the work still running.
    public struct Iterator: AsyncIteratorProtocol {
        let owner: IterationOwner

        /// The next item in input order; `nil` after the last.
        ///
        /// - Throws: `CancellationError` once the iterating task is cancelled (the remaining
        ///   work is cancelled with it).
        public mutating func next() async throws(CancellationError) -> Item? {
            try await owner.iteration.next()
        }

        /// The next item in input order; `nil` after the last.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CancellationError) -> Item? {
            try await owner.iteration.next()
        }
    }

    /// Held only by iterators: when the last copy of an iterator goes away, the iteration is
    /// over, and whatever still runs is cancelled. The operations' tasks hold the iteration,
    /// never this, so they cannot keep it alive.
    final class IterationOwner: Sendable {
        let iteration: OrderedBatchIteration<Input, Output>

        init(_ iteration: OrderedBatchIteration<Input, Output>) {
            self.iteration = iteration
        }

        deinit { iteration.cancel() }
    }
}

/// One iteration of an ordered batch's results: starts operations as slots and the window
/// allow, keeps finished ones until every earlier one is delivered, and hands them to the one
/// consumer in order.
///
/// Each operation runs in its own task (a sequence's iterator cannot hold a task group across
/// `next()` calls); all of them are cancelled when the consumer is cancelled or leaves.
final class OrderedBatchIteration<Input: Sendable, Output: Sendable>: Sendable {
    typealias Item = OrderedBatch<Input, Output>.Item

    private let batch: OrderedBatch<Input, Output>
    private let window: Int
    private let state = Locked(State())

    private enum Delivery: Sendable {
        case item(Item)
        case end
        case cancelled
    }

    private struct State {
        /// Inputs below this index have been started.
        var nextToStart = 0
        /// Inputs below this index have been delivered.
        var nextToDeliver = 0
        var running = 0
        /// Finished and not yet delivered, by index.
        var finished: [Int: Result<Output, any Error>] = [:]
        /// The tasks of running operations, to cancel them.
        var tasks: [Int: Task<Void, Never>] = [:]
        /// The consumer, while it waits for the next item.
        var waiter: CheckedContinuation<Delivery, Never>?
        var isCancelled = false
    }

    init(batch: OrderedBatch<Input, Output>, window: Int) {
        self.batch = batch
        self.window = window
    }

    /// The next item, waiting for it if needed; starts the work on the first call.
    nonisolated(nonsending)
    func next() async throws(CancellationError) -> Item? {
        startOperations()
        let delivery = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                let now = state.withLock { state -> Delivery? in
                    if state.nextToDeliver == batch.inputs.count { return .end }
                    // Checked under the lock: the cancellation handler may have run already.
                    if state.isCancelled || Task.isCancelled { return .cancelled }
                    if let item = takeNext(&state) { return .item(item) }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            cancel()
        }
        switch delivery {
        case .item(let item):
            // One more delivered: the window has moved, maybe a slot is free.
            startOperations()
            return item
        case .end:
            return nil
        case .cancelled:
            cancel()
            throw CancellationError()
        }
    }

    /// Cancels every running operation and starts no more; a waiting consumer gets
    /// `CancellationError`.
    func cancel() {
        let (tasks, waiter) = state.withLock { state in
            state.isCancelled = true
            defer {
                state.tasks.removeAll()
                state.waiter = nil
            }
            return (Array(state.tasks.values), state.waiter)
        }
        for task in tasks { task.cancel() }
        waiter?.resume(returning: .cancelled)
    }

    /// The next item in order, if it is done.
    private func takeNext(_ state: inout State) -> Item? {
        let index = state.nextToDeliver
        guard let result = state.finished.removeValue(forKey: index) else { return nil }
        state.nextToDeliver += 1
        return Item(index: index, input: batch.inputs[index], result: result)
    }

    /// Starts as many operations as free slots and the window allow.
    private func startOperations() {
        let indices = state.withLock { state -> Range<Int> in
            guard !state.isCancelled else { return 0..<0 }
            let windowEnd = state.nextToDeliver + min(window, batch.inputs.count)
            let end = min(batch.inputs.count, windowEnd, state.nextToStart + batch.maximumConcurrency - state.running)
            guard end > state.nextToStart else { return 0..<0 }
            defer { state.nextToStart = end }
            state.running += end - state.nextToStart
            return state.nextToStart..<end
        }
        for index in indices {
            let task = Task { [self] in await runOperation(index) }
            // Kept to cancel it — unless it already finished, or the iteration was cancelled
            // meanwhile (then it is cancelled here; harmless if it finished).
            let kept = state.withLock { state -> Bool in
                guard !state.isCancelled, index >= state.nextToDeliver, state.finished[index] == nil else { return false }
                state.tasks[index] = task
                return true
            }
            if !kept { task.cancel() }
        }
    }

    private func runOperation(_ index: Int) async {
        let result = await Result(awaiting: { try await batch.operation(batch.inputs[index]) })
        let (waiter, item) = state.withLock { state -> (CheckedContinuation<Delivery, Never>?, Item?) in
            state.running -= 1
            state.tasks[index] = nil
            state.finished[index] = result
            guard let waiter = state.waiter, let item = takeNext(&state) else { return (nil, nil) }
            state.waiter = nil
            return (waiter, item)
        }
        if let waiter, let item { waiter.resume(returning: .item(item)) }
        startOperations()
    }
}
