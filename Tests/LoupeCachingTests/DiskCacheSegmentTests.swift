import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCaching

#if canImport(Glibc)
import Glibc
#endif

/// The segment file on its own (`DiskCache` stores every payload in these): appends read back,
/// damage is a miss and never data, a torn tail is found and dropped.
@Suite struct DiskCacheSegmentTests {
    private func record(_ key: String, userInfo: Data? = nil) -> DiskCacheIndex.Record {
        DiskCacheIndex.Record(
            key: key, segment: 0, location: DiskCacheSegment.Location(offset: 0, length: 0, payloadSize: 0, checksum: 0),
            storedAt: Date(timeIntervalSince1970: 1_700_000_000), expiresAt: Date(timeIntervalSince1970: 1_700_000_600),
            lastAccessedAt: Date(timeIntervalSince1970: 1_700_000_000),
            validators: DiskCacheValidators(etag: "\"\(key)\"", lastModified: nil), userInfo: userInfo)
    }

    private func payload(_ read: DiskCacheSegment.ReadResult) -> Data? {
        if case .payload(let data) = read { return data }
        return nil
    }

    private func isCorrupt(_ read: DiskCacheSegment.ReadResult) -> Bool {
        if case .corrupt = read { return true }
        return false
    }

    /// Overwrites one byte of the file behind the segment's back.
    private func flipByte(at offset: Int, in path: String) throws {
        let descriptor = open(path, O_RDWR)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var byte: UInt8 = 0
        try #require(pread(descriptor, &byte, 1, off_t(offset)) == 1)
        byte ^= 0xFF
        try #require(pwrite(descriptor, &byte, 1, off_t(offset)) == 1)
    }

    @Test func appendedEntriesReadBackVerifiedOrNotAndScanWithTheirMetadata() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let segment = try DiskCacheSegment(path: directory.path + "/segment")
        let first = bytes(100_000, seed: 3)
        let second = Data()
        let third = bytes(8_000, seed: 9)
        let a = try segment.append(first, metadataOf: record("a", userInfo: Data("png".utf8)))
        let b = try segment.append(second, metadataOf: record("b"))
        let c = try segment.append(third, metadataOf: record(String(repeating: "k/../", count: 2_000)))
        #expect(a.offset == 0 && b.offset == a.length && c.offset == a.length + b.length)
        #expect(segment.length == a.length + b.length + c.length)
        #expect(a.payloadSize == 100_000 && b.payloadSize == 0 && c.payloadSize == 8_000)

        #expect(payload(segment.read(a, verify: true)) == first)
        #expect(payload(segment.read(a, verify: false)) == first)
        #expect(payload(segment.read(b, verify: true)) == second)
        #expect(payload(segment.read(c, verify: true)) == third)

