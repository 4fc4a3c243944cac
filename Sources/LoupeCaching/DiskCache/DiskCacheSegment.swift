import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One append-only segment file of the disk cache: entries are appended one after another, and
/// the journal (not the segment) says which of them are live — a removal or eviction is a
/// journal record, and space is reclaimed by compacting mostly-dead segments.
///
/// `DiskCache` keeps every payload in these: appending a 100 KB entry costs
/// far less CPU than creating a file per entry (`LoupeBenchmarks disk-stores`), because no
/// inode is allocated per entry. Segments live in `<cache>/segments/`, named by a counter.
///
/// Each entry is `header | metadata | payload | footer`:
/// - header (16 bytes): magic `LPSE`, metadata length (u32), payload length (u64), so a scan
///   can walk the segment forward without the journal;
/// - metadata: the key, dates, validators and user info (`DiskCacheEntryFile.Metadata`), so
///   the index can be rebuilt from the segments when the journal is lost;
/// - footer (16 bytes): the XXH64 checksum of the header and metadata, seeded with the
///   payload's own XXH64, then the magic `LPSGENDS`.
///
/// Disk blocks are reserved ahead of the appends, 4 MB at a time (`fallocate` with
/// `FALLOC_FL_KEEP_SIZE`: the file's length still ends at its last entry). Appending into
/// reserved blocks costs a third of the CPU of growing the file block by block on ext4
/// (16 µs against 23–136 µs per 100 KB, a C probe on this machine), where delayed allocation
/// and extent updates run on every write. ``releaseReserve()`` gives back what a segment that
/// takes no more appends did not use; a file system without `fallocate` just grows the file.
///
/// An append is one `writev` at the end; a failed or short append is cut back, so a torn entry
/// never sits in front of later ones. A process killed mid-append leaves a torn tail, which
/// ``scan()`` stops at and ``truncate(to:)`` drops; the journal never points into it, because
/// its record is written after the append returns.
///
/// Package-visible (not public) so `LoupeBenchmarks disk-stores` measures this format.
///
/// Reads never wait for appends: a read is a `pread` on a descriptor that stays open for the
/// segment's whole life (closed in `deinit`, so a reader holding the segment can finish even
/// after compaction unlinked its file), and it only touches bytes of an entry whose append
/// returned before the location was handed out. Appends and truncations are serialized by
/// the segment's own lock.
package final class DiskCacheSegment: Sendable {
    /// Where an entry lies in its segment and what it must hash to.
    package struct Location: Equatable {
        /// Offset of the entry's header in the segment.
        package var offset: Int
        /// Header + metadata + payload + footer.
        package var length: Int
        package var payloadSize: Int
        package var checksum: UInt64

        /// The payload is the last part before the footer.
        package var payloadOffset: Int { offset + length - DiskCacheSegment.footerSize - payloadSize }
    }

    /// An intact entry found by ``scan()``.
    struct ScannedEntry: Equatable {
        var location: Location
        var metadata: DiskCacheEntryFile.Metadata
    }

    /// Outcome of reading an entry.
    package enum ReadResult {
        case payload(Data)
        /// The bytes are not the entry the location describes (wrong checksum, cut short,
        /// damaged framing): a miss for the caller, never data.
        case corrupt
        case failed(Int32)
    }

    static let headerSize = 16
    static let footerSize = 16
    private static let headerMagic: UInt32 = 0x4553_504C // "LPSE" little-endian
    private static let footerMagic: UInt64 = 0x5344_4E45_4753_504C // "LPSGENDS" little-endian

    let path: String
    private let descriptor: Int32
    /// Where appends stand; held by appends for their whole write.
    private let tail: Locked<Tail>

    private struct Tail {
        /// Bytes known to hold complete entries (or, right after opening, whatever the file
        /// held): the next append starts here.
        var end: Int
        /// Disk blocks are reserved up to here (at least `end`).
        var reserved: Int
        /// `fallocate` failed as unsupported: the file system cannot reserve, stop asking.
        var reservingUnsupported = false
    }

    /// How far ahead of an append blocks are reserved.
    package static let reserveStep = 4 << 20

    /// Where the next append starts.
    package var length: Int { tail.withLock { $0.end } }

    /// Opens (creating if needed) the segment at `path` for appending and reading.
    package init(path: String) throws(DiskCacheFileSystem.Failure) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DiskCacheFileSystem.Failure(errno: errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw DiskCacheFileSystem.Failure(errno: code)
        }
        self.path = path
        self.descriptor = descriptor
        tail = Locked(Tail(end: Int(info.st_size), reserved: Int(info.st_size)))
    }

    deinit {
        Glibc.close(descriptor)
    }

    // MARK: Writing

    /// Appends `payload` with `record`'s metadata (key, dates, validators, user info) and
    /// returns where it lies. On failure (disk full, I/O error) the segment is cut back to its
    /// length before the call, so nothing half-written remains.
    func append(_ payload: Data, metadataOf record: DiskCacheIndex.Record) throws(DiskCacheFileSystem.Failure) -> Location {
        try append(payload, metadata: DiskCacheEntryFile.Metadata(
            key: record.key, storedAt: record.storedAt, expiresAt: record.expiresAt, validators: record.validators, userInfo: record.userInfo))
    }

    /// Appends `payload` with `metadata`; as ``append(_:metadataOf:)``.
    package func append(_ payload: Data, metadata: DiskCacheEntryFile.Metadata) throws(DiskCacheFileSystem.Failure) -> Location {
        var head = DiskCacheByteWriter(reservingCapacity: Self.headerSize + 64 + metadata.key.utf8.count)
        head.append(Self.headerMagic)
        head.append(UInt32(0)) // metadata length, patched below
        head.append(UInt64(payload.count))
        DiskCacheEntryFile.appendMetadata(metadata, to: &head)
        head.patch(UInt32(head.bytes.count - Self.headerSize), at: 4)
        let payloadHash = payload.withUnsafeBytes { DiskCacheChecksum.hash($0) }
        let checksum = DiskCacheChecksum.hash(head.bytes, seed: payloadHash)
        var footer = DiskCacheByteWriter(reservingCapacity: Self.footerSize)
        footer.append(checksum)
        footer.append(Self.footerMagic)

        let entryLength = head.bytes.count + payload.count + Self.footerSize
        return try tail.withLock { (tail) throws(DiskCacheFileSystem.Failure) -> Location in
            let start = tail.end
            reserve(through: start + entryLength, &tail)
            guard lseek(descriptor, off_t(start), SEEK_SET) == off_t(start) else { throw DiskCacheFileSystem.Failure(errno: errno) }
            do throws(DiskCacheFileSystem.Failure) {
                try DiskCacheFileSystem.writeAll(descriptor, head.bytes, payload, footer.bytes)
            } catch {
                // Best effort: if this fails too, the torn bytes lie beyond `end`, where the next
                // append overwrites them and a scan stops at them.
                _ = ftruncate(descriptor, off_t(start))
                throw error
            }
            tail.end = start + entryLength
            return Location(offset: start, length: entryLength, payloadSize: payload.count, checksum: checksum)
        }
    }

    /// Appends an entry copied verbatim from another segment (compaction): `entry` is the whole
    /// entry `location` described there, already checked. Returns where it now lies; on
    /// failure the segment is cut back as ``append(_:metadata:)`` does.
    func appendCopy(of entry: UnsafeRawBufferPointer, location: Location) throws(DiskCacheFileSystem.Failure) -> Location {
        try tail.withLock { (tail) throws(DiskCacheFileSystem.Failure) -> Location in
            let start = tail.end
            reserve(through: start + entry.count, &tail)
            guard lseek(descriptor, off_t(start), SEEK_SET) == off_t(start) else { throw DiskCacheFileSystem.Failure(errno: errno) }
            do throws(DiskCacheFileSystem.Failure) {
                try DiskCacheFileSystem.writeAll(descriptor, entry)
            } catch {
                _ = ftruncate(descriptor, off_t(start))
                throw error
            }
            tail.end = start + entry.count
            var moved = location
            moved.offset = start
            return moved
        }
    }

    /// Cuts the segment to `newLength` bytes: drops a torn tail that ``scan()`` found.
    func truncate(to newLength: Int) throws(DiskCacheFileSystem.Failure) {
        try tail.withLock { (tail) throws(DiskCacheFileSystem.Failure) in
            guard ftruncate(descriptor, off_t(newLength)) == 0 else { throw DiskCacheFileSystem.Failure(errno: errno) }
            // A truncation also frees blocks reserved beyond the new end.
            tail.end = newLength
            tail.reserved = newLength
        }
    }

    /// Reserves blocks through `needed` bytes, a step ahead, if not already. Best effort: when
    /// it fails (disk full, no support) the write that follows still runs, and reports a full
    /// disk itself.
    private func reserve(through needed: Int, _ tail: inout Tail) {
        guard needed > tail.reserved, !tail.reservingUnsupported else { return }
        let target = max(needed, tail.reserved + Self.reserveStep)
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.reserveBlocks(descriptor, offset: tail.reserved, length: target - tail.reserved)
            tail.reserved = target
        } catch {
            if error.errno == EOPNOTSUPP { tail.reservingUnsupported = true }
        }
    }

    /// Gives back the blocks reserved beyond the last entry: the cache calls it when this
    /// segment stops being the one appended to, and on close. An append that still comes
    /// reserves again.
    func releaseReserve() {
        tail.withLock { tail in
            guard tail.reserved > tail.end else { return }
            // Cutting the file to its own length frees the blocks beyond it (ext4, XFS, tmpfs).
            if ftruncate(descriptor, off_t(tail.end)) == 0 { tail.reserved = tail.end }
        }
    }

    // MARK: Reading

    /// The identity of the segment file as the open descriptor sees it (inode, size, change
    /// time). A read skips the checksum of an entry verified under the same stamp.
    func stamp() -> DiskCacheEntryFile.Stamp? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return DiskCacheEntryFile.Stamp(info)
    }

    /// The whole entry at `location` (header, metadata, payload, footer), checked, for
    /// `body` to copy; `.corrupt` or `.failed` as ``read(_:verify:)``.
    func withCheckedEntry<Result>(_ location: Location, _ body: (UnsafeRawBufferPointer) -> Result) -> Swift.Result<Result, EntryFailure> {
        guard location.offset >= 0, location.length >= Self.headerSize + Self.footerSize + location.payloadSize, location.payloadSize >= 0,
              let buffer = malloc(location.length)
        else { return .failure(.corrupt) }
        defer { free(buffer) }
        switch readFully(into: buffer, count: location.length, at: location.offset) {
        case .failure(let failure): return .failure(.failed(failure.errno))
        case .success(let got) where got < location.length: return .failure(.corrupt)
        case .success: break
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: location.length)
        guard Self.check(bytes, against: location) else { return .failure(.corrupt) }
        return .success(body(bytes))
    }

    /// Why ``withCheckedEntry(_:_:)`` gave no entry.
    enum EntryFailure: Error {
        case corrupt
        case failed(Int32)
    }

    /// The payload at `location`.
    ///
    /// With `verify`, the whole entry is read and its framing and checksum are checked — an
    /// entry's first read in a session, as entry files are checked. Without it only the
    /// payload is read (segments are append-only, so bytes once verified change only if
    /// something outside the cache writes to the file). Either way the returned `Data` is the
    /// read buffer itself, not a copy.
    package func read(_ location: Location, verify: Bool) -> ReadResult {
        guard location.offset >= 0, location.payloadSize >= 0,
              location.length >= Self.headerSize + Self.footerSize + location.payloadSize
        else { return .corrupt }
        let start = verify ? location.offset : location.payloadOffset
        let count = verify ? location.length : location.payloadSize
        // malloc, not Data(count:): zero-filling 100 KB before reading over it is measurable.
        guard let buffer = malloc(max(count, 1)) else { return .failed(ENOMEM) }
        switch readFully(into: buffer, count: count, at: start) {
        case .failure(let failure):
            free(buffer)
            return .failed(failure.errno)
        case .success(let got) where got < count:
            free(buffer)
            return .corrupt
        case .success:
            break
        }
        guard verify else { return .payload(Data(bytesNoCopy: buffer, count: count, deallocator: .free)) }
        guard Self.check(UnsafeRawBufferPointer(start: buffer, count: count), against: location) else {
            free(buffer)
            return .corrupt
        }
        let payloadStart = location.payloadOffset - location.offset
        return .payload(Data(bytesNoCopy: buffer + payloadStart, count: location.payloadSize, deallocator: .custom { _, _ in free(buffer) }))
    }

    /// Every intact entry from the start, in order, and the length they span: the scan stops
    /// at the first entry that is cut short or fails its framing or checksum (a torn tail, or
    /// damage), so `intactLength` is where a reopened segment should be truncated before
    /// appending. Reads the whole segment (from `start`, which must be an entry boundary);
    /// used when the journal is lost, and from the last journaled entry's end after a crash.
    func scan(from start: Int = 0) -> (entries: [ScannedEntry], intactLength: Int) {
        var entries: [ScannedEntry] = []
        var offset = start
        let length = self.length
        var header = [UInt8](repeating: 0, count: Self.headerSize)
        while offset + Self.headerSize + Self.footerSize <= length {
            let headerRead = header.withUnsafeMutableBytes { raw -> Result<Int, DiskCacheFileSystem.Failure> in
                guard let base = raw.baseAddress else { return .success(0) }
                return readFully(into: base, count: Self.headerSize, at: offset)
            }
            guard case .success(Self.headerSize) = headerRead else { break }
            let framing = header.withUnsafeBytes { raw -> (metadata: Int, payload: Int)? in
                var reader = DiskCacheByteReader(raw)
                guard reader.readUInt32() == Self.headerMagic, let metadata = reader.readUInt32(), let payload = reader.readUInt64(),
                      payload <= UInt64(Int.max / 2)
                else { return nil }
                return (Int(metadata), Int(payload))
            }
            guard let framing else { break }
            let entryLength = Self.headerSize + framing.metadata + framing.payload + Self.footerSize
            guard entryLength <= length - offset else { break }
            guard let buffer = malloc(entryLength) else { break }
            defer { free(buffer) }
            guard case .success(entryLength) = readFully(into: buffer, count: entryLength, at: offset) else { break }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: entryLength)
            var footer = DiskCacheByteReader(bytes, offset: entryLength - Self.footerSize)
            guard let checksum = footer.readUInt64() else { break }
            let location = Location(offset: offset, length: entryLength, payloadSize: framing.payload, checksum: checksum)
            guard Self.check(bytes, against: location) else { break }
            var metadataReader = DiskCacheByteReader(UnsafeRawBufferPointer(rebasing: bytes[Self.headerSize..<(Self.headerSize + framing.metadata)]))
            guard let metadata = DiskCacheEntryFile.readMetadata(from: &metadataReader), metadataReader.remaining == 0 else { break }
            entries.append(ScannedEntry(location: location, metadata: metadata))
            offset += entryLength
        }
        return (entries, offset)
    }

    // MARK: Internals

    /// Checks a whole entry held in memory: framing, both magics and the checksum.
    private static func check(_ bytes: UnsafeRawBufferPointer, against location: Location) -> Bool {
        guard bytes.count == location.length, bytes.count >= headerSize + footerSize + location.payloadSize else { return false }
        var header = DiskCacheByteReader(bytes)
        guard header.readUInt32() == headerMagic, let metadataLength = header.readUInt32().map(Int.init),
              header.readUInt64() == UInt64(location.payloadSize),
              headerSize + metadataLength + location.payloadSize + footerSize == bytes.count
        else { return false }
        var footer = DiskCacheByteReader(bytes, offset: bytes.count - footerSize)
        guard footer.readUInt64() == location.checksum, footer.readUInt64() == footerMagic else { return false }
        let headEnd = headerSize + metadataLength
        let payloadHash = DiskCacheChecksum.hash(UnsafeRawBufferPointer(rebasing: bytes[headEnd..<(headEnd + location.payloadSize)]))
        return DiskCacheChecksum.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<headEnd]), seed: payloadHash) == location.checksum
    }

    /// `pread` until `count` bytes or the end of the file; returns how many were read.
    private func readFully(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Result<Int, DiskCacheFileSystem.Failure> {
        var total = 0
        while total < count {
            let got = pread(descriptor, buffer + total, count - total, off_t(offset + total))
            if got < 0 {
                if errno == EINTR { continue }
                return .failure(DiskCacheFileSystem.Failure(errno: errno))
            }
            if got == 0 { break }
            total += got
        }
        return .success(total)
    }
}
