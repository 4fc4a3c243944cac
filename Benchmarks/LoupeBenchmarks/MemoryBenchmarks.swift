import Foundation
import LoupeCaching

/// Memory cache and single-flight loader against `NSCache`, the designs it replaces (NSCache + actor, an actor downloader), and a CLOCK
/// variant of the eviction policy.
func runMemoryBenchmarks() async throws {
    let keyCount = 1_024
    let operations = 1_000_000
    let urls = (0..<keyCount).map { "http://127.0.0.1:8080/menu/item-\($0).jpg" }
    let nsURLs = urls.map { $0 as NSString }
    let missing = (0..<keyCount).map { "http://127.0.0.1:8080/missing/\($0).jpg" }
    let nsMissing = missing.map { $0 as NSString }
    let value = CachedObject(bytes: 40_000)

    print("-- memory cache, \(keyCount) keys, \(operations) operations per run, medians of 9 runs")
    let cache = MemoryCache<String, CachedObject>()
    let nsCache = NSCache<NSString, CachedObject>()
    for i in 0..<keyCount {
        cache.setValue(value, forKey: urls[i])
        nsCache.setObject(value, forKey: nsURLs[i])
    }

    let hit = Measurement.run("MemoryCache hit", operations: operations) {
        for i in 0..<operations { blackHole(cache.value(forKey: urls[i & (keyCount - 1)])) }
    }
    let nsHit = Measurement.run("NSCache hit (NSString keys made beforehand)", operations: operations) {
        for i in 0..<operations { blackHole(nsCache.object(forKey: nsURLs[i & (keyCount - 1)])) }
    }
    let miss = Measurement.run("MemoryCache miss", operations: operations) {
        for i in 0..<operations { blackHole(cache.value(forKey: missing[i & (keyCount - 1)])) }
    }
    let nsMiss = Measurement.run("NSCache miss", operations: operations) {
        for i in 0..<operations { blackHole(nsCache.object(forKey: nsMissing[i & (keyCount - 1)])) }
    }

    // Every insert of a new key evicts one: 100k distinct keys through a 1,000-entry cache.
    let insertKeys = (0..<100_000).map { "http://127.0.0.1:8080/feed/\($0).jpg" }
    let nsInsertKeys = insertKeys.map { $0 as NSString }
    let evicting = MemoryCache<String, CachedObject>(configuration: .init(countLimit: 1_000))
    let nsEvicting = NSCache<NSString, CachedObject>()
    nsEvicting.countLimit = 1_000
    let insert = Measurement.run("MemoryCache insert with eviction", operations: insertKeys.count) {
        for key in insertKeys { evicting.setValue(value, forKey: key) }
    }
    let nsInsert = Measurement.run("NSCache insert with eviction", operations: insertKeys.count) {
        for key in nsInsertKeys { nsEvicting.setObject(value, forKey: key) }
    }
    print("  check: MemoryCache holds \(evicting.count) entries (limit 1000); NSCache does not report its count")

    printRatio(hit, against: nsHit, target: 3)
    printRatio(miss, against: nsMiss)
    printRatio(insert, against: nsInsert)

    print("-- single-flight hit path (value already in memory), from an async context")
    let loader = SingleFlightLoader<String, CachedObject>(memoryCache: cache) { _ in value }
    let seed002 = Seed002ImageCacheManager { _ in value }
    let seed001 = Seed001ImageDownloader { _ in value }
    for url in urls {
        _ = try await loader.value(for: url)
        _ = await seed002.loadImage(for: url)
        _ = await seed001.image(from: url)
    }
    let asyncOperations = operations / 4
    let loaderHit = try await Measurement.run("SingleFlightLoader.value(for:) hit", operations: asyncOperations) {
        for i in 0..<asyncOperations { blackHole(try await loader.value(for: urls[i & (keyCount - 1)])) }
    }
    let seed002Hit = await Measurement.run("NSCache + actor ImageCacheManager hit", operations: asyncOperations) {
        for i in 0..<asyncOperations { blackHole(await seed002.loadImage(for: urls[i & (keyCount - 1)])) }
    }
    let seed001Hit = await Measurement.run("actor ImageDownloader hit", operations: asyncOperations) {
        for i in 0..<asyncOperations { blackHole(await seed001.image(from: urls[i & (keyCount - 1)])) }
    }
    printRatio(loaderHit, against: seed002Hit, target: 10)
    printRatio(loaderHit, against: seed001Hit)

    // What a String key costs by itself: the floor under any hashed cache keyed by URL strings.
    var dictionary: [String: CachedObject] = [:]
    for url in urls { dictionary[url] = value }
    let dictionaryHit = Measurement.run("bare Dictionary<String, _> lookup (no lock, no LRU)", operations: operations) {
        for i in 0..<operations { blackHole(dictionary[urls[i & (keyCount - 1)]]) }
    }
    printRatio(hit, against: dictionaryHit)

    try await runEvictionPolicyComparison()
}

