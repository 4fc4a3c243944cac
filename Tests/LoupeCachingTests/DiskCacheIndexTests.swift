import Foundation
import Testing
@testable import LoupeCaching

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DiskCacheIndexTests {
    /// A record of `size` payload bytes in segment 1, its entry `size + 100` bytes long at
    /// offset `1000 × generation` (so the offset tells the writes apart).
    private func record(_ key: String, generation: Int, size: Int, segment: UInt64 = 1) -> DiskCacheIndex.Record {
        DiskCacheIndex.Record(
            key: key, segment: segment, location: DiskCacheSegment.Location(offset: 1000 * generation, length: size + 100, payloadSize: size, checksum: 0),
            storedAt: Date(timeIntervalSince1970: 0), expiresAt: nil, lastAccessedAt: Date(timeIntervalSince1970: 0),
            validators: DiskCacheValidators(), userInfo: nil)
    }

    @Test func keepsLeastRecentlyUsedOrderAndTotalsThroughReplaceTouchAndRemove() {
        var index = DiskCacheIndex()
        index.insert(record("a", generation: 1, size: 10))
        index.insert(record("b", generation: 2, size: 20))
        index.insert(record("c", generation: 3, size: 30))
        #expect(index.recordsOldestFirst.map(\.key) == ["a", "b", "c"])
        #expect(index.totalSize == 60)

        // Replacing moves the key to the newest end and returns the old version.
        let replaced = index.insert(record("b", generation: 4, size: 5))
        #expect(replaced?.location.offset == 2000)
        #expect(index.recordsOldestFirst.map(\.location.offset) == [1000, 3000, 4000])
        #expect(index.totalSize == 45)
        #expect(index.count == 3)

        index.touch(key: "a", at: Date(timeIntervalSince1970: 9))
        #expect(index.recordsOldestFirst.map(\.key) == ["c", "b", "a"])
        #expect(index.record(forKey: "a")?.lastAccessedAt == Date(timeIntervalSince1970: 9))
        #expect(index.leastRecentlyUsed?.key == "c")

        #expect(index.remove(key: "c")?.location.offset == 3000)
        #expect(index.remove(key: "c") == nil)
        #expect(index.leastRecentlyUsed?.key == "b")
        #expect(index.totalSize == 15)
        #expect(index.liveBytes == [1: 215])
        #expect(index.totalLiveBytes == 215)

        // A freed slot is reused without disturbing the order.
        index.insert(record("d", generation: 5, size: 1))
        #expect(index.recordsOldestFirst.map(\.key) == ["b", "a", "d"])
        #expect(index.remove(key: "b") != nil)
        #expect(index.remove(key: "a") != nil)
        #expect(index.remove(key: "d") != nil)
        #expect(index.leastRecentlyUsed == nil)
        #expect(index.totalSize == 0)
        #expect(index.count == 0)
    }

    @Test func countsLiveBytesPerSegmentThroughMovesAndRemovals() {
        var index = DiskCacheIndex()
        index.insert(record("a", generation: 1, size: 10))
        index.insert(record("b", generation: 2, size: 20))
        index.insert(record("c", generation: 3, size: 30, segment: 2))
        #expect(index.liveBytes == [1: 230, 2: 130])
        // A move repoints the key, keeps its LRU position and forgets its verification.
        index.update(key: "a") { $0.verifiedStamp = DiskCacheEntryFile.Stamp(stat()) }
        index.move(key: "a", to: 2, location: DiskCacheSegment.Location(offset: 5000, length: 110, payloadSize: 10, checksum: 0))
        #expect(index.recordsOldestFirst.map(\.key) == ["a", "b", "c"])
        #expect(index.record(forKey: "a")?.segment == 2)
        #expect(index.record(forKey: "a")?.location.offset == 5000)
        #expect(index.record(forKey: "a")?.verifiedStamp == nil)
        #expect(index.liveBytes == [1: 120, 2: 240])
        #expect(index.records(inSegment: 2).map(\.key) == ["a", "c"])
        #expect(index.totalSize == 60)
        // Segment 1 empties: it leaves the map.
        #expect(index.removeAll { $0.segment == 1 }.map(\.key) == ["b"])
        #expect(index.liveBytes == [2: 240])
        #expect(index.totalLiveBytes == 240)
        #expect(index.count == 2)
    }
}