        let scan = segment.scan()
        #expect(scan.intactLength == segment.length)
        #expect(scan.entries.map(\.location) == [a, b, c])
        #expect(scan.entries[0].metadata == DiskCacheEntryFile.Metadata(
            key: "a", storedAt: Date(timeIntervalSince1970: 1_700_000_000), expiresAt: Date(timeIntervalSince1970: 1_700_000_600),
            validators: DiskCacheValidators(etag: "\"a\""), userInfo: Data("png".utf8)))
        #expect(scan.entries[2].metadata.key == String(repeating: "k/../", count: 2_000))

        // Reopened, the segment continues where it ended.
        let reopened = try DiskCacheSegment(path: directory.path + "/segment")
        #expect(reopened.length == c.offset + c.length)
        let d = try reopened.append(Data([1, 2, 3]), metadataOf: record("d"))
        #expect(d.offset == c.offset + c.length)
        #expect(payload(reopened.read(a, verify: true)) == first)
        #expect(payload(reopened.read(d, verify: true)) == Data([1, 2, 3]))
    }

    /// Bytes on disk behind the file at `path` (`st_blocks` counts 512-byte units) and its length.
    private func allocation(_ path: String) throws -> (allocated: Int, length: Int) {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return (Int(info.st_blocks) * 512, Int(info.st_size))
    }

    /// Appends go into blocks reserved a step ahead (the file's length still ends at the last
    /// entry, so scans and recovery see only entries); `releaseReserve` gives the rest back.
    @Test func appendsReserveBlocksAheadAndReleaseGivesThemBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/segment"
        let segment = try DiskCacheSegment(path: path)
        let first = try segment.append(bytes(100_000, seed: 1), metadataOf: record("a"))
        var disk = try allocation(path)
        #expect(disk.length == first.length)
        #expect(disk.allocated >= DiskCacheSegment.reserveStep, "allocated \(disk.allocated) bytes")
        #expect(segment.scan().entries.map(\.location) == [first])

        // Past the reserve, the next append reserves another step.
        let big = try segment.append(bytes(DiskCacheSegment.reserveStep, seed: 2), metadataOf: record("b"))
        disk = try allocation(path)
        #expect(disk.length == big.offset + big.length)
        #expect(disk.allocated >= 2 * DiskCacheSegment.reserveStep, "allocated \(disk.allocated) bytes")

        segment.releaseReserve()
        disk = try allocation(path)
        #expect(disk.length == big.offset + big.length)
        #expect(disk.allocated < disk.length + 65_536, "allocated \(disk.allocated) for \(disk.length) bytes")
        #expect(payload(segment.read(first, verify: true)) == bytes(100_000, seed: 1))

        // An append after the release reserves again and still reads back.
        let after = try segment.append(Data([7]), metadataOf: record("c"))
        #expect(payload(segment.read(after, verify: true)) == Data([7]))
        #expect(try allocation(path).allocated >= disk.length + DiskCacheSegment.reserveStep - 4096)
    }

    /// A checksum mismatch is a miss (`.corrupt`), never the damaged bytes and never a crash —
    /// nor is a location that does not describe the bytes (the journal and segment disagree).
    @Test func damagedOrMismatchedEntriesAreCorruptNotData() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/segment"
        let segment = try DiskCacheSegment(path: path)
        let a = try segment.append(bytes(5_000, seed: 1), metadataOf: record("a"))
        let b = try segment.append(bytes(5_000, seed: 2), metadataOf: record("b"))

        try flipByte(at: a.payloadOffset + 1_234, in: path)
        #expect(isCorrupt(segment.read(a, verify: true)))
        #expect(payload(segment.read(b, verify: true)) == bytes(5_000, seed: 2), "its neighbour is untouched")

        var wrongChecksum = b
        wrongChecksum.checksum ^= 1
        #expect(isCorrupt(segment.read(wrongChecksum, verify: true)))
        var shifted = b
        shifted.offset += 1
        #expect(isCorrupt(segment.read(shifted, verify: true)))
        var beyondTheEnd = b
        beyondTheEnd.offset = segment.length
        #expect(isCorrupt(segment.read(beyondTheEnd, verify: true)))
        var tooShort = b
        tooShort.length = 3
        #expect(isCorrupt(segment.read(tooShort, verify: false)))

        // The damaged first entry ends the scan: nothing after damage is trusted from a scan.
        #expect(segment.scan().entries.isEmpty && segment.scan().intactLength == 0)
    }

    /// A process killed mid-append leaves part of an entry at the end: a scan stops before it,
    /// truncating drops it, and the next append follows the last intact entry.
    @Test func aTornAppendAtTheTailIsDroppedAndAppendingContinuesCleanly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/segment"
        let writer = try DiskCacheSegment(path: path)
        let a = try writer.append(bytes(3_000, seed: 1), metadataOf: record("a"))
        let b = try writer.append(bytes(3_000, seed: 2), metadataOf: record("b"))
        // Every cut inside the last entry, coarse steps plus the edges of header and footer.
        let cuts = Array(stride(from: b.offset + 1, to: b.offset + b.length, by: 397))
            + [b.offset + DiskCacheSegment.headerSize, b.offset + b.length - 1, b.offset + b.length - DiskCacheSegment.footerSize]
        for cut in cuts {
            try #require(truncate(path, off_t(cut)) == 0)
            let reopened = try DiskCacheSegment(path: path)
            let scan = reopened.scan()
            #expect(scan.entries.map(\.location) == [a], "cut at \(cut)")
            #expect(scan.intactLength == a.length)
            try reopened.truncate(to: scan.intactLength)
            let again = try reopened.append(bytes(3_000, seed: 2), metadataOf: record("b"))
            #expect(again == b, "the rewritten entry lands where the torn one began")
            #expect(reopened.scan().entries.map(\.location) == [a, b])
        }
        // Garbage after the last entry (a torn header) is dropped the same way.
        let descriptor = open(path, O_WRONLY | O_APPEND)
        try #require(descriptor >= 0)
        let garbage: [UInt8] = [0x4C, 0x50, 0x53, 0x45, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3]
        try #require(write(descriptor, garbage, garbage.count) == garbage.count)
        close(descriptor)
        let reopened = try DiskCacheSegment(path: path)
        #expect(reopened.scan().intactLength == b.offset + b.length)
    }

    /// Reads are `pread`s that never wait for appends: readers on four tasks read entries
    /// published so far while one thread appends 200 more (as the journal hands out a location
    /// only after its append returned). Every read is the bytes appended, verified or not.
    /// Run under ThreadSanitizer too (Scripts/ci/test.sh).
    @Test func readsDuringAppendsSeeCompleteEntries() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let segment = try DiskCacheSegment(path: directory.path + "/segment")
        let first = bytes(20_000, seed: 0)
        let published = Locked([(location: try segment.append(first, metadataOf: record("0")), data: first)])
        let appended = Gate()
        let records = (1...200).map { record("\($0)") }
        let appender = Thread {
            for (index, record) in zip(1..., records) {
                let data = bytes(20_000, seed: UInt8(truncatingIfNeeded: index))
                guard let location = try? segment.append(data, metadataOf: record) else { break }
                published.withLock { $0.append((location, data)) }
            }
            appended.open()
        }
        appender.start()
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for reader in 0..<4 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<400 {
                        let entries = published.withLock { $0 }
                        let entry = entries[(round * 7 + reader) % entries.count]
                        guard case .payload(let data) = segment.read(entry.location, verify: round % 2 == 0), data == entry.data else {
                            mismatches += 1
                            continue
                        }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        try await appended.wait()
        #expect(mismatches == 0)
        #expect(published.withLock { $0.count } == 201)
        #expect(segment.scan().entries.count == 201)
    }
}
