import Foundation
import Testing
@testable import LoupeCaching

@Suite struct DiskCacheIndexTests {
    private func record(_ key: String, generation: UInt64, size: Int) -> DiskCacheIndex.Record {
        DiskCacheIndex.Record(
            key: key, generation: generation, payloadSize: size, fileSize: size + 24, checksum: 0,
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
        #expect(replaced?.generation == 2)
        #expect(index.recordsOldestFirst.map(\.generation) == [1, 3, 4])
        #expect(index.totalSize == 45)
        #expect(index.count == 3)

        index.touch(key: "a", at: Date(timeIntervalSince1970: 9))
        #expect(index.recordsOldestFirst.map(\.key) == ["c", "b", "a"])
        #expect(index.record(forKey: "a")?.lastAccessedAt == Date(timeIntervalSince1970: 9))
        #expect(index.leastRecentlyUsed?.key == "c")

        #expect(index.remove(key: "c")?.generation == 3)
        #expect(index.remove(key: "c") == nil)
        #expect(index.leastRecentlyUsed?.key == "b")
        #expect(index.totalSize == 15)
        #expect(index.generations == [4, 1])
        #expect(index.keys(withGenerations: [1]) == ["a"])

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
}
