import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The disk cache's append-only journal, in the style of OkHttp's DiskLruCache: every change
/// to the index is a record appended to one file, and opening the cache replays the file.
///
/// Format: a 16-byte header (magic, version), then records `length: u32 | check: u32 | body`,
/// where `check` is the low 32 bits of the body's XXH64 and the body starts with a
/// `RecordType`. A record that is cut short (the process died in `write`) or fails its check
/// ends the replay there.
///
/// Version 2 is the segment layout's: a put record carries the entry's address (segment,
/// offset, length, checksum), and a move record repoints a key at the copy compaction made,
/// keeping its LRU position. A version-1 journal (one file per entry) does not replay: the
/// cache rebuilds from its segments, of which that layout has none.
///
/// Mutations (put, update, remove) are written before the call that made them returns;
/// access records (`read`) are only buffered and ride along with the next write, because
/// losing some LRU order in a crash is harmless and a system call per cache hit is not.
/// When the journal holds many more records than live entries it is rewritten (compacted).
final class DiskCacheJournal {
    enum RecordType: UInt8 {
        case put = 1
        case read = 2
        case update = 3
        case remove = 4
        case open = 5
        case close = 6
        case move = 7
    }

    /// What replaying a journal produced.
    struct Replay {
        var index = DiskCacheIndex()
        /// The last record is `close`: the previous owner shut down cleanly, so the index and
        /// the directory agree and nothing needs checking.
        var endedCleanly = false
        /// The header or a record in the middle is damaged (not merely a cut-off last record):
        /// the index cannot be trusted and must be rebuilt from the segments.
        var damaged = false
        /// Number of records replayed, live or superseded.
        var recordCount = 0
    }

    private static let magic: UInt64 = 0x4C50_4443_4A52_4E4C // "LPDCJRNL"
    private static let version: UInt32 = 2
    private static let headerSize = 16
    /// Access records are written once this many bytes are waiting, even without a mutation.
    private static let pendingFlushThreshold = 64 * 1024

    let path: String
    private var descriptor: Int32
    private var pending = DiskCacheByteWriter()
    /// Bytes known to be fully written; a failed append is cut back to this length so a
    /// half-written record never sits in front of later ones.
    private var committedLength: Int

    /// Number of records in the file (live or superseded); compaction is decided from it.
    private(set) var recordCount = 0

    /// Writes a fresh journal holding `records` (oldest first) and opens it for appending.
    /// The new file replaces the old one only once complete (temporary file + rename).
    init(path: String, records: [DiskCacheIndex.Record]) throws(DiskCacheFileSystem.Failure) {
        self.path = path
        (descriptor, committedLength, recordCount) = try Self.writeFresh(path: path, records: records)
    }

