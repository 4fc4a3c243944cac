import LoupeTestSupport
import Foundation
import Testing
@testable import LoupeCaching
@testable import LoupeDiskCacheStress

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DiskCacheTests {
    @Test func storesAndReadsBackWithMetadataAcrossReopen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let payload = bytes(100_000)
        let validators = DiskCacheValidators(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        do {
            let cache = try DiskCache(directory: directory.url, now: clock.now)
            try cache.store(payload, forKey: "https://example.com/a.jpg", expiry: .after(60), validators: validators, userInfo: Data("info".utf8))
            #expect(cache.count == 1)
            #expect(cache.totalSize == 100_000)
            cache.close()
        }
        let cache = try DiskCache(directory: directory.url, now: clock.now)
        defer { cache.close() }
        #expect(cache.recovery == DiskCache.Recovery())
        let entry = try #require(try cache.entry(forKey: "https://example.com/a.jpg"))
        #expect(entry.data == payload)
        #expect(entry.data.startIndex == 0)
        #expect(entry.validators == validators)
        #expect(entry.userInfo == Data("info".utf8))
        #expect(entry.storedAt == clock.now())
        #expect(entry.expiresAt == clock.now().addingTimeInterval(60))
        #expect(!entry.isExpired)
        #expect(try cache.data(forKey: "https://example.com/b.jpg") == nil)
    }

    /// Blocks reserved ahead of appends (`DiskCacheSegment.reserveStep`) stay only behind the
    /// segment being appended to: a full segment gives them back when the next one starts, and
    /// close gives back the last one's.
    @Test func onlyTheSegmentAppendedToKeepsBlocksReservedAndCloseReleasesThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = DiskCache.Configuration(sizeLimit: 10_000_000)
        configuration.segmentSize = 200_000
        let cache = try DiskCache(directory: directory.url, configuration: configuration)
        for index in 0..<5 { try cache.store(bytes(100_000, seed: UInt8(index)), forKey: "k\(index)") }
        func overhead() throws -> [Int] {
            try directory.segmentFileNames().map { name in
                var info = stat()
                try #require(stat(directory.segmentsPath + "/" + name, &info) == 0)
                return Int(info.st_blocks) * 512 - Int(info.st_size)
            }
        }
        let open = try overhead()
        #expect(open.count == 3)
        #expect(open.dropLast().allSatisfy { $0 < 65_536 }, "\(open)")
        #expect((open.last ?? 0) >= DiskCacheSegment.reserveStep - 300_000, "\(open)")
        cache.close()
        #expect(try overhead().allSatisfy { $0 < 65_536 })
        let reopened = try DiskCache(directory: directory.url, configuration: configuration)
        defer { reopened.close() }
        for index in 0..<5 { #expect(try reopened.data(forKey: "k\(index)") == bytes(100_000, seed: UInt8(index))) }
    }

    @Test func emptyPayloadAndReplacement() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        try cache.store(Data(), forKey: "empty")
        #expect(try cache.data(forKey: "empty") == Data())
        try cache.store(bytes(10), forKey: "k")
        try cache.store(bytes(20, seed: 9), forKey: "k")
        #expect(try cache.data(forKey: "k") == bytes(20, seed: 9))
        #expect(cache.totalSize == 20)
        // Both entries and the replaced one sit in one segment; the replaced bytes are dead.
        #expect(try directory.segmentFileNames().count == 1)
        #expect(cache.deadBytes > 10 && cache.deadBytes < 200)
    }

    @Test func sizeLimitHoldsAfterEveryWriteAndTrimsLeastRecentlyUsedToLowWater() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: 1000, lowWaterFraction: 0.8))
        defer { cache.close() }
        for index in 0..<6 {
            try cache.store(bytes(150, seed: UInt8(index)), forKey: "k\(index)")
            #expect(cache.totalSize <= 1000)
        }
        #expect(cache.totalSize == 900)
        // Touch k0 so that k1 is now the least recently used.
        #expect(try cache.data(forKey: "k0") != nil)
        try cache.store(bytes(150, seed: 6), forKey: "k6") // 1050 > 1000: trim to <= 800
        #expect(cache.totalSize == 750)
        #expect(try cache.data(forKey: "k0") == bytes(150, seed: 0))
        #expect(try cache.data(forKey: "k1") == nil)
        #expect(try cache.data(forKey: "k2") == nil)
        #expect(try cache.data(forKey: "k3") != nil)
        #expect(try cache.data(forKey: "k6") == bytes(150, seed: 6))
        // Evicted entries' bytes are reclaimed: once compaction has run, the dead bytes are
        // within half of the limit.
        cache.waitForCompaction()
        #expect(cache.deadBytes <= 500)
    }

    @Test func entryLargerThanTheLimitIsRefusedBeforeWriting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: 1000))
        defer { cache.close() }
        try cache.store(bytes(500), forKey: "kept")
        #expect(throws: DiskCacheError.entryTooLarge(size: 1001, limit: 1000)) {
            try cache.store(bytes(1001), forKey: "big")
        }
        #expect(try cache.data(forKey: "kept") == bytes(500))
        #expect(cache.deadBytes == 0)
        // Exactly the limit fits, evicting everything else.
        try cache.store(bytes(1000), forKey: "exact")
        #expect(cache.totalSize == 1000)
        #expect(try cache.data(forKey: "kept") == nil)
    }

    @Test func oversizedKeyOrMetadataIsRefusedBeforeWriting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        let hugeKey = String(repeating: "k", count: DiskCache.metadataLimit + 1)
        #expect(throws: DiskCacheError.metadataTooLarge(size: DiskCache.metadataLimit + 1, limit: DiskCache.metadataLimit)) {
            try cache.store(bytes(10), forKey: hugeKey)
        }
        #expect(throws: DiskCacheError.metadataTooLarge(size: DiskCache.metadataLimit + 2, limit: DiskCache.metadataLimit)) {
            try cache.store(bytes(10), forKey: "k", userInfo: Data(count: DiskCache.metadataLimit + 1))
        }
        #expect(try cache.data(forKey: hugeKey) == nil)
        #expect(try cache.removeValue(forKey: hugeKey) == false)
        try cache.store(bytes(10), forKey: "k")
        #expect(throws: DiskCacheError.metadataTooLarge(size: DiskCache.metadataLimit + 1, limit: DiskCache.metadataLimit)) {
            try cache.markRevalidated(forKey: "k", validators: DiskCacheValidators(etag: String(repeating: "e", count: DiskCache.metadataLimit)))
        }
        #expect(cache.deadBytes == 0)
        #expect(cache.count == 1)
    }

    @Test func accessOrderSurvivesReopen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = DiskCache.Configuration(sizeLimit: 300, lowWaterFraction: 0.7)
        do {
            let cache = try DiskCache(directory: directory.url, configuration: configuration)
            for key in ["a", "b", "c"] { try cache.store(bytes(100), forKey: key) }
            _ = try cache.data(forKey: "a") // order now b, c, a
            cache.close()
        }
        let cache = try DiskCache(directory: directory.url, configuration: configuration)
        defer { cache.close() }
        try cache.store(bytes(100), forKey: "d") // 400 > 300: trim to <= 210, keeping d
        #expect(try cache.data(forKey: "b") == nil)
        #expect(try cache.data(forKey: "c") == nil)
        #expect(try cache.data(forKey: "a") != nil)
        #expect(try cache.data(forKey: "d") != nil)
    }

    @Test func loweredLimitIsEnforcedOnOpen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: 10_000))
            for index in 0..<10 { try cache.store(bytes(500), forKey: "k\(index)") }
            cache.close()
        }
        let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: 2000, lowWaterFraction: 0.5))
        defer { cache.close() }
        #expect(cache.totalSize == 1000)
        #expect(cache.recovery.evictedEntries == 8)
        #expect(try cache.data(forKey: "k9") != nil)
        #expect(try cache.data(forKey: "k0") == nil)
        // The evicted entries' bytes are compacted away in the background.
        cache.waitForCompaction()
        #expect(cache.deadBytes <= 1000)
        #expect(try cache.data(forKey: "k8") != nil)
    }

    @Test func expiredEntriesAreStaleButRevalidatable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let configuration = DiskCache.Configuration(defaultTimeToLive: 60)
        let cache = try DiskCache(directory: directory.url, configuration: configuration, now: clock.now)
        try cache.store(bytes(1000), forKey: "img", validators: DiskCacheValidators(etag: "\"1\""))
        #expect(cache.containsFreshEntry(forKey: "img") && !cache.containsFreshEntry(forKey: "absent"))
        let fileBefore = try #require(try directory.segmentFileNames().first)
        var before = stat()
        #expect(stat(directory.segmentsPath + "/" + fileBefore, &before) == 0)

        clock.advance(by: 61)
        #expect(!cache.containsFreshEntry(forKey: "img"))
        #expect(try cache.data(forKey: "img") == nil)
        let stale = try #require(try cache.entry(forKey: "img"))
        #expect(stale.isExpired)
        #expect(stale.validators.etag == "\"1\"")
        #expect(stale.data == bytes(1000))

        // A 304: refresh expiry (and the ETag the 304 carried) without rewriting the payload.
        #expect(try cache.markRevalidated(forKey: "img", validators: DiskCacheValidators(etag: "\"1b\"")))
        #expect(try cache.markRevalidated(forKey: "absent") == false)
        let fresh = try #require(try cache.entry(forKey: "img"))
        #expect(!fresh.isExpired)
        #expect(fresh.expiresAt == clock.now().addingTimeInterval(60))
        #expect(fresh.validators.etag == "\"1b\"")
        #expect(fresh.storedAt == clock.now().addingTimeInterval(-61))
        #expect(try directory.segmentFileNames() == [fileBefore])
        var after = stat()
        #expect(stat(directory.segmentsPath + "/" + fileBefore, &after) == 0)
        #expect(after.st_ino == before.st_ino)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        cache.close()

        // The refreshed expiry and validators are in the journal, not only in memory.
        clock.advance(by: 30)
        let reopened = try DiskCache(directory: directory.url, configuration: configuration, now: clock.now)
        defer { reopened.close() }
        #expect(try reopened.data(forKey: "img") == bytes(1000))
        #expect(try reopened.entry(forKey: "img")?.validators.etag == "\"1b\"")
        clock.advance(by: 31)
        #expect(try reopened.data(forKey: "img") == nil)
    }

    @Test func perEntryExpiryOverridesTheDefault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let cache = try DiskCache(directory: directory.url, configuration: .init(defaultTimeToLive: 100), now: clock.now)
        defer { cache.close() }
        try cache.store(bytes(1), forKey: "default")
        try cache.store(bytes(1), forKey: "short", expiry: .after(10))
        try cache.store(bytes(1), forKey: "never", expiry: .never)
        try cache.store(bytes(1), forKey: "at", expiry: .at(clock.now().addingTimeInterval(500)))
        clock.advance(by: 50)
        #expect(try cache.data(forKey: "short") == nil)
        #expect(try cache.data(forKey: "default") != nil)
        clock.advance(by: 100)
        #expect(try cache.data(forKey: "default") == nil)
        #expect(try cache.data(forKey: "at") != nil)
        clock.advance(by: 1_000_000)
        #expect(try cache.data(forKey: "at") == nil)
        #expect(try cache.data(forKey: "never") != nil)
        #expect(try cache.entry(forKey: "never")?.expiresAt == nil)
        #expect(try cache.removeExpired() == 3)
        #expect(cache.count == 1)
        #expect(cache.totalSize == 1)
    }

    @Test func keysOfAnyContentAreSafe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keys = ["", "/", "..", "../../../../etc/passwd", "a/b/c", "with\0nul", "ключ 🔑 鍵", "\n\r\t",
                    String(repeating: "x", count: 10_240), String(repeating: "é/..", count: 3000)]
        do {
            let cache = try DiskCache(directory: directory.url)
            for (index, key) in keys.enumerated() { try cache.store(bytes(10, seed: UInt8(index)), forKey: key) }
            for (index, key) in keys.enumerated() { #expect(try cache.data(forKey: key) == bytes(10, seed: UInt8(index))) }
            cache.close()
        }
        // Nothing escaped the directory; every file is named by the cache, not by the key.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["journal", "lock", "segments"])
        let names = try directory.segmentFileNames()
        #expect(names == [DiskCache.fileName(1)])
        // Keys round-trip through the journal, and through the segments' metadata when rebuilt.
        let cache = try DiskCache(directory: directory.url)
        for (index, key) in keys.enumerated() { #expect(try cache.data(forKey: key) == bytes(10, seed: UInt8(index))) }
        cache.close()
        try FileManager.default.removeItem(atPath: directory.journalPath)
        let rebuilt = try DiskCache(directory: directory.url)
        defer { rebuilt.close() }
        #expect(rebuilt.recovery.indexRebuiltFromFiles)
        for (index, key) in keys.enumerated() { #expect(try rebuilt.data(forKey: key) == bytes(10, seed: UInt8(index))) }
    }

    @Test func removeAndRemoveAll() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        for index in 0..<5 { try cache.store(bytes(10), forKey: "k\(index)") }
        #expect(try cache.removeValue(forKey: "k0"))
        #expect(try cache.removeValue(forKey: "k0") == false)
        #expect(try cache.data(forKey: "k0") == nil)
        #expect(cache.count == 4)
        try cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.totalSize == 0)
        // The segments that held them are deleted.
        #expect(try directory.segmentFileNames().isEmpty)
        #expect(cache.segmentBytes == 0)
        try cache.store(bytes(10), forKey: "after")
        cache.close()
        let reopened = try DiskCache(directory: directory.url)
        defer { reopened.close() }
        #expect(reopened.count == 1)
        #expect(try reopened.data(forKey: "after") == bytes(10))
    }

    @Test func closedCacheThrows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        cache.close()
        cache.close()
        #expect(throws: DiskCacheError.closed) { try cache.store(bytes(1), forKey: "k") }
        #expect(throws: DiskCacheError.closed) { try cache.data(forKey: "k") }
    }

    @Test func invalidConfigurationIsATypedError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: directory.url, configuration: .init(sizeLimit: 0)) }
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: directory.url, configuration: .init(lowWaterFraction: 1.5)) }
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: directory.url, configuration: .init(defaultTimeToLive: -1)) }
    }

    @Test func journalIsCompactedUnderManyOverwrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let cache = try DiskCache(directory: directory.url)
            // 2200 records: past the compaction threshold (2 × 10 live + 2000) once.
            for round in 0..<1100 {
                try cache.store(bytes(8, seed: UInt8(truncatingIfNeeded: round)), forKey: "k\(round % 10)")
                _ = try cache.data(forKey: "k\(round % 7)")
            }
            cache.close()
        }
        // Uncompacted, the 1100 puts and 1100 reads would take about 115 KB.
        let journalSize = try #require(try FileManager.default.attributesOfItem(atPath: directory.journalPath)[.size] as? Int)
        #expect(journalSize < 40_000)
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(cache.count == 10)
        #expect(try cache.data(forKey: "k9") == bytes(8, seed: UInt8(truncatingIfNeeded: 1099)))
    }

    @Test func concurrentReadersAndWritersKeepTheCacheConsistent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limit = 200_000
        let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: limit))
        // Eight real threads (not pool tasks: these calls block on file I/O), each returning what
        // went wrong, if anything.
        let problems = try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    try await onOwnThread { () throws -> [String] in
                        var random = SplitMix64(seed: UInt64(worker))
                        var problems: [String] = []
                        for _ in 0..<300 {
                            let key = UInt32(random.next() % 16)
                            switch random.next() % 4 {
                            case 0, 1:
                                let payload = stressPayload(key: key, version: UInt32(truncatingIfNeeded: random.next()), size: Int(random.next() % 20_000))
                                try cache.store(payload, forKey: "k\(key)")
                                if cache.totalSize > limit { problems.append("over the limit after a store: \(cache.totalSize)") }
                            case 2:
                                if let data = try cache.data(forKey: "k\(key)"), !isValidStressPayload(data, key: key) {
                                    problems.append("bad payload for k\(key)")
                                }
                            default:
                                try cache.removeValue(forKey: "k\(key)")
                            }
                        }
                        return problems
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(cache.totalSize <= limit)
        cache.waitForCompaction()
        #expect(cache.deadBytes <= limit / 2)
        for key in 0..<16 {
            if let data = try cache.data(forKey: "k\(key)") { #expect(isValidStressPayload(data, key: UInt32(key))) }
        }
        cache.close()
    }
}
