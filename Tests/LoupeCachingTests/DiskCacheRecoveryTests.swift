import Foundation
import Testing
@testable import LoupeCaching

#if canImport(Glibc)
import Glibc
#endif

/// Damaged entries, damaged or missing journals, leftovers of a crash and foreign files.
@Suite struct DiskCacheRecoveryTests {
    /// Stores `count` entries of 1000 bytes and closes the cache.
    private func populate(_ directory: TemporaryDirectory, count: Int = 5) throws {
        let cache = try DiskCache(directory: directory.url)
        for index in 0..<count {
            try cache.store(bytes(1000, seed: UInt8(index)), forKey: "k\(index)", validators: DiskCacheValidators(etag: "e\(index)"))
        }
        cache.close()
    }

    @Test func corruptPayloadIsDroppedAndReportedNeverServed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        // Flip one payload byte of k2 in its segment.
        let (path, location) = try directory.location(of: "k2")
        try directory.flipByte(at: location.payloadOffset + 500, in: path)

        do {
            let cache = try DiskCache(directory: directory.url)
            defer { cache.close() }
            #expect(throws: DiskCacheError.corruptEntry(key: "k2")) { try cache.data(forKey: "k2") }
            #expect(try cache.data(forKey: "k2") == nil)
            #expect(cache.count == 4)
            #expect(cache.totalSize == 4000)
            #expect(try cache.data(forKey: "k1") == bytes(1000, seed: 1))
        }
        // The drop is journaled: the damaged bytes are never read again.
        let reopened = try DiskCache(directory: directory.url)
        defer { reopened.close() }
        #expect(reopened.count == 4)
        #expect(try reopened.data(forKey: "k2") == nil)
    }

    @Test func segmentChangedAfterAnEntryWasVerifiedIsCheckedAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let k0 = try directory.location(of: "k0")
        let k1 = try directory.location(of: "k1")
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        // Verified once: later reads skip the hash while the segment is unchanged...
        #expect(try cache.data(forKey: "k0") == bytes(1000, seed: 0))
        #expect(try cache.data(forKey: "k0") == bytes(1000, seed: 0))
        #expect(try cache.data(forKey: "k1") == bytes(1000, seed: 1))
        // ...and hash again once the segment changes in place (same size, same inode).
        usleep(20_000) // past the file system's timestamp granularity
        try directory.flipByte(at: k0.location.payloadOffset + 10, in: k0.path)
        #expect(throws: DiskCacheError.corruptEntry(key: "k0")) { try cache.data(forKey: "k0") }
        // A store in between (which moves the segment's stamp itself) hides no later damage.
        try cache.store(bytes(10), forKey: "new")
        usleep(20_000)
        try directory.flipByte(at: k1.location.payloadOffset, in: k1.path)
        #expect(throws: DiskCacheError.corruptEntry(key: "k1")) { try cache.data(forKey: "k1") }
        #expect(cache.count == 4)
        #expect(try cache.data(forKey: "k2") == bytes(1000, seed: 2))
    }

    @Test func damagedFramingOrMetadataIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let k0 = try directory.location(of: "k0")
        let k1 = try directory.location(of: "k1")
        let k3 = try directory.location(of: "k3")
        // The header's magic, the footer's magic, and a metadata byte (the checksum covers it).
        try directory.flipByte(at: k0.location.offset, in: k0.path)
        try directory.flipByte(at: k1.location.offset + k1.location.length - 1, in: k1.path)
        try directory.flipByte(at: k3.location.offset + DiskCacheSegment.headerSize + 6, in: k3.path)

        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(throws: DiskCacheError.corruptEntry(key: "k0")) { try cache.entry(forKey: "k0") }
        #expect(throws: DiskCacheError.corruptEntry(key: "k1")) { try cache.entry(forKey: "k1") }
        #expect(throws: DiskCacheError.corruptEntry(key: "k3")) { try cache.entry(forKey: "k3") }
        #expect(try cache.data(forKey: "k4") == bytes(1000, seed: 4))
        #expect(cache.count == 2)
    }

    @Test func segmentCutShortBehindTheOpenCacheIsCorruptNeverServed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let k3 = try directory.location(of: "k3")
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(truncate(k3.path, off_t(k3.location.offset + 500)) == 0)
        #expect(throws: DiskCacheError.corruptEntry(key: "k3")) { try cache.data(forKey: "k3") }
        #expect(throws: DiskCacheError.corruptEntry(key: "k4")) { try cache.data(forKey: "k4") }
        #expect(try cache.data(forKey: "k2") == bytes(1000, seed: 2))
        #expect(cache.count == 3)
    }

    @Test func reopenAfterACrashThatCutASegmentMidEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let k3 = try directory.location(of: "k3")
        // A crash: no close record, and the segment ends in the middle of k3.
        let journalURL = URL(fileURLWithPath: directory.journalPath)
        try Data(try Data(contentsOf: journalURL).dropLast(9)).write(to: journalURL)
        #expect(truncate(k3.path, off_t(k3.location.offset + 500)) == 0)

        let cache = try DiskCache(directory: directory.url)
        #expect(!cache.recovery.previousSessionEndedCleanly)
        #expect(!cache.recovery.indexRebuiltFromFiles)
        // k3 and k4 pointed past the segment's end; the torn bytes of k3 are cut off.
        #expect(cache.recovery.droppedEntries == 2)
        #expect(cache.count == 3)
        #expect(cache.segmentBytes == k3.location.offset)
        for index in 0..<3 { #expect(try cache.data(forKey: "k\(index)") == bytes(1000, seed: UInt8(index))) }
        #expect(try cache.data(forKey: "k3") == nil)
        // New entries follow a clean boundary and survive the next open.
        try cache.store(bytes(700, seed: 7), forKey: "after")
        cache.close()
        let reopened = try DiskCache(directory: directory.url)
        defer { reopened.close() }
        #expect(reopened.recovery == DiskCache.Recovery())
        #expect(try reopened.data(forKey: "after") == bytes(700, seed: 7))
        #expect(reopened.count == 4)
    }

    @Test func missingJournalIsRebuiltFromSegments() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        do {
            let cache = try DiskCache(directory: directory.url, now: clock.now)
            try cache.store(bytes(300), forKey: "a", expiry: .after(100), validators: DiskCacheValidators(etag: "x", lastModified: "y"), userInfo: Data([1, 2]))
            clock.advance(by: 1)
            try cache.store(bytes(200), forKey: "b", expiry: .never)
            cache.close()
        }
        try FileManager.default.removeItem(atPath: directory.journalPath)
        let cache = try DiskCache(directory: directory.url, now: clock.now)
        defer { cache.close() }
        #expect(cache.recovery.indexRebuiltFromFiles)
        #expect(!cache.recovery.previousSessionEndedCleanly)
        #expect(cache.count == 2)
        #expect(cache.totalSize == 500)
        let a = try #require(try cache.entry(forKey: "a"))
        #expect(a.data == bytes(300))
        #expect(a.validators == DiskCacheValidators(etag: "x", lastModified: "y"))
        #expect(a.userInfo == Data([1, 2]))
        #expect(a.expiresAt == clock.now().addingTimeInterval(99))
        #expect(try cache.entry(forKey: "b")?.expiresAt == nil)
    }

    @Test(arguments: ["garbage-middle", "length-middle", "garbage-whole", "empty", "header-only", "bad-version"])
    func damagedJournalIsRebuiltNeverACrash(damage: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory, count: 20)
        let journalURL = URL(fileURLWithPath: directory.journalPath)
        var journal = try Data(contentsOf: journalURL)
        switch damage {
        case "garbage-middle":
            for offset in stride(from: journal.count / 3, to: journal.count / 3 + 40, by: 1) { journal[offset] = 0xA5 }
        case "length-middle":
            // The length field of the first record claims more bytes than the file has.
            journal[16] = 0xFF
            journal[17] = 0xFF
            journal[18] = 0xFF
        case "garbage-whole":
            journal = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        case "empty":
            journal = Data()
        case "header-only":
            journal = journal.prefix(16)
        default:
            journal[8] ^= 0xFF // version field
        }
        try journal.write(to: journalURL)

        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(!cache.recovery.previousSessionEndedCleanly)
        if damage == "header-only" {
            // A valid journal without records: trusted as far as it goes, the segment is dead.
            #expect(cache.count == 0)
            #expect(cache.recovery.removedFiles == 1)
            #expect(try directory.segmentFileNames().isEmpty)
        } else {
            #expect(cache.recovery.indexRebuiltFromFiles)
            #expect(cache.count == 20)
            for index in 0..<20 { #expect(try cache.data(forKey: "k\(index)") == bytes(1000, seed: UInt8(index))) }
        }
        // And the repaired journal is good for the next session.
        cache.close()
        let reopened = try DiskCache(directory: directory.url)
        defer { reopened.close() }
        #expect(reopened.recovery == DiskCache.Recovery())
    }

    @Test func cutOffJournalTailKeepsTheValidPrefix() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let journalURL = URL(fileURLWithPath: directory.journalPath)
        let journal = try Data(contentsOf: journalURL)
        // Drop the close record (9 bytes) and half of the last put: a crash mid-append.
        try Data(journal.prefix(journal.count - 9 - 20)).write(to: journalURL)
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(!cache.recovery.previousSessionEndedCleanly)
        #expect(!cache.recovery.indexRebuiltFromFiles)
        // k4's put was cut off: its bytes in the segment are dead; the rest is intact.
        #expect(cache.recovery.droppedEntries == 0)
        #expect(cache.count == 4)
        #expect(try cache.data(forKey: "k4") == nil)
        #expect(try cache.data(forKey: "k3") == bytes(1000, seed: 3))
        #expect(cache.deadBytes > 1000)
    }

    @Test func afterACrashLeftoversAreRemovedAndForeignFilesLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let segment = try directory.location(of: "k0").path
        let segmentLength = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)
        // Make it look like a crash: no close record, a torn append at the segment's end, and an
        // empty segment a rollover had just created.
        let journalURL = URL(fileURLWithPath: directory.journalPath)
        try Data(try Data(contentsOf: journalURL).dropLast(9)).write(to: journalURL)
        let handle = try #require(FileHandle(forUpdatingAtPath: segment))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("LPSE torn".utf8))
        try handle.close()
        let empty = directory.segmentsPath + "/" + DiskCache.fileName(0x20)
        try Data().write(to: URL(fileURLWithPath: empty))
        let foreign = [directory.path + "/README.txt", directory.segmentsPath + "/notes", directory.segmentsPath + "/00000000000000AB",
                       directory.segmentsPath + "/0000000000000001.bak", directory.segmentsPath + "/sub/0000000000000002"]
        try FileManager.default.createDirectory(atPath: directory.segmentsPath + "/sub", withIntermediateDirectories: true)
        for path in foreign { try Data("mine".utf8).write(to: URL(fileURLWithPath: path)) }

        let cache = try DiskCache(directory: directory.url)
        #expect(!cache.recovery.previousSessionEndedCleanly)
        #expect(cache.recovery.removedFiles == 1)
        #expect(cache.recovery.droppedEntries == 0)
        #expect(cache.count == 5)
        #expect(!FileManager.default.fileExists(atPath: empty))
        #expect(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int == segmentLength)
        for path in foreign { #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("mine".utf8)) }
        try cache.store(bytes(10), forKey: "new")
        #expect(try cache.data(forKey: "new") == bytes(10))
        cache.close()

        // Foreign files also survive a rebuild from the segments.
        try FileManager.default.removeItem(atPath: directory.journalPath)
        let rebuilt = try DiskCache(directory: directory.url)
        defer { rebuilt.close() }
        #expect(rebuilt.count == 6)
        for path in foreign { #expect(FileManager.default.fileExists(atPath: path)) }
    }

    @Test func previousLayoutsEntryFilesAreDiscardedOnOpen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // What the one-file-per-entry layout left: a version-1 journal and entries/ files.
        try FileManager.default.createDirectory(atPath: directory.entriesPath, withIntermediateDirectories: true)
        for name in [DiskCache.fileName(1), DiskCache.fileName(2), DiskCache.fileName(3) + ".tmp"] {
            try bytes(500).write(to: URL(fileURLWithPath: directory.entriesPath + "/" + name))
        }
        var journal = Data([0x4C, 0x4E, 0x52, 0x4A, 0x43, 0x44, 0x50, 0x4C, 1, 0, 0, 0, 0, 0, 0, 0])
        journal += bytes(200)
        try journal.write(to: URL(fileURLWithPath: directory.journalPath))

        let cache = try DiskCache(directory: directory.url)
        #expect(cache.recovery.removedFiles == 3)
        #expect(cache.recovery.indexRebuiltFromFiles)
        #expect(cache.count == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.entriesPath))
        try cache.store(bytes(100), forKey: "k")
        cache.close()
        let reopened = try DiskCache(directory: directory.url)
        defer { reopened.close() }
        #expect(reopened.recovery == DiskCache.Recovery())
        #expect(try reopened.data(forKey: "k") == bytes(100))
    }

    @Test func secondCacheOnTheSameDirectoryInThisProcessIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try DiskCache(directory: directory.url)
        #expect(throws: DiskCacheError.directoryInUse(path: directory.url.standardizedFileURL.path)) {
            try DiskCache(directory: directory.url)
        }
        first.close()
        let second = try DiskCache(directory: directory.url)
        second.close()
    }

    @Test func directoryThatIsAFileIsATypedError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: file) }
    }
}
