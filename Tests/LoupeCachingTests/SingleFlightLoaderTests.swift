import LoupeTestSupport
import Testing
@testable import LoupeCaching

private struct Unreachable: Error, Equatable {}

@Suite struct SingleFlightLoaderTests {
    /// Ten views, one image: ten image views ask for the same menu image at once → one download, ten results.
    @Test func tenViewsForOneURLDownloadOnce() async throws {
        let downloads = Counter()
        let gate = Gate()
        let loader = SingleFlightLoader<String, [UInt8]> { url in
            downloads.increment()
            try await gate.wait()
            return Array(url.utf8)
        }
        let url = "http://127.0.0.1/menu/burger.png"
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<10 { group.addTask { try await loader.value(for: url) } }
            // Hold the download until all ten are waiting, so this proves coalescing, not caching.
            #expect(await eventually { loader.waiterCount(for: url) == 10 })
            gate.open()
            var results = 0
            for try await bytes in group {
                #expect(bytes == Array(url.utf8))
                results += 1
            }
            #expect(results == 10)
        }
        #expect(downloads.count == 1)
        #expect(try await loader.value(for: url) == Array(url.utf8))
        #expect(downloads.count == 1, "the eleventh view is served from memory")
    }

    @Test func aThousandConcurrentCallersShareOneLoad() async throws {
        let loads = Counter()
        let gate = Gate()
        let loader = SingleFlightLoader<Int, Int> { key in
            loads.increment()
            try await gate.wait()
            return key * 2
        }
        let sum = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 { group.addTask { try await loader.value(for: 21) } }
            #expect(await eventually { loader.waiterCount(for: 21) == 1_000 })
            gate.open()
            return try await group.reduce(0, +)
        }
        #expect(sum == 42_000)
        #expect(loads.count == 1)
        #expect(loader.loadsInFlight == 0)
    }

    /// The reentrancy race: the first download is slow; a second call for the same URL arrives across the
    /// `await`. It must join, not download again, and nothing overwrites the first result.
    @Test func secondCallerDuringSlowLoadJoinsInsteadOfOverwriting() async throws {
        let loads = Counter()
        let gate = Gate()
        let loader = SingleFlightLoader<String, Int> { _ in
            let generation = loads.increment()
            try await gate.wait()
            return generation
        }
        let first = Task { try await loader.value(for: "image") }
        #expect(await eventually { loads.count == 1 })
        let second = Task { try await loader.value(for: "image") }
        #expect(await eventually { loader.waiterCount(for: "image") == 2 })
        gate.open()
        #expect(try await first.value == 1)
        #expect(try await second.value == 1)
        #expect(loads.count == 1)
        #expect(loader.cachedValue(for: "image") == 1)
    }

    /// The prefetching list: the cell needs the data while its prefetch runs; it joins, then the prefetch is
    /// cancelled because the row scrolled away and back. The cell still gets its value.
    @Test func cellJoiningARunningPrefetchSurvivesThePrefetchBeingCancelled() async throws {
        let loads = Counter()
        let cancellations = Recorder<Bool>()
        let gate = Gate()
        let loader = SingleFlightLoader<String, String> { key in
            loads.increment()
            do {
                try await gate.wait()
            } catch {
                cancellations.record(true)
                throw error
            }
            return "video:\(key)"
        }
        loader.prefetch("clip-7")
        #expect(await eventually { loads.count == 1 })
        let cell = Task { try await loader.value(for: "clip-7") }
        #expect(await eventually { loader.waiterCount(for: "clip-7") == 1 })
        loader.cancelPrefetch("clip-7")
        gate.open()
        #expect(try await cell.value == "video:clip-7")
        #expect(loads.count == 1)
        #expect(cancellations.all.isEmpty, "the shared load must not be cancelled while the cell waits")
    }

    @Test func cancelledPrefetchWithoutWaitersCancelsItsLoad() async throws {
        let cancellations = Recorder<Bool>()
        let gate = Gate()
        let loader = SingleFlightLoader<String, String> { _ in
            do { try await gate.wait() } catch {
                cancellations.record(Task.isCancelled)
                throw error
            }
            return "never"
        }
        loader.prefetch("a")
        #expect(loader.isLoading("a"))
        loader.cancelPrefetch("a")
        #expect(!loader.isLoading("a"))
        #expect(await eventually { cancellations.all == [true] })
        #expect(loader.cachedValue(for: "a") == nil)
    }

    @Test func lastWaiterLeavingCancelsTheLoadAndStopsWaitingAtOnce() async throws {
        let observedCancellation = Recorder<Bool>()
        let gate = Gate()
        let loader = SingleFlightLoader<String, Int> { _ in
            do { try await gate.wait() } catch {
                observedCancellation.record(Task.isCancelled)
                throw error
            }
            return 1
        }
        let caller = Task { try await loader.value(for: "k") }
        #expect(await eventually { loader.waiterCount(for: "k") == 1 })
        caller.cancel()
        // The gate never opens: the caller can only finish by leaving.
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(await eventually { observedCancellation.all == [true] })
        #expect(loader.loadsInFlight == 0)
        #expect(!gate.isOpen)
    }

    @Test func oneCallerLeavingDoesNotCancelTheLoadForOthers() async throws {
        let cancellations = Recorder<Bool>()
        let gate = Gate()
        let loader = SingleFlightLoader<String, Int> { _ in
            do { try await gate.wait() } catch {
                cancellations.record(true)
                throw error
            }
            return 7
        }
        let leaving = Task { try await loader.value(for: "k") }
        let staying = Task { try await loader.value(for: "k") }
        #expect(await eventually { loader.waiterCount(for: "k") == 2 })
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(loader.waiterCount(for: "k") == 1)
        gate.open()
        #expect(try await staying.value == 7)
        #expect(cancellations.all.isEmpty)
    }

    @Test func anAlreadyCancelledCallerStartsNoLoad() async throws {
        let loads = Counter()
        let loader = SingleFlightLoader<String, Int> { _ in
            loads.increment()
            return 1
        }
        let gate = Gate()
        let caller = Task {
            await gate.waitIgnoringCancellation()
            return try await loader.value(for: "k")
        }
        caller.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(loads.count == 0)
        #expect(loader.loadsInFlight == 0)
    }

    /// A load abandoned by all its callers may still finish later (it ignored cancellation); by
    /// then a newer load for the key has stored a newer value, which must not be overwritten.
    @Test func anAbandonedSlowLoadNeverOverwritesANewerResult() async throws {
        let generation = Counter()
        let slowGate = Gate()
        let finished = Recorder<Int>()
        let loader = SingleFlightLoader<String, Int> { _ in
            let mine = generation.increment()
            if mine == 1 { await slowGate.waitIgnoringCancellation() }
            finished.record(mine)
            return mine
        }
        let abandoned = Task { try await loader.value(for: "k") }
        #expect(await eventually { loader.waiterCount(for: "k") == 1 })
        abandoned.cancel()
        await #expect(throws: CancellationError.self) { try await abandoned.value }
        #expect(try await loader.value(for: "k") == 2)
        slowGate.open()
        #expect(await eventually { finished.all.count == 2 })
        #expect(loader.cachedValue(for: "k") == 2)
        #expect(try await loader.value(for: "k") == 2)
    }

    @Test func failuresAreTypedNamedByKeyAndNotCached() async throws {
        let attempts = Counter()
        let loader = SingleFlightLoader<String, Int> { key in
            if attempts.increment() == 1 { throw Unreachable() }
            return key.count
        }
        do {
            _ = try await loader.value(for: "host")
            Issue.record("the first load should have failed")
        } catch let error as LoadError<String> {
            #expect(error.key == "host")
            #expect(error.underlying as? Unreachable == Unreachable())
            #expect(error.description.contains("host"))
        }
        #expect(loader.cachedValue(for: "host") == nil)
        #expect(try await loader.value(for: "host") == 4)
        #expect(attempts.count == 2)
    }

    @Test func everyWaiterOfAFailedLoadGetsTheFailure() async throws {
        let gate = Gate()
        let loader = SingleFlightLoader<Int, Int> { _ in
            try await gate.wait()
            throw Unreachable()
        }
        let callers = (0..<5).map { _ in Task { try await loader.value(for: 1) } }
        #expect(await eventually { loader.waiterCount(for: 1) == 5 })
        gate.open()
        for caller in callers {
            await #expect(throws: LoadError<Int>.self) { try await caller.value }
        }
    }

    /// A visible cell (high priority) joining a background prefetch (low) raises the shared
    /// load's priority.
    @Test func aHigherPriorityWaiterEscalatesTheSharedLoad() async throws {
        let priorities = Recorder<TaskPriority>()
        let gate = Gate()
        let loader = SingleFlightLoader<String, Int> { _ in
            priorities.record(Task.currentPriority)
            try await gate.wait()
            priorities.record(Task.currentPriority)
            return 1
        }
        loader.prefetch("poster", priority: .low)
        #expect(await eventually { priorities.all.count == 1 })
        let cell = Task(priority: .high) { try await loader.value(for: "poster") }
        #expect(await eventually { loader.waiterCount(for: "poster") == 1 })
        gate.open()
        #expect(try await cell.value == 1)
        #expect(priorities.all == [.low, .high])
    }

    @Test func prefetchSkipsCachedKeysAndIsIdempotent() async throws {
        let loads = Counter()
        let loader = SingleFlightLoader<String, Int> { _ in
            loads.increment()
            return 5
        }
        loader.prefetch("a")
        loader.prefetch("a")
        #expect(await eventually { loader.cachedValue(for: "a") == 5 })
        loader.prefetch("a")
        #expect(try await loader.value(for: "a") == 5)
        #expect(loads.count == 1)
    }

    @Test func expiredValuesAreLoadedAgain() async throws {
        let clock = ManualClock()
        let loads = Counter()
        let cache = MemoryCache<String, Int>(configuration: .init(timeToLive: .seconds(300)), clock: clock)
        let loader = SingleFlightLoader(memoryCache: cache) { (_: String) in loads.increment() }
        #expect(try await loader.value(for: "menu") == 1)
        clock.advance(by: .seconds(299))
        #expect(try await loader.value(for: "menu") == 1)
        clock.advance(by: .seconds(1))
        #expect(try await loader.value(for: "menu") == 2)
    }

    @Test func valuesAreStoredWithTheirCost() async throws {
        let cache = MemoryCache<Int, [UInt8]>(configuration: .init(costLimit: 1_000, entryCostFraction: 0.5))
        let loader = SingleFlightLoader(memoryCache: cache, cost: { $0.count }) { (size: Int) in
            [UInt8](repeating: 0, count: size)
        }
        _ = try await loader.value(for: 300)
        _ = try await loader.value(for: 400)
        #expect(cache.totalCost == 700)
        let huge = try await loader.value(for: 600)
        #expect(huge.count == 600, "a value too large to cache is still returned")
        #expect(cache.value(forKey: 600) == nil)
        #expect(cache.totalCost == 700)
    }

    @Test func withoutAMemoryCacheItOnlyCoalesces() async throws {
        let loads = Counter()
        let loader = SingleFlightLoader<Int, Int>(memoryCache: nil) { _ in loads.increment() }
        #expect(try await loader.value(for: 1) == 1)
        #expect(try await loader.value(for: 1) == 2)
        #expect(loader.cachedValue(for: 1) == nil)
    }

    /// Many callers over a few keys, a third of them cancelled at random moments: every caller
    /// that stays gets its key's value, nothing is left in flight, nothing hangs. Run under
    /// ThreadSanitizer by the test script.
    @Test func randomCancellationsUnderContention() async throws {
        let loader = SingleFlightLoader<Int, String>(memoryCache: nil) { key in
            try await Task.sleep(for: .microseconds(200 * (key + 1)))
            return "value-\(key)"
        }
        var random = SplitMix64(seed: 42)
        let plans = (0..<300).map { _ in (key: Int(random.next() % 6), cancel: random.next() % 3 == 0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for plan in plans {
                let task = Task { try await loader.value(for: plan.key) }
                if plan.cancel { task.cancel() }
                group.addTask {
                    do {
                        let value = try await task.value
                        #expect(value == "value-\(plan.key)")
                    } catch is CancellationError {
                        #expect(plan.cancel, "only cancelled callers may see CancellationError")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await eventually { loader.loadsInFlight == 0 })
    }
}

/// The prefetching list's second resource: reverse-geocoding a coordinate into a place name with the same
/// machinery, cached by text length (the seed gave text a 5 MB cost limit).
@Suite struct NonImageResourceTests {
    struct Coordinate: Hashable, Sendable {
        var latitude: Double
        var longitude: Double
    }

    @Test func reverseGeocodedPlaceNamesAreCoalescedAndCached() async throws {
        let lookups = Counter()
        let places: [Coordinate: String] = [
            Coordinate(latitude: 37.5665, longitude: 126.9780): "Seoul",
            Coordinate(latitude: 35.1796, longitude: 129.0756): "Busan",
            Coordinate(latitude: 33.4996, longitude: 126.5312): "Jeju",
        ]
        let cache = MemoryCache<Coordinate, String>(configuration: .init(costLimit: 5_000_000))
        let geocoder = SingleFlightLoader(memoryCache: cache, cost: { $0.utf8.count }) { (coordinate: Coordinate) in
            lookups.increment()
            try await Task.sleep(for: .milliseconds(20))
            guard let name = places[coordinate] else { throw Unreachable() }
            return name
        }
        let coordinates = Array(places.keys)
        let answers = try await withThrowingTaskGroup(of: (Coordinate, String).self) { group in
            for i in 0..<60 {
                let coordinate = coordinates[i % coordinates.count]
                group.addTask { (coordinate, try await geocoder.value(for: coordinate)) }
            }
            return try await group.reduce(into: [(Coordinate, String)]()) { $0.append($1) }
        }
        #expect(answers.count == 60)
        for (coordinate, name) in answers { #expect(places[coordinate] == name) }
        #expect(lookups.count == 3)
        #expect(cache.totalCost == "Seoul".utf8.count + "Busan".utf8.count + "Jeju".utf8.count)
    }
}