    /// Opens an existing journal for appending (after a successful replay).
    init(appendingTo path: String, length: Int, recordCount: Int) throws(DiskCacheFileSystem.Failure) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw DiskCacheFileSystem.Failure(errno: errno) }
        // Drop any cut-off record at the end so new records follow a clean boundary.
        if ftruncate(descriptor, off_t(length)) != 0 {
            let code = errno
            Glibc.close(descriptor)
            throw DiskCacheFileSystem.Failure(errno: code)
        }
        self.descriptor = descriptor
        self.committedLength = length
        self.recordCount = recordCount
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    // MARK: Appending

    func appendPut(_ record: DiskCacheIndex.Record) {
        appendRecord(.put) { Self.encodePut(record, into: &$0) }
    }

    func appendMove(key: String, to segment: UInt64, location: DiskCacheSegment.Location) {
        appendRecord(.move) { body in
            Self.encode(segment: segment, location: location, into: &body)
            body.append(key)
        }
    }

    func appendRead(key: String, at date: Date) {
        appendRecord(.read) { body in
            body.append(date)
            body.append(key)
        }
    }

    func appendUpdate(key: String, expiresAt: Date?, validators: DiskCacheValidators) {
        appendRecord(.update) { body in
            body.append(optional: expiresAt)
            body.append(optional: validators.etag)
            body.append(optional: validators.lastModified)
            body.append(key)
        }
    }

    func appendRemove(key: String) {
        appendRecord(.remove) { $0.append(key) }
    }

    func appendOpen() {
        appendRecord(.open) { _ in }
    }

    func appendClose() {
        appendRecord(.close) { _ in }
    }

    /// Whether enough access records are waiting that they should be written now.
    var wantsFlush: Bool { pending.bytes.count >= Self.pendingFlushThreshold }

    /// Writes all buffered records. On failure they are discarded and the file is cut back to
    /// its last complete record, so the journal stays replayable.
    func flush() throws(DiskCacheFileSystem.Failure) {
        guard !pending.bytes.isEmpty else { return }
        defer { pending = DiskCacheByteWriter() }
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.writeAll(descriptor, pending.bytes)
            committedLength += pending.bytes.count
        } catch {
            _ = ftruncate(descriptor, off_t(committedLength))
            throw error
        }
    }

    /// Replaces the journal with one record per live entry (oldest first).
    func compact(records: [DiskCacheIndex.Record]) throws(DiskCacheFileSystem.Failure) {
        pending = DiskCacheByteWriter()
        let (newDescriptor, length, count) = try Self.writeFresh(path: path, records: records)
        Glibc.close(descriptor)
        descriptor = newDescriptor
        committedLength = length
        recordCount = count
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    private func appendRecord(_ type: RecordType, _ encodeBody: (inout DiskCacheByteWriter) -> Void) {
        Self.frame(type, into: &pending, encodeBody)
        recordCount += 1
    }

    private static func frame(_ type: RecordType, into writer: inout DiskCacheByteWriter, _ encodeBody: (inout DiskCacheByteWriter) -> Void) {
        let start = writer.bytes.count
        writer.append(UInt32(0)) // length, back-filled below
        writer.append(UInt32(0)) // check, back-filled below
        writer.append(type.rawValue)
        encodeBody(&writer)
        let bodyStart = start + 8
        let length = writer.bytes.count - bodyStart
        let check = writer.bytes.withUnsafeBytes {
            UInt32(truncatingIfNeeded: DiskCacheChecksum.hash(UnsafeRawBufferPointer(rebasing: $0[bodyStart...])))
        }
        writer.patch(UInt32(length), at: start)
        writer.patch(check, at: start + 4)
    }

    private static func encode(segment: UInt64, location: DiskCacheSegment.Location, into body: inout DiskCacheByteWriter) {
        body.append(segment)
        body.append(UInt64(location.offset))
        body.append(UInt64(location.length))
        body.append(UInt64(location.payloadSize))
        body.append(location.checksum)
    }

    private static func decodeAddress(_ reader: inout DiskCacheByteReader) -> (UInt64, DiskCacheSegment.Location)? {
        guard let segment = reader.readUInt64(), let offset = reader.readUInt64(), let length = reader.readUInt64(),
              let payloadSize = reader.readUInt64(), let checksum = reader.readUInt64(),
              offset <= UInt64(Int.max / 2), length <= UInt64(Int.max / 2), payloadSize <= length
        else { return nil }
        return (segment, DiskCacheSegment.Location(offset: Int(offset), length: Int(length), payloadSize: Int(payloadSize), checksum: checksum))
    }

    private static func encodePut(_ record: DiskCacheIndex.Record, into body: inout DiskCacheByteWriter) {
        encode(segment: record.segment, location: record.location, into: &body)
        body.append(record.storedAt)
        body.append(optional: record.expiresAt)
        body.append(record.lastAccessedAt)
        body.append(optional: record.validators.etag)
        body.append(optional: record.validators.lastModified)
        body.append(optional: record.userInfo)
        body.append(record.key)
    }

    private static func writeFresh(path: String, records: [DiskCacheIndex.Record]) throws(DiskCacheFileSystem.Failure) -> (Int32, Int, Int) {
        var writer = DiskCacheByteWriter(reservingCapacity: headerSize + records.count * 128)
        writer.append(magic)
        writer.append(version)
        writer.append(UInt32(0))
        for record in records {
            frame(.put, into: &writer) { encodePut(record, into: &$0) }
        }
        // The journal of an open cache never ends in `close`, so a crash is always detectable.
        frame(.open, into: &writer) { _ in }
        let temporaryPath = path + ".tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DiskCacheFileSystem.Failure(errno: errno) }
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.writeAll(descriptor, writer.bytes)
            guard rename(temporaryPath, path) == 0 else { throw DiskCacheFileSystem.Failure(errno: errno) }
        } catch {
            Glibc.close(descriptor)
            DiskCacheFileSystem.remove(temporaryPath)
            throw error
        }
        return (descriptor, writer.bytes.count, records.count + 1)
    }

    // MARK: Replaying

    /// Replays the journal at `path`; `nil` when there is none. Also returns the length of the
    /// valid prefix, where appending may continue.
    static func replay(path: String) throws(DiskCacheFileSystem.Failure) -> (Replay, validLength: Int)? {
        guard let bytes = try DiskCacheFileSystem.readFile(path) else { return nil }
        return bytes.withUnsafeBytes { replay($0) }
    }

    private static func replay(_ bytes: UnsafeRawBufferPointer) -> (Replay, validLength: Int) {
        // Sized for the records a journal of this length holds (about 100 bytes each), so the
        // index does not rehash every key several times while growing.
        var result = Replay(index: DiskCacheIndex(minimumCapacity: bytes.count / 100))
        var reader = DiskCacheByteReader(bytes)
        guard reader.readUInt64() == magic, reader.readUInt32() == version, reader.readUInt32() != nil else {
            result.damaged = true
            return (result, 0)
        }
        var validLength = reader.offset
        var lastType: RecordType?
        while reader.remaining > 0 {
            let recordStart = reader.offset
            guard let length = reader.readUInt32().map(Int.init), let check = reader.readUInt32(),
                  let body = reader.readRaw(length),
                  UInt32(truncatingIfNeeded: DiskCacheChecksum.hash(body)) == check,
                  let type = apply(body, to: &result)
            else {
                // A cut-off last record is what a crash in the middle of an append leaves; the
                // valid prefix stands. A bad record with good ones after it is damage.
                result.damaged = containsRecord(bytes, after: recordStart)
                break
            }
            lastType = type
            result.recordCount += 1
            validLength = reader.offset
        }
        result.endedCleanly = lastType == .close && validLength == bytes.count
        return (result, validLength)
    }

    /// Whether any intact record starts after `offset` (a slow scan, run only when a replay
    /// stops early, to tell damage in the middle from a torn end).
    private static func containsRecord(_ bytes: UnsafeRawBufferPointer, after offset: Int) -> Bool {
        var start = offset + 1
        while start + 9 <= bytes.count {
            var reader = DiskCacheByteReader(bytes, offset: start)
            if let length = reader.readUInt32().map(Int.init), length >= 1, length <= min(reader.remaining - 4, 1 << 20),
               let check = reader.readUInt32(), let body = reader.readRaw(length),
               RecordType(rawValue: body[0]) != nil,
               UInt32(truncatingIfNeeded: DiskCacheChecksum.hash(body)) == check {
                return true
            }
            start += 1
        }
        return false
    }

    /// Applies one record body; `nil` if it does not decode.
    private static func apply(_ body: UnsafeRawBufferPointer, to result: inout Replay) -> RecordType? {
        var reader = DiskCacheByteReader(body)
        guard let type = reader.readUInt8().flatMap(RecordType.init(rawValue:)) else { return nil }
        switch type {
        case .put:
            guard let (segment, location) = decodeAddress(&reader),
                  let storedAt = reader.readDate(), let expiresAt = reader.readOptionalDate(),
                  let lastAccessedAt = reader.readDate(), let etag = reader.readOptionalString(),
                  let lastModified = reader.readOptionalString(), let userInfo = reader.readOptionalData(),
                  let key = reader.readString(), reader.remaining == 0
            else { return nil }
            result.index.insert(DiskCacheIndex.Record(
                key: key, segment: segment, location: location, storedAt: storedAt, expiresAt: expiresAt,
                lastAccessedAt: lastAccessedAt, validators: DiskCacheValidators(etag: etag, lastModified: lastModified), userInfo: userInfo))
        case .move:
            guard let (segment, location) = decodeAddress(&reader), let key = reader.readString(), reader.remaining == 0 else { return nil }
            result.index.move(key: key, to: segment, location: location)
        case .read:
            guard let date = reader.readDate(), let key = reader.readString(), reader.remaining == 0 else { return nil }
            result.index.touch(key: key, at: date)
        case .update:
            guard let expiresAt = reader.readOptionalDate(), let etag = reader.readOptionalString(),
                  let lastModified = reader.readOptionalString(), let key = reader.readString(), reader.remaining == 0
            else { return nil }
            result.index.update(key: key) { record in
                record.expiresAt = expiresAt
                record.validators = DiskCacheValidators(etag: etag, lastModified: lastModified)
            }
        case .remove:
            guard let key = reader.readString(), reader.remaining == 0 else { return nil }
            result.index.remove(key: key)
        case .open:
            guard reader.remaining == 0 else { return nil }
        case .close:
            guard reader.remaining == 0 else { return nil }
        }
        return type
    }
}
