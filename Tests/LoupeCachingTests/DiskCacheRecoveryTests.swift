import Foundation
import Testing
@testable import LoupeCaching

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

    private func entryPath(_ directory: TemporaryDirectory, generation: UInt64) -> String {
        directory.entriesPath + "/" + DiskCache.fileName(generation)
    }

    @Test func corruptPayloadIsDroppedAndReportedNeverServed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        // k2 was the third write: generation 3. Flip one payload byte.
        let path = entryPath(directory, generation: 3)
        var content = try Data(contentsOf: URL(fileURLWithPath: path))
        content[500] ^= 0x01
        try content.write(to: URL(fileURLWithPath: path))

        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(throws: DiskCacheError.corruptEntry(key: "k2")) { try cache.data(forKey: "k2") }
        #expect(try cache.data(forKey: "k2") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(cache.count == 4)
        #expect(cache.totalSize == 4000)
        #expect(try cache.data(forKey: "k1") == bytes(1000, seed: 1))
    }

    @Test func fileChangedAfterItWasVerifiedIsCheckedAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        // Verified once: later reads skip the hash while the file is unchanged...
        #expect(try cache.data(forKey: "k0") == bytes(1000, seed: 0))
        #expect(try cache.data(forKey: "k0") == bytes(1000, seed: 0))
        #expect(try cache.data(forKey: "k1") == bytes(1000, seed: 1))
        // ...and hash it again once the file changes in place (same size, same inode)...
        usleep(20_000) // past the file system's timestamp granularity
        let inPlace = FileHandle(forUpdatingAtPath: entryPath(directory, generation: 1))
        try inPlace?.seek(toOffset: 10)
        try inPlace?.write(contentsOf: Data([0xEE]))
        try inPlace?.close()
        #expect(throws: DiskCacheError.corruptEntry(key: "k0")) { try cache.data(forKey: "k0") }
        // ...or is replaced by another file of the same size.
        let replacement = URL(fileURLWithPath: entryPath(directory, generation: 2))
        var content = try Data(contentsOf: replacement)
        content[0] ^= 0x01
        try FileManager.default.removeItem(at: replacement)
        try content.write(to: replacement)
        #expect(throws: DiskCacheError.corruptEntry(key: "k1")) { try cache.data(forKey: "k1") }
        #expect(cache.count == 3)
    }

    @Test func truncatedOrGrownEntryFileIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let truncated = URL(fileURLWithPath: entryPath(directory, generation: 1))
        try Data(try Data(contentsOf: truncated).prefix(600)).write(to: truncated)
        let grown = URL(fileURLWithPath: entryPath(directory, generation: 2))
        try (try Data(contentsOf: grown) + Data([0])).write(to: grown)
        // Same size, damaged trailer (the checksum covers metadata too).
        let trailer = URL(fileURLWithPath: entryPath(directory, generation: 4))
        var content = try Data(contentsOf: trailer)
        content[1002] ^= 0xFF
        try content.write(to: trailer)

        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(throws: DiskCacheError.corruptEntry(key: "k0")) { try cache.entry(forKey: "k0") }
        #expect(throws: DiskCacheError.corruptEntry(key: "k1")) { try cache.entry(forKey: "k1") }
        #expect(throws: DiskCacheError.corruptEntry(key: "k3")) { try cache.entry(forKey: "k3") }
        #expect(try cache.data(forKey: "k4") == bytes(1000, seed: 4))
        #expect(cache.count == 2)
    }

    @Test func entryFileDeletedBehindTheCacheIsAMiss() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        try FileManager.default.removeItem(atPath: entryPath(directory, generation: 1))
        #expect(try cache.data(forKey: "k0") == nil)
        #expect(cache.count == 4)
    }

    @Test func missingJournalIsRebuiltFromEntryFiles() throws {
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
            // A valid journal without records: trusted as far as it goes, files become orphans.
            #expect(cache.count == 0)
            #expect(cache.recovery.removedFiles == 20)
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
        // Drop the close record (17 bytes) and half of the last put: a crash mid-append.
        try Data(journal.prefix(journal.count - 17 - 20)).write(to: journalURL)
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(!cache.recovery.previousSessionEndedCleanly)
        #expect(!cache.recovery.indexRebuiltFromFiles)
        // k4's put was cut off: its file is unreferenced and removed; the rest is intact.
        #expect(cache.recovery.removedFiles == 1)
        #expect(cache.count == 4)
        #expect(try cache.data(forKey: "k4") == nil)
        #expect(try cache.data(forKey: "k3") == bytes(1000, seed: 3))
    }

    @Test func afterACrashLeftoversAreRemovedAndForeignFilesLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try populate(directory)
        // Make it look like a crash: no close record, a temporary file of an interrupted write,
        // an entry file written but never journaled, and an entry whose file vanished.
        let journalURL = URL(fileURLWithPath: directory.journalPath)
        try Data(try Data(contentsOf: journalURL).dropLast(17)).write(to: journalURL)
        let temporary = entryPath(directory, generation: 6) + ".tmp"
        let unjournaled = entryPath(directory, generation: 7)
        try Data("partial".utf8).write(to: URL(fileURLWithPath: temporary))
        try Data("complete".utf8).write(to: URL(fileURLWithPath: unjournaled))
        try FileManager.default.removeItem(atPath: entryPath(directory, generation: 5))
        let foreign = [directory.path + "/README.txt", directory.entriesPath + "/notes", directory.entriesPath + "/00000000000000AB",
                       directory.entriesPath + "/0000000000000001.bak", directory.entriesPath + "/sub/0000000000000002"]
        try FileManager.default.createDirectory(atPath: directory.entriesPath + "/sub", withIntermediateDirectories: true)
        for path in foreign { try Data("mine".utf8).write(to: URL(fileURLWithPath: path)) }

        let cache = try DiskCache(directory: directory.url)
        #expect(!cache.recovery.previousSessionEndedCleanly)
        #expect(cache.recovery.removedFiles == 2)
        #expect(cache.recovery.droppedEntries == 1)
        #expect(cache.count == 4)
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(!FileManager.default.fileExists(atPath: unjournaled))
        for path in foreign { #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("mine".utf8)) }
        // New writes do not reuse the names of files the crashed session may have written.
        try cache.store(bytes(10), forKey: "new")
        #expect(try cache.data(forKey: "new") == bytes(10))
        cache.close()

        // Foreign files also survive a rebuild from files.
        try FileManager.default.removeItem(atPath: directory.journalPath)
        let rebuilt = try DiskCache(directory: directory.url)
        defer { rebuilt.close() }
        #expect(rebuilt.count == 5)
        for path in foreign { #expect(FileManager.default.fileExists(atPath: path)) }
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
