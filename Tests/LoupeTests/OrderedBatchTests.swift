import Foundation
import LoupeCaching
import LoupeTestSupport
import Testing
@testable import Loupe

/// Operations of a batch as the test sees them: how many started, ran at once, were cancelled.
final class OperationProbe: Sendable {
    private struct State {
        var running = 0
        var maximumRunning = 0
        var started: [Int] = []
        var cancelled = 0
    }

    private let state = Locked(State())

    var maximumRunning: Int { state.withLock { $0.maximumRunning } }
    var running: Int { state.withLock { $0.running } }
    var started: [Int] { state.withLock { $0.started } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    /// Runs `body` for input `index`, counting it as running meanwhile, and as cancelled if it
    /// throws `CancellationError`.
    func run<T>(_ index: Int, _ body: () async throws -> T) async throws -> T {
        state.withLock { state in
            state.running += 1
            state.maximumRunning = max(state.maximumRunning, state.running)
            state.started.append(index)
        }
        defer { state.withLock { $0.running -= 1 } }
        do {
            return try await body()
        } catch is CancellationError {
            state.withLock { $0.cancelled += 1 }
            throw CancellationError()
        }
    }
}

/// The failure the tests' operations throw.
struct ItemFailed: Error, Equatable {
    let index: Int
}


/// Ordered batches (the poster feed): input order under any timing, the concurrency bound, the failure
/// policies, progress, cancellation, and the streamed form.
@Suite struct OrderedBatchTests {
    /// Inputs 0..<count, each sleeping a random 0–4 ms (seeded) and returning its square.
    func randomLatencyBatch(count: Int, seed: UInt64, concurrency: Int, probe: OperationProbe) -> OrderedBatch<Int, Int> {
        var generator = SplitMix64(seed: seed)
        let delays = (0..<count).map { _ in Int.random(in: 0...4_000, using: &generator) }
        return OrderedBatch(Array(0..<count), maximumConcurrency: concurrency) { index in
            try await probe.run(index) {
                try await Task.sleep(for: .microseconds(delays[index]))
                return index * index
            }
        }
    }

    @Test(arguments: [1, 3, 8])
    func outputsKeepInputOrderUnderRandomLatenciesAndTheBoundHolds(concurrency: Int) async throws {
        let probe = OperationProbe()
        let batch = randomLatencyBatch(count: 60, seed: UInt64(concurrency), concurrency: concurrency, probe: probe)
        let outputs = try await batch.run(failurePolicy: .failFast)
        #expect(outputs == (0..<60).map { $0 * $0 })
        #expect(probe.maximumRunning <= concurrency)
        #expect(probe.started.count == 60)

        let streamProbe = OperationProbe()
        var streamed: [Int] = []
        for try await item in randomLatencyBatch(count: 60, seed: 99, concurrency: concurrency, probe: streamProbe).results() {
            #expect(item.index == streamed.count && item.input == item.index)
            streamed.append(try item.result.get())
        }
        #expect(streamed == (0..<60).map { $0 * $0 })
        #expect(streamProbe.maximumRunning <= concurrency)
    }

    @Test func exactlyTheBoundRunsAtOnce() async throws {
        let gate = Gate()
        let probe = OperationProbe()
        let batch = OrderedBatch(Array(0..<10), maximumConcurrency: 3) { index in
            try await probe.run(index) {
                try await gate.wait()
                return index
            }
        }
        let run = Task { try await batch.run(failurePolicy: .failFast) }
        #expect(await eventually { probe.running == 3 })
        #expect(probe.started.sorted() == [0, 1, 2], "the first three")
        gate.open()
        #expect(try await run.value == Array(0..<10))
        // None of the three ends before the gate opens, so a fourth started while they ran
        // would have made four run at once.
        #expect(probe.maximumRunning == 3)
    }

    @Test func dropFailedLeavesFailedItemsOutInOrder() async throws {
        let batch = OrderedBatch(Array(0..<20), maximumConcurrency: 4) { index in
            try await Task.sleep(for: .microseconds((index * 7_919) % 3_000))
            if index % 3 == 0 { throw ItemFailed(index: index) }
            return "item \(index)"
        }
        var reports: [OrderedBatchProgress] = []
        let outputs = try await batch.run(failurePolicy: .dropFailed) { reports.append($0) }
        #expect(outputs == (0..<20).filter { $0 % 3 != 0 }.map { "item \($0)" })
        #expect(reports.map(\.completed) == Array(1...20))
        #expect(reports.last == OrderedBatchProgress(completed: 20, failed: 7, total: 20))
        #expect(reports.last?.fractionCompleted == 1)
        #expect(reports.map(\.failed) == reports.map(\.failed).sorted(), "failures only ever add up")
    }