/// LRU (what `MemoryCache` uses) against CLOCK: cost of a hit, and hit ratio on a skewed trace.
private func runEvictionPolicyComparison() async throws {
    print("-- eviction policy: LRU (MemoryCache) vs CLOCK, capacity 1,000, Zipf(0.9) trace over 20,000 keys")
    let capacity = 1_000
    let trace = zipfTrace(keys: 20_000, exponent: 0.9, length: 1_000_000, seed: 7)

    let lru = MemoryCache<Int, Int>(configuration: .init(countLimit: capacity))
    let clock = ClockCache<Int, Int>(capacity: capacity)
    var lruHits = 0
    var clockHits = 0
    for key in trace {
        if lru.value(forKey: key) != nil { lruHits += 1 } else { lru.setValue(key, forKey: key) }
        if clock.value(forKey: key) != nil { clockHits += 1 } else { clock.setValue(key, forKey: key) }
    }
    print(String(format: "  hit ratio: LRU %.2f%%, CLOCK %.2f%%",
                 100 * Double(lruHits) / Double(trace.count), 100 * Double(clockHits) / Double(trace.count)))

    // Hit cost with every lookup a hit: the policies differ only in what a hit updates.
    let hot = Array(0..<capacity)
    let operations = 1_000_000
    let lruHit = Measurement.run("LRU hit (moves the entry to the front)", operations: operations) {
        for i in 0..<operations { blackHole(lru.value(forKey: hot[i % capacity])) }
    }
    let clockHit = Measurement.run("CLOCK hit (sets a reference bit)", operations: operations) {
        for i in 0..<operations { blackHole(clock.value(forKey: hot[i % capacity])) }
    }
    printRatio(clockHit, against: lruHit)
    let lruMixed = Measurement.run("LRU on the Zipf trace (get, set on miss)", operations: trace.count, repeats: 5) {
        for key in trace where lru.value(forKey: key) == nil { lru.setValue(key, forKey: key) }
    }
    let clockMixed = Measurement.run("CLOCK on the Zipf trace (get, set on miss)", operations: trace.count, repeats: 5) {
        for key in trace where clock.value(forKey: key) == nil { clock.setValue(key, forKey: key) }
    }
    printRatio(clockMixed, against: lruMixed)
}

/// A reproducible trace of keys drawn with probability ∝ 1 / rank^exponent.
private func zipfTrace(keys: Int, exponent: Double, length: Int, seed: UInt64) -> [Int] {
    var cumulative: [Double] = []
    cumulative.reserveCapacity(keys)
    var total = 0.0
    for rank in 1...keys {
        total += 1 / pow(Double(rank), exponent)
        cumulative.append(total)
    }
    var state = seed
    return (0..<length).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let target = Double(state >> 11) / Double(1 << 53) * total
        var low = 0
        var high = keys - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] < target { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
