/// Runs one async operation per input, a bounded number at a time, and hands the outputs back in
/// input order (the poster feed: load every poster of a feed concurrently, keep the feed's order).
///
/// Generic over what goes in and what comes out — feed entries, URLs, requests — so it needs
/// nothing from images. Three ways to take the results:
///
/// - ``results(window:)``: an `AsyncSequence` of ``Item``s in input order, each delivered as
///   soon as it and every item before it are done; memory stays bounded however long the input.
/// - ``run(failurePolicy:progress:)``: every output at once, dropping failed items or failing
///   fast on the first failure.
/// - ``collectResults(progress:)``: every item's `Result`, in order.
///
/// In all three, at most ``maximumConcurrency`` operations run at once, and cancelling the task
/// that awaits the batch (or ending the iteration early) cancels the operations still running
/// and starts no more.
///
/// ```swift
/// let batch = OrderedBatch(feed, maximumConcurrency: 8) { entry in
///     try await pipeline.image(for: entry.posterURL)
/// }.map { entry, poster in
///     FeedCell(entry: entry, background: try poster.bitmap.dominantColor().backgroundColor)
/// }
/// let cells = try await batch.run(failurePolicy: .dropFailed)   // feed order, failed posters left out
/// ```
public struct OrderedBatch<Input: Sendable, Output: Sendable>: Sendable {
    /// One input's outcome, as the streamed form delivers it.
    public struct Item: Sendable {
        /// The input's position in ``OrderedBatch/inputs``.
        public let index: Int
        /// The input.
        public let input: Input
        /// What the operation returned or threw.
        public let result: Result<Output, any Error>

        /// The output, or `nil` if the operation failed.
        public var output: Output? { try? result.get() }
    }

    /// What ``run(failurePolicy:progress:)`` does when an operation fails.
    public enum FailurePolicy: Sendable, Hashable {
        /// Leave failed items out and return the others, in order (the poster feed).
        case dropFailed
        /// On the first failure, cancel what still runs, start nothing more and throw that
        /// failure's error.
        case failFast
    }

    /// The inputs, in the order their outputs are returned.
    public let inputs: [Input]
    /// At most this many operations run at once.
    public let maximumConcurrency: Int
    let operation: @Sendable (Input) async throws -> Output

    /// A batch running `operation` on each of `inputs`, at most `maximumConcurrency` (at least 1)
    /// at once. Nothing runs until its results are asked for.
    ///
    /// - Parameters:
    ///   - inputs: the inputs, in the order their outputs are returned.
    ///   - maximumConcurrency: at most this many operations run at once; less than 1 counts as 1.
    ///   - operation: the work for one input; what it throws fails that input's item.
    public init(
        _ inputs: [Input], maximumConcurrency: Int = 8,
        operation: @escaping @Sendable (Input) async throws -> Output
    ) {
        self.inputs = inputs
        self.maximumConcurrency = max(1, maximumConcurrency)
        self.operation = operation
    }

    /// The same batch with `transform` applied to each output as soon as it exists, inside the
    /// item's own concurrent work (the poster feed: poster → dominant colour → background colour). An
    /// error thrown by `transform` fails the item like an error of the operation.
    ///
    /// - Parameter transform: turns an input and its output into the new output; it runs concurrently,
    ///   as the operation does.
    /// - Returns: a batch with the same inputs and concurrency whose outputs are `transform`'s; nothing
    ///   runs until its results are asked for.
    public func map<NewOutput: Sendable>(
        _ transform: @escaping @Sendable (Input, Output) async throws -> NewOutput
    ) -> OrderedBatch<Input, NewOutput> {
        let operation = self.operation
        return OrderedBatch<Input, NewOutput>(inputs, maximumConcurrency: maximumConcurrency) { input in
            try await transform(input, operation(input))
        }
    }

    /// The items in input order, each as soon as it and every earlier item are done (item `k`
    /// waits only for items before `k`).
    ///
    /// Work starts when the iteration does. Ending the iteration early (`break`, or dropping the
    /// iterator) or cancelling the iterating task cancels the operations still running and starts
    /// no more; a cancelled iteration throws `CancellationError` from `next()`.
    ///
    /// - Parameter window: at most this many items are started and not yet delivered — at most
    ///   ``maximumConcurrency`` of them running, the others done and waiting for an earlier item
    ///   or for the consumer — so memory holds at most `window` outputs however many inputs and
    ///   however slow the consumer. A larger window lets more work pass one slow item. Default:
    ///   twice ``maximumConcurrency``; never less than it.
    /// - Returns: the items, as an `AsyncSequence` that runs the operations anew on each iteration.
    public func results(window: Int? = nil) -> Results {
        Results(batch: self, window: max(maximumConcurrency, window ?? 2 * maximumConcurrency))
    }