    @Test func failFastThrowsTheFirstFailureAndCancelsTheRest() async throws {
        let gate = Gate()
        let probe = OperationProbe()
        let batch = OrderedBatch(Array(0..<10), maximumConcurrency: 4) { index in
            try await probe.run(index) {
                if index == 2 { throw ItemFailed(index: 2) }
                try await gate.wait() // the others wait until cancelled
                return index
            }
        }
        await #expect(throws: ItemFailed(index: 2)) { try await batch.run(failurePolicy: .failFast) }
        #expect(probe.started.sorted() == [0, 1, 2, 3], "the first four, none after the failure")
        #expect(probe.cancelled == 3, "every other started item was cancelled")
        #expect(probe.running == 0)
    }

    @Test func collectResultsGivesEveryItemsResultInOrder() async throws {
        let batch = OrderedBatch(Array(0..<12), maximumConcurrency: 5) { index in
            try await Task.sleep(for: .microseconds((12 - index) * 300))
            if index.isMultiple(of: 4) { throw ItemFailed(index: index) }
            return index * 10
        }
        var progress: [OrderedBatchProgress] = []
        let results = await batch.collectResults { progress.append($0) }
        #expect(results.count == 12)
        for (index, result) in results.enumerated() {
            if index.isMultiple(of: 4) {
                #expect(throws: ItemFailed(index: index)) { try result.get() }
            } else {
                #expect(try result.get() == index * 10)
            }
        }
        #expect(progress.count == 12 && progress.last == OrderedBatchProgress(completed: 12, failed: 3, total: 12))
    }

    @Test func mapTransformsEachOutputAndItsErrorsFailTheItem() async throws {
        let batch = OrderedBatch(["1", "2", "x", "4"], maximumConcurrency: 2) { text in text }
            .map { text, _ in
                guard let value = Int(text) else { throw ItemFailed(index: -1) }
                return value * 2
            }
        #expect(try await batch.run(failurePolicy: .dropFailed) == [2, 4, 8])
        await #expect(throws: ItemFailed(index: -1)) { try await batch.run(failurePolicy: .failFast) }
        #expect(try await OrderedBatch([Int](), operation: { $0 }).run(failurePolicy: .failFast) == [])
    }

    @Test(arguments: [OrderedBatch<Int, Int>.FailurePolicy.dropFailed, .failFast])
    func cancellingTheBatchCancelsWhatRunsAndStartsNoMore(policy: OrderedBatch<Int, Int>.FailurePolicy) async throws {
        let gate = Gate()
        let probe = OperationProbe()
        let batch = OrderedBatch(Array(0..<20), maximumConcurrency: 4) { index in
            try await probe.run(index) {
                try await gate.wait()
                return index
            }
        }
        let run = Task { try await batch.run(failurePolicy: policy) }
        #expect(await eventually { probe.running == 4 })
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        #expect(probe.started.sorted() == [0, 1, 2, 3], "nothing started after the cancellation")
        #expect(probe.cancelled == 4)
        #expect(probe.running == 0)
    }

