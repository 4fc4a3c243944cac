import Foundation
import Testing
@testable import LoupeCaching

/// Compaction: dead segment bytes reclaimed in the background, live entries kept.
@Suite struct DiskCacheCompactionTests {
    /// 4 KB segments and a 40 KB limit: forty 1000-byte entries fill eight segments.
    private func configuration() -> DiskCache.Configuration {
        var configuration = DiskCache.Configuration(sizeLimit: 40_000)
        configuration.segmentSize = 4096
        return configuration
    }

    @Test func compactionKeepsEveryLiveEntryReadableAndFreesTheSegments() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let cache = try DiskCache(directory: directory.url, configuration: configuration(), now: clock.now)
        for index in 0..<40 {
            try cache.store(bytes(1000, seed: UInt8(index)), forKey: "k\(index)", validators: DiskCacheValidators(etag: "e\(index)"))
            clock.advance(by: 1)
        }
        // Read k0 so that LRU order differs from store order.
        #expect(try cache.data(forKey: "k0") == bytes(1000, seed: 0))
        let segmentsBefore = try directory.segmentFileNames()
        #expect(segmentsBefore.count == 8)
        #expect(cache.deadBytes == 0)
        // Keep every fourth entry: 30 removals leave about 33 KB dead, past half of the limit.
        for index in 0..<40 where index % 4 != 0 { try cache.removeValue(forKey: "k\(index)") }
        cache.waitForCompaction()

        #expect(cache.compactedSegments > 0)
        // The bound: compaction ran down to a quarter of the limit, and removals after it may
        // have added dead bytes again, up to half of it (where the next compaction starts).
        #expect(cache.deadBytes <= 20_000)
        let segmentsAfter = try directory.segmentFileNames()
        #expect(segmentsAfter.count < segmentsBefore.count)
        #expect(cache.count == 10)
        for index in stride(from: 0, to: 40, by: 4) {
            let entry = try #require(try cache.entry(forKey: "k\(index)"))
            #expect(entry.data == bytes(1000, seed: UInt8(index)))
            #expect(entry.validators.etag == "e\(index)")
            #expect(entry.storedAt == Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
        }
        cache.close()

        // The moves are journaled: a reopen serves the same entries from their new places...
        let reopened = try DiskCache(directory: directory.url, configuration: configuration(), now: clock.now)
        #expect(reopened.recovery == DiskCache.Recovery())
        #expect(reopened.count == 10)
        for index in stride(from: 0, to: 40, by: 4) { #expect(try reopened.data(forKey: "k\(index)") == bytes(1000, seed: UInt8(index))) }
        reopened.close()
        // ...and so does a rebuild from the segments (a removed entry whose bytes still sit in
        // a segment compaction did not take comes back: the documented cost of losing the
        // journal).
        try FileManager.default.removeItem(atPath: directory.journalPath)
        let rebuilt = try DiskCache(directory: directory.url, configuration: configuration(), now: clock.now)
        defer { rebuilt.close() }
        #expect(rebuilt.recovery.indexRebuiltFromFiles)
        for index in stride(from: 0, to: 40, by: 4) { #expect(try rebuilt.data(forKey: "k\(index)") == bytes(1000, seed: UInt8(index))) }
    }

    @Test func compactionKeepsTheLeastRecentlyUsedOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url, configuration: configuration())
        defer { cache.close() }
        for index in 0..<40 { try cache.store(bytes(1000, seed: UInt8(index)), forKey: "k\(index)") }
        // k0 becomes the most recently used of the survivors.
        _ = try cache.data(forKey: "k0")
        for index in 0..<40 where index % 4 != 0 { try cache.removeValue(forKey: "k\(index)") }
        cache.waitForCompaction()
        #expect(cache.compactedSegments > 0)
        // Trimming to two entries keeps the two most recently used: k36 and k0.
        #expect(try cache.trim(toSize: 2000) == 8)
        #expect(try cache.data(forKey: "k0") != nil)
        #expect(try cache.data(forKey: "k36") != nil)
        #expect(try cache.data(forKey: "k32") == nil)
    }

    @Test func overwritesKeepTheDiskBoundedWithoutAnyRemoval() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url, configuration: configuration())
        defer { cache.close() }
        for round in 0..<400 {
            try cache.store(bytes(900, seed: UInt8(truncatingIfNeeded: round)), forKey: "k\(round % 8)")
        }
        cache.waitForCompaction()
        // 400 × ~1 KB were written; 8 entries are live and the dead bytes are bounded.
        #expect(cache.count == 8)
        #expect(cache.deadBytes <= 20_000)
        #expect(cache.segmentBytes <= 8 * 1000 + 20_000)
        for key in 0..<8 {
            #expect(try cache.data(forKey: "k\(key)") == bytes(900, seed: UInt8(truncatingIfNeeded: 392 + key)))
        }
    }
}
