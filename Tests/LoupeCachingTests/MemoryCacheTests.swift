import LoupeTestSupport
import Testing
@testable import LoupeCaching

@Suite struct MemoryCacheTests {
    @Test func storesAndReturnsValues() {
        let cache = MemoryCache<String, Int>()
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.setValue(1, forKey: "a"))
        cache.setValue(2, forKey: "b", cost: 5)
        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.value(forKey: "b") == 2)
        #expect(cache.count == 2)
        #expect(cache.totalCost == 6)
        cache.setValue(3, forKey: "a", cost: 2)
        #expect(cache.value(forKey: "a") == 3)
        #expect(cache.totalCost == 7)
        #expect(cache.removeValue(forKey: "a") == 3)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.count == 1)
        #expect(cache.totalCost == 5)
    }

    @Test func evictsLeastRecentlyUsedWhenCountLimitIsCrossed() {
        let cache = MemoryCache<String, Int>(configuration: .init(countLimit: 3))
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(3, forKey: "c")
        _ = cache.value(forKey: "a") // "b" is now the least recently used
        cache.setValue(4, forKey: "d")
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.value(forKey: "c") == 3)
        #expect(cache.value(forKey: "d") == 4)
        #expect(cache.count == 3)
        #expect(cache.statistics.evictions == 1)
    }

    @Test func evictsUntilCostLimitHolds() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100, entryCostFraction: 1))
        cache.setValue(1, forKey: "a", cost: 40)
        cache.setValue(2, forKey: "b", cost: 40)
        cache.setValue(3, forKey: "c", cost: 90) // needs both gone
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "c") == 3)
        #expect(cache.totalCost == 90)
        #expect(cache.statistics.evictions == 2)
    }

    @Test func refusesEntriesCostlierThanTheEntryLimitAndDropsTheOlderValue() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 1000, entryCostFraction: 0.1))
        #expect(cache.setValue(1, forKey: "a", cost: 100))
        #expect(!cache.setValue(2, forKey: "a", cost: 101))
        #expect(cache.value(forKey: "a") == nil, "a rejected newer value must not leave the older one behind")
        #expect(cache.totalCost == 0)
        #expect(cache.statistics.rejections == 1)
    }

    @Test func entryLimitAtIntMaxDoesNotOverflow() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: .max, entryCostFraction: 1))
        #expect(cache.setValue(1, forKey: "a", cost: .max))
        #expect(cache.value(forKey: "a") == 1)
    }

    @Test func nonsensicalEntryFractionsAreClampedNotTrapped() {
        let nan = MemoryCache<String, Int>(configuration: .init(costLimit: 100, entryCostFraction: .nan))
        #expect(nan.setValue(1, forKey: "a", cost: 100))
        let negative = MemoryCache<String, Int>(configuration: .init(costLimit: 100, entryCostFraction: -1))
        #expect(!negative.setValue(1, forKey: "a", cost: 1))
        let infinite = MemoryCache<String, Int>(configuration: .init(costLimit: .max, entryCostFraction: .infinity))
        #expect(infinite.setValue(1, forKey: "a", cost: .max))
    }

    @Test func zeroLimitsStoreNothing() {
        let byCount = MemoryCache<String, Int>(configuration: .init(countLimit: 0))
        #expect(!byCount.setValue(1, forKey: "a"))
        #expect(byCount.count == 0)
        let byCost = MemoryCache<String, Int>(configuration: .init(costLimit: -5))
        #expect(!byCost.setValue(1, forKey: "a", cost: 1))
        #expect(byCost.setValue(1, forKey: "free", cost: 0))
        #expect(byCost.totalCost == 0)
    }

    @Test func entriesExpireAfterTheCacheTimeToLive() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(configuration: .init(timeToLive: .seconds(60)), clock: clock)
        cache.setValue(1, forKey: "a")
        clock.advance(by: .seconds(59))
        #expect(cache.value(forKey: "a") == 1)
        clock.advance(by: .seconds(1))
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.count == 0)
        #expect(cache.statistics.expirations == 1)
    }

    @Test func perEntryTimeToLiveOverridesTheCacheDefault() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(configuration: .init(timeToLive: .seconds(60)), clock: clock)
        cache.setValue(1, forKey: "short", timeToLive: .seconds(5))
        cache.setValue(2, forKey: "long", timeToLive: .seconds(600))
        cache.setValue(3, forKey: "default")
        clock.advance(by: .seconds(5))
        #expect(cache.value(forKey: "short") == nil)
        #expect(cache.value(forKey: "default") == 3)
        clock.advance(by: .seconds(55))
        #expect(cache.value(forKey: "default") == nil)
        #expect(cache.value(forKey: "long") == 2)
    }

    @Test func replacingAValueRestartsItsTimeToLive() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(configuration: .init(timeToLive: .seconds(10)), clock: clock)
        cache.setValue(1, forKey: "a")
        clock.advance(by: .seconds(8))
        cache.setValue(2, forKey: "a")
        clock.advance(by: .seconds(8))
        #expect(cache.value(forKey: "a") == 2)
    }

    @Test func removeExpiredFreesCostWithoutTouchingFreshEntries() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(configuration: .init(timeToLive: .seconds(10)), clock: clock)
        cache.setValue(1, forKey: "old", cost: 7)
        clock.advance(by: .seconds(6))
        cache.setValue(2, forKey: "new", cost: 3)
        clock.advance(by: .seconds(5))
        #expect(cache.totalCost == 10, "expired entries still count until dropped")
        cache.removeExpired()
        #expect(cache.totalCost == 3)
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "new") == 2)
    }

    @Test func trimAndRemoveAll() {
        let cache = MemoryCache<Int, Int>()
        for i in 0..<10 { cache.setValue(i, forKey: i, cost: 10) }
        _ = cache.value(forKey: 0)
        cache.trim(toCost: 30)
        #expect(cache.totalCost == 30)
        #expect(cache.value(forKey: 0) == 0, "the most recently used entries survive a trim")
        #expect(cache.value(forKey: 9) == 9)
        #expect(cache.value(forKey: 8) == 8)
        #expect(cache.value(forKey: 1) == nil)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        cache.setValue(42, forKey: 1)
        #expect(cache.value(forKey: 1) == 42, "the cache works after removeAll")
    }

    @Test func statisticsCountHitsAndMisses() {
        let cache = MemoryCache<String, Int>()
        cache.setValue(1, forKey: "a", cost: 4)
        _ = cache.value(forKey: "a")
        _ = cache.value(forKey: "a")
        _ = cache.value(forKey: "zzz")
        let stats = cache.statistics
        #expect(stats.hits == 2)
        #expect(stats.misses == 1)
        #expect(stats.count == 1)
        #expect(stats.totalCost == 4)
    }

    @Test func removingAValueReleasesIt() {
        final class Payload: Sendable {}
        let cache = MemoryCache<Int, Payload>()
        weak var observed: Payload?
        do {
            let payload = Payload()
            observed = payload
            cache.setValue(payload, forKey: 1)
        }
        #expect(observed != nil)
        cache.removeValue(forKey: 1)
        #expect(observed == nil, "a freed slot must not keep its value alive")
    }

    /// Random operations against a plain-array model of the same policy: after every operation
    /// the limits hold and the cache answers exactly as the model does.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomizedOperationsMatchAModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let clock = ManualClock()
        let configuration = MemoryCache<Int, Int>.Configuration(
            costLimit: 200, countLimit: 12, timeToLive: .seconds(30), entryCostFraction: 0.25)
        let cache = MemoryCache<Int, Int>(configuration: configuration, clock: clock)
        var model = CacheModel(costLimit: 200, countLimit: 12, entryCostLimit: 50, timeToLive: 30)
        var now = 0

        for step in 0..<4_000 {
            let key = Int(random.next() % 24)
            switch random.next() % 10 {
            case 0...3:
                #expect(cache.value(forKey: key) == model.value(forKey: key, now: now), "step \(step)")
            case 4...6:
                let cost = Int(random.next() % 60)
                let ttl: Int? = random.next() % 4 == 0 ? Int(random.next() % 20) + 1 : nil
                let stored = cache.setValue(step, forKey: key, cost: cost, timeToLive: ttl.map { .seconds($0) })
                #expect(stored == model.setValue(step, forKey: key, cost: cost, ttl: ttl, now: now), "step \(step)")
            case 7:
                #expect(cache.removeValue(forKey: key) == model.removeValue(forKey: key), "step \(step)")
            case 8:
                let seconds = Int(random.next() % 8)
                clock.advance(by: .seconds(seconds))
                now += seconds
            default:
                cache.removeExpired()
                model.removeExpired(now: now)
            }
            #expect(cache.totalCost <= 200)
            #expect(cache.count <= 12)
            #expect(cache.totalCost == model.totalCost, "step \(step)")
            #expect(cache.count == model.entries.count, "step \(step)")
        }
    }
}

/// The cache's policy written as plainly as possible: entries ordered oldest first.
private struct CacheModel {
    struct Entry { var key: Int; var value: Int; var cost: Int; var expiry: Int }
    let costLimit: Int, countLimit: Int, entryCostLimit: Int, timeToLive: Int
    var entries: [Entry] = []
    var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }

    mutating func value(forKey key: Int, now: Int) -> Int? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = entries.remove(at: i)
        if entry.expiry <= now { return nil }
        entries.append(entry)
        return entry.value
    }

    mutating func setValue(_ value: Int, forKey key: Int, cost: Int, ttl: Int?, now: Int) -> Bool {
        entries.removeAll { $0.key == key }
        guard cost <= entryCostLimit else { return false }
        entries.append(Entry(key: key, value: value, cost: cost, expiry: now + (ttl ?? timeToLive)))
        while totalCost > costLimit || entries.count > countLimit { entries.removeFirst() }
        return true
    }

    mutating func removeValue(forKey key: Int) -> Int? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: i).value
    }

    mutating func removeExpired(now: Int) {
        entries.removeAll { $0.expiry <= now }
    }
}