    /// Runs every operation and returns the outputs in input order.
    ///
    /// Runs on the caller's actor apart from the operations themselves, so `progress` can update
    /// the user interface directly; it is called once per finished item, in the order items finish.
    ///
    /// - Parameters:
    ///   - failurePolicy: what a failure does: ``FailurePolicy/dropFailed`` leaves its item out,
    ///     ``FailurePolicy/failFast`` cancels what still runs and throws.
    ///   - progress: called on the caller's actor after each item finishes, with the counts so far; by
    ///     default nothing.
    /// - Returns: the outputs of the operations that succeeded, in input order.
    /// - Throws: with ``FailurePolicy/failFast``, the first failing operation's error (unchanged);
    ///   `CancellationError` if the awaiting task was cancelled (what still ran was cancelled).
    nonisolated(nonsending)
    public func run(
        failurePolicy: FailurePolicy, progress: (OrderedBatchProgress) -> Void = { _ in }
    ) async throws -> [Output] {
        let (results, firstFailure) = await collect(failingFast: failurePolicy == .failFast, progress: progress)
        if failurePolicy == .failFast, let firstFailure { throw firstFailure }
        try Task.checkCancellation()
        return results.compactMap { $0.flatMap { try? $0.get() } }
    }

    /// Runs every operation and returns each item's result, in input order. Items not started
    /// because the awaiting task was cancelled fail with `CancellationError`.
    ///
    /// `progress` is called as in ``run(failurePolicy:progress:)``.
    ///
    /// - Parameter progress: called on the caller's actor after each item finishes, with the counts so
    ///   far; by default nothing.
    /// - Returns: one `Result` per input, in input order.
    nonisolated(nonsending)
    public func collectResults(progress: (OrderedBatchProgress) -> Void = { _ in }) async -> [Result<Output, any Error>] {
        await collect(failingFast: false, progress: progress).results.map { $0 ?? .failure(CancellationError()) }
    }

    /// Every item's result (`nil` for items never started) and the first failure, in the order
    /// items finished. A task group: its children are the operations, so cancelling the awaiting
    /// task cancels them, and the group returns only when none runs any more.
    nonisolated(nonsending)
    private func collect(
        failingFast: Bool, progress: (OrderedBatchProgress) -> Void
    ) async -> (results: [Result<Output, any Error>?], firstFailure: (any Error)?) {
        await withTaskGroup(of: (Int, Result<Output, any Error>).self) { group in
            var results = [Result<Output, any Error>?](repeating: nil, count: inputs.count)
            var firstFailure: (any Error)?
            var counts = OrderedBatchProgress(completed: 0, failed: 0, total: inputs.count)
            var started = 0
            // Starts the next input unless the batch is cancelled or has failed fast.
            func startNext(_ group: inout TaskGroup<(Int, Result<Output, any Error>)>) {
                guard started < inputs.count, firstFailure == nil || !failingFast else { return }
                let (index, input, operation) = (started, inputs[started], operation)
                if group.addTaskUnlessCancelled(operation: {
                    // Bound before the tuple is built: see `Result(awaiting:)`.
                    let result = await Result(awaiting: { try await operation(input) })
                    return (index, result)
                }) {
                    started += 1
                }
            }
            for _ in 0..<min(maximumConcurrency, inputs.count) { startNext(&group) }
            while let (index, result) = await group.next() {
                results[index] = result
                counts.completed += 1
                if case .failure(let error) = result {
                    counts.failed += 1
                    if firstFailure == nil {
                        firstFailure = error
                        if failingFast { group.cancelAll() }
                    }
                }
                progress(counts)
                startNext(&group)
            }
            return (results, firstFailure)
        }
    }
}

/// How far an ordered batch has come: items finished (either way), failed, and in all.
public struct OrderedBatchProgress: Sendable, Hashable {
    /// Items whose operation has finished, successfully or not.
    public var completed: Int
    /// Of those, the items whose operation failed.
    public var failed: Int
    /// Items in the batch.
    public var total: Int

    /// A progress of `completed` of `total` items, `failed` of them failed.
    ///
    /// - Parameters:
    ///   - completed: items whose operation has finished, successfully or not.
    ///   - failed: of those, the items whose operation failed.
    ///   - total: items in the batch.
    public init(completed: Int, failed: Int, total: Int) {
        self.completed = completed
        self.failed = failed
        self.total = total
    }

    /// `completed / total` (1 for an empty batch).
    public var fractionCompleted: Double { total == 0 ? 1 : Double(completed) / Double(total) }
}