    @Test func cancelledCollectResultsMarksUnstartedItemsCancelled() async throws {
        let gate = Gate()
        let probe = OperationProbe()
        let batch = OrderedBatch(Array(0..<6), maximumConcurrency: 2) { index in
            try await probe.run(index) {
                try await gate.wait()
                return index
            }
        }
        let run = Task { await batch.collectResults() }
        #expect(await eventually { probe.running == 2 })
        run.cancel()
        let results = await run.value
        #expect(results.count == 6)
        for result in results { #expect(throws: CancellationError.self) { try result.get() } }
        #expect(probe.started.sorted() == [0, 1] && probe.cancelled == 2)
    }

    // MARK: - Streamed

    @Test func theStreamDeliversEarlyItemsBeforeASlowLaterOneFinishes() async throws {
        let slow = Gate()
        let batch = OrderedBatch(Array(0..<10), maximumConcurrency: 8) { index in
            if index == 5 { try await slow.wait() }
            return index
        }
        var iterator = batch.results().makeAsyncIterator()
        for expected in 0..<5 {
            let item = try await iterator.next()
            #expect(item?.index == expected && item?.output == expected)
        }
        #expect(!slow.isOpen, "items 0-4 came while item 5 was still running")
        slow.open()
        var rest: [Int] = []
        while let item = try await iterator.next() { rest.append(try item.result.get()) }
        #expect(rest == Array(5..<10))
        #expect(try await iterator.next()?.index == nil)
    }

    @Test func anEmptyStreamEndsAtOnce() async throws {
        var iterator = OrderedBatch([Int](), operation: { $0 }).results().makeAsyncIterator()
        #expect(try await iterator.next()?.index == nil)
    }

    @Test func theStreamCarriesFailuresAsResultsInOrder() async throws {
        let batch = OrderedBatch(Array(0..<6), maximumConcurrency: 3) { index in
            if index == 1 || index == 4 { throw ItemFailed(index: index) }
            return index
        }
        var outcomes: [String] = []
        for try await item in batch.results() {
            switch item.result {
            case .success(let value): outcomes.append("\(value)")
            case .failure(let error): outcomes.append("failed \((error as? ItemFailed)?.index ?? -1)")
            }
        }
        #expect(outcomes == ["0", "failed 1", "2", "3", "failed 4", "5"])
    }

    @Test func theStreamStartsNoFurtherThanItsWindowPastASlowItem() async throws {
        let slow = Gate()
        let probe = OperationProbe()
        let batch = OrderedBatch(Array(0..<50), maximumConcurrency: 2) { index in
            try await probe.run(index) {
                if index == 0 { try await slow.wait() }
                return index
            }
        }
        let first = Task {
            var iterator = batch.results(window: 5).makeAsyncIterator()
            return try await iterator.next()?.index
        }
        // Item 0 holds one slot; items 1-4 pass through the other; then the window is full.
        #expect(await eventually { probe.started.count == 5 && probe.running == 1 })
        // What must not happen (a sixth start) has no event to wait for: a short, bounded pause
        // gives it the time it would take, then the count is checked.
        try await Task.sleep(for: .milliseconds(50))
        #expect(probe.started.count == 5, "at most the window's five items started and not delivered")
        slow.open()
        #expect(try await first.value == 0)
    }

    @Test func breakingOutOfTheStreamCancelsTheRemainingWork() async throws {
        let gate = Gate()
        let probe = OperationProbe()
        let batch = OrderedBatch(Array(0..<40), maximumConcurrency: 4) { index in
            try await probe.run(index) {
                if index >= 2 { try await gate.wait() }
                return index
            }
        }
        var seen: [Int] = []
        for try await item in batch.results() {
            seen.append(item.index)
            if seen.count == 2 { break }
        }
        #expect(seen == [0, 1])
        // Items 2-5 were waiting on the gate: leaving the loop cancelled them.
        #expect(await eventually { probe.cancelled == probe.started.count - 2 && probe.running == 0 })
        let started = probe.started.count
        gate.open()
        // Nothing starting has no event to wait for: a short, bounded pause gives a wrongly
        // started item the time to show, then the count is checked.
        try await Task.sleep(for: .milliseconds(30))
        #expect(probe.started.count == started && started <= 2 + 2 * 4, "nothing started after the loop ended")
    }

    @Test func cancellingTheConsumingTaskCancelsTheRemainingWork() async throws {
        let gate = Gate()
        let probe = OperationProbe()
        let batch = OrderedBatch(Array(0..<30), maximumConcurrency: 3) { index in
            try await probe.run(index) {
                if index >= 1 { try await gate.wait() }
                return index
            }
        }
        let delivered = Counter()
        let consumer = Task {
            var seen: [Int] = []
            do {
                for try await item in batch.results() {
                    seen.append(item.index)
                    delivered.increment()
                }
                return (seen, false)
            } catch {
                return (seen, error is CancellationError)
            }
        }
        // Item 0 delivered, items 1-3 waiting in the three slots.
        #expect(await eventually { delivered.count == 1 && probe.running == 3 })
        consumer.cancel()
        let (seen, threwCancellation) = await consumer.value
        #expect(seen == [0] && threwCancellation)
        #expect(await eventually { probe.cancelled == 3 && probe.running == 0 })
        #expect(probe.started.count == 4, "item 0, then the three that were waiting")
    }
}
