import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A persistent cache of byte payloads keyed by strings, with a size limit, per-entry expiry and
/// HTTP validators, that survives crashes without serving damaged data.
///
/// Every rule of the disk cache is listed here; each concept has its file (`DiskCacheJournal`,
/// `DiskCacheIndex`, `DiskCacheSegment`, `DiskCacheEntryFile` (entry metadata coding),
/// `DiskCacheChecksum`, recovery in `DiskCache+Recovery`, compaction in
/// `DiskCache+Compaction`, background writes in ``DiskCacheWriter``).
///
/// - **Size**: the sum of payload sizes never exceeds `Configuration.sizeLimit` once `store`
///   returns; crossing it evicts least-recently-used entries down to the low-water mark
///   (`Configuration.lowWaterFraction`). A read marks an entry used. A payload larger than the
///   limit is refused with `DiskCacheError.entryTooLarge`.
/// - **Disk used**: payloads live in append-only segment files, so an eviction, removal or
///   overwrite leaves dead bytes behind until compaction. Once the dead bytes (segment bytes
///   minus the bytes of live entries) exceed half of `sizeLimit`, a background compaction copies
///   the live entries of the mostly-dead segments forward and deletes those segments, until the
///   dead bytes are at most a quarter of the limit. The files therefore stay within about 1.5×
///   the limit plus per-entry framing (header, metadata, footer) and the compaction in flight,
///   plus up to 4 MB of blocks reserved ahead of the segment being appended to (given back
///   when it fills and on close; appends into reserved blocks cost less CPU).
/// - **Keys**: any string (slashes, `..`, empty, 10 KB); key + validators + user info together
///   are at most `metadataLimit` bytes (`DiskCacheError.metadataTooLarge`), a longer key is a miss.
/// - **Age**: `data(forKey:)` returns fresh payloads only; `entry(forKey:)` also returns stale
///   ones with their validators, and `markRevalidated` refreshes an entry after a 304 without
///   rewriting its payload. Expiry and last access live in the cache's journal, not in file
///   timestamps (Linux cannot set creation dates and access times depend on mount options).
/// - **Lookups** go through an in-memory index loaded from the journal when the cache opens;
///   nothing lists or reads the segments except recovery after a crash or a lost journal.
/// - **Background writes**: ``DiskCacheWriter`` stages stores in memory (bounded), serves them
///   before they are written and writes them in order on one queue; `flush()` waits for them.
///   Users that must not wait for the disk (the image pipeline, the service's result cache)
///   write through it; `store` itself always writes before returning.
/// - **Durability / crash safety**: a store appends the entry (header, metadata, payload,
///   footer, one `writev`) to the current segment, then journals its address; the entry
///   carries an XXH64 checksum over its metadata and payload. The checksum is verified on the
///   entry's first read in a session and again whenever its segment file's inode, size or
///   change time differs from when it last passed (so a read after another store re-checks);
///   a failing entry is dropped and reported as `DiskCacheError.corruptEntry`, never returned.
///   Compaction journals an entry's new address before it deletes the old segment, so a crash
///   at any point leaves every journaled entry readable. Opening after a crash cuts a torn tail
///   off the last segment and drops journal records that point past a segment's end; a lost or
///   damaged journal is rebuilt from the segments' own framing (entries removed but not yet
///   compacted away come back then, with their original metadata). Nothing is `fsync`ed: a
///   killed process loses nothing that `store` returned for; after a power loss the checksum
///   catches torn entries.
/// - **Files**: everything lives under `directory`: `journal`, `lock` and `segments/`, whose
///   files are named by a counter (16 hex digits), never by the key, so any key (slashes, `..`,
///   10 KB) is safe. A new segment starts once the current one holds
///   `Configuration.segmentSize` bytes (64 MB), and after a failed write. Files the cache did
///   not write are ignored; the previous layout's `entries/` files (one file per entry) are
///   deleted on open — its journal (version 1) does not replay, so that cache starts empty.
/// - **Concurrency**: all methods may be called from any thread. Index updates are serialized
///   by a mutex; segment reads and appends run outside it (reads are `pread`s that never wait
///   for an append), and compaction runs on its own serial queue in bounded steps.
/// - **One owner per directory**: opening takes an exclusive `flock` on `directory/lock`. A second
///   `DiskCache` on the same directory, in this process or another, is refused with
///   `DiskCacheError.directoryInUse` until the first is closed (or its process exits or dies,
///   which releases the lock).
public final class DiskCache: Sendable {
    /// The directory holding the cache.
    public let directory: URL
    /// The limits this cache was opened with.
    public let configuration: Configuration
    /// What opening this cache had to repair.
    public let recovery: Recovery

    /// The wall clock expiry is judged by (the writer stages by it too).
    let now: @Sendable () -> Date
    /// `<directory>/segments/` as UTF-8, the prefix of every segment path.
    let segmentsPrefix: [UInt8]
    let state: Locked<State>
    /// Runs compaction, off the callers' threads, one step after another.
    let compactionQueue = DispatchQueue(label: "loupe.disk-cache-compaction")

    struct State {
        var index: DiskCacheIndex
        /// `nil` once the cache is closed.
        var journal: DiskCacheJournal?
        var lockDescriptor: Int32
        /// Open segments by number.
        var segments: [UInt64: DiskCacheSegment]
        /// Per segment, the bytes its appends have written (what it holds on disk).
        var segmentLengths: [UInt64: Int]
        /// The sum of `segmentLengths`.
        var segmentBytes: Int
        /// The segment stores append to; `nil` after a failed write or when compaction took
        /// it, so the next append starts a new one.
        var current: UInt64?
        /// Bytes handed to appends to `current` (approximately its length, known without
        /// waiting for an append in flight).
        var currentBytes: Int
        var nextSegment: UInt64
        /// Appends started and not yet journaled, per segment: such a segment is never
        /// compacted or deleted.
        var appending: [UInt64: Int] = [:]
        /// The journal is compacted once it holds this many records; raised after a failed
        /// attempt so a full disk does not make every write retry it.
        var compactionThreshold: Int
        var compactionScheduled = false
        /// Set by `close()`: compaction stops at its next step.
        var isClosing = false
        /// Segments compaction has emptied and deleted (for tests and diagnostics).
        var compactedSegments = 0

        var deadBytes: Int { segmentBytes - index.totalLiveBytes }
    }

    /// Largest key + validators + user info accepted, in bytes (1 MiB). They live in the
    /// journal, the entry's segment metadata and memory, so they are bounded like the payload is.
    public static let metadataLimit = 1 << 20

    /// Superseded journal records tolerated before compacting (as in DiskLruCache).
    static let compactionSlack = 2000

    /// Opens (or creates) the cache in `directory`.
    ///
    /// - Parameters:
    ///   - directory: the folder holding the cache's files (`journal`, `lock`, `segments/`), created with
    ///     its parents if missing; one cache at a time may have it open.
    ///   - configuration: the size limit, low-water mark and default time to live, checked here.
    ///   - now: the wall clock. Expiry dates are persisted and compared across
    ///     processes, so they are `Date`s, and tests pass a controllable clock here.
    /// - Throws: `DiskCacheError.directoryInUse` if another cache has the directory open;
    ///   `.invalidConfiguration`; `.notWritable`, `.noSpace` or `.io` if the directory, lock,
    ///   journal or a segment cannot be created or opened. A damaged or missing journal is
    ///   never an error: it is rebuilt.
    public init(directory: URL, configuration: Configuration = Configuration(), now: @escaping @Sendable () -> Date = { Date() }) throws(DiskCacheError) {
        guard configuration.sizeLimit > 0 else { throw .invalidConfiguration("sizeLimit must be positive, got \(configuration.sizeLimit)") }
        guard configuration.lowWaterFraction > 0, configuration.lowWaterFraction <= 1 else {
            throw .invalidConfiguration("lowWaterFraction must be in (0, 1], got \(configuration.lowWaterFraction)")
        }
        if let ttl = configuration.defaultTimeToLive, !(ttl >= 0) {
            throw .invalidConfiguration("defaultTimeToLive must be non-negative, got \(ttl)")
        }
        guard configuration.segmentSize > 0 else { throw .invalidConfiguration("segmentSize must be positive, got \(configuration.segmentSize)") }
        let path = directory.standardizedFileURL.path
        let segmentsPath = path + "/segments"
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.makeDirectories(segmentsPath)
        } catch {
            throw .fromErrno(error.errno, operation: "mkdir", path: segmentsPath)
        }
        let lockPath = path + "/lock"
        let lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockDescriptor >= 0 else { throw .fromErrno(errno, operation: "open", path: lockPath) }
        if flock(lockDescriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            Glibc.close(lockDescriptor)
            throw code == EWOULDBLOCK ? .directoryInUse(path: path) : .fromErrno(code, operation: "flock", path: lockPath)
        }
        let loaded: Loaded
        do {
            loaded = try Self.load(directory: path, configuration: configuration, now: now())
        } catch {
            Glibc.close(lockDescriptor)
            throw error
        }
        self.directory = directory
        self.configuration = configuration
        self.recovery = loaded.recovery
        self.now = now
        self.segmentsPrefix = Array((segmentsPath + "/").utf8)
        let compactionThreshold = Self.compactionThreshold(liveCount: loaded.index.count)
        let lengths = loaded.segments.mapValues(\.length)
        state = Locked(State(
            index: loaded.index, journal: loaded.journal, lockDescriptor: lockDescriptor,
            segments: loaded.segments, segmentLengths: lengths, segmentBytes: lengths.values.reduce(0, +),
            current: loaded.current, currentBytes: loaded.current.flatMap { lengths[$0] } ?? 0, nextSegment: loaded.nextSegment,
            compactionThreshold: max(compactionThreshold, loaded.journal.recordCount + Self.compactionSlack)))
        scheduleCompactionIfNeeded()
    }

    deinit {
        // A compaction step holds `self`, so none is running or queued here.
        closeState()
    }

    // MARK: Reading

    /// The payload stored under `key` if it is fresh; `nil` when absent or expired.
    ///
    /// - Parameter key: the key the payload was stored under; a fresh entry read is marked most recently
    ///   used.
    /// - Returns: the payload, verified against its checksum, or `nil` when no fresh entry is stored
    ///   under `key`.
    /// - Throws: `DiskCacheError.corruptEntry` when the stored entry fails its checksum (it is
    ///   dropped; the next call returns `nil`), `.closed`, or `.io` for a failing disk.
    public func data(forKey key: String) throws(DiskCacheError) -> Data? {
        try lookup(key, includeExpired: false)?.data
    }

    /// The entry stored under `key`, fresh or expired (check `isExpired`), with its metadata.
    /// Marks it most recently used.
    ///
    /// - Parameter key: the key the entry was stored under.
    /// - Returns: the entry with its payload (verified against its checksum), dates, validators and user
    ///   info, or `nil` when nothing is stored under `key`.
    /// - Throws: ``DiskCacheError``, as `data(forKey:)`.
    public func entry(forKey key: String) throws(DiskCacheError) -> DiskCacheEntry? {
        try lookup(key, includeExpired: true)
    }

    /// Whether a fresh entry is stored under `key`, from the index alone: no file is read and
    /// the entry is not marked used (a prefetcher asks this to skip what is already cached).
    ///
    /// - Parameter key: the key to look up in the index.
    /// - Returns: `true` when an unexpired entry is indexed under `key`; its payload is not checked, so a
    ///   read may still find it damaged.
    public func containsFreshEntry(forKey key: String) -> Bool {
        let now = self.now()
        return state.withLock { state in
            guard let record = state.index.record(forKey: key) else { return false }
            return record.expiresAt.map { $0 > now } ?? true
        }
    }

    private func lookup(_ key: String, includeExpired: Bool) throws(DiskCacheError) -> DiskCacheEntry? {
        // A key too long to store cannot be stored; answering now keeps it out of the journal.
        guard key.utf8.count <= Self.metadataLimit else { return nil }
        let now = self.now()
        let found = try state.withLock { (state) throws(DiskCacheError) -> (DiskCacheIndex.Record, DiskCacheSegment?)? in
            guard let journal = state.journal else { throw .closed }
            guard let record = state.index.touch(key: key, at: now, unlessExpired: !includeExpired) else { return nil }
            journal.appendRead(key: key, at: now)
            // Access order is advisory: if it cannot be written, the cache still works.
            if journal.wantsFlush { try? journal.flush() }
            return (record, state.segments[record.segment])
        }
        guard let (record, segment) = found else { return nil }
        // The segment object stays valid even if compaction deletes its file meanwhile: its
        // descriptor is open for as long as this reference lives.
        guard let segment else {
            dropIfCurrent(record)
            return nil
        }
        let stamp = segment.stamp()
        let verify = stamp == nil || stamp != record.verifiedStamp
        switch segment.read(record.location, verify: verify) {
        case .payload(let data):
            if verify, let stamp { remember(stamp, for: record) }
            return DiskCacheEntry(
                data: data, storedAt: record.storedAt, expiresAt: record.expiresAt,
                validators: record.validators, userInfo: record.userInfo,
                isExpired: record.expiresAt.map { $0 <= now } ?? false)
        case .corrupt:
            dropIfCurrent(record)
            throw .corruptEntry(key: key)
        case .failed(let code):
            throw .fromErrno(code, operation: "read", path: segment.path)
        }
    }

    /// Records that `record`'s entry passed its checksum under this segment stamp.
    private func remember(_ stamp: DiskCacheEntryFile.Stamp, for record: DiskCacheIndex.Record) {
        state.withLock { state in
            guard state.index.record(forKey: record.key)?.isSameWrite(as: record) == true else { return }
            state.index.update(key: record.key) { $0.verifiedStamp = stamp }
        }
    }

    /// Removes `record` from the index if it is still the current version of its key.
    @discardableResult
    func dropIfCurrent(_ record: DiskCacheIndex.Record) -> Bool {
        let dropped = state.withLock { state in
            guard let journal = state.journal, state.index.record(forKey: record.key)?.isSameWrite(as: record) == true else { return false }
            state.index.remove(key: record.key)
            journal.appendRemove(key: record.key)
            // If this is lost, the next open (or read) checks the entry again.
            try? journal.flush()
            return true
        }
        if dropped { scheduleCompactionIfNeeded() }
        return dropped
    }

    // MARK: Writing

    /// Stores `data` under `key`, replacing any previous entry, and returns once the entry is
    /// on disk, journaled, and the size limit holds again.
    ///
    /// - Parameters:
    ///   - data: the payload; at most `Configuration.sizeLimit` bytes.
    ///   - key: any string; with the validators and user info, at most `metadataLimit` bytes.
    ///   - expiry: when the entry stops being fresh (default: `Configuration.defaultTimeToLive`).
    ///   - validators: the response's `ETag` / `Last-Modified`, for later revalidation.
    ///   - userInfo: opaque caller metadata returned with the entry.
    /// - Throws: ``DiskCacheError``: `.entryTooLarge` or `.metadataTooLarge` (before writing anything),
    ///   `.noSpace`, `.notWritable`, `.io`, `.closed`. On failure the previous entry for `key`, if any, is
    ///   still served.
    public func store(_ data: Data, forKey key: String, expiry: DiskCacheExpiry = .default,
                      validators: DiskCacheValidators = DiskCacheValidators(), userInfo: Data? = nil) throws(DiskCacheError) {
        guard data.count <= configuration.sizeLimit else {
            throw .entryTooLarge(size: data.count, limit: configuration.sizeLimit)
        }
        let metadataSize = key.utf8.count + Self.size(of: validators) + (userInfo?.count ?? 0)
        guard metadataSize <= Self.metadataLimit else {
            throw .metadataTooLarge(size: metadataSize, limit: Self.metadataLimit)
        }
        let now = self.now()
        var record = DiskCacheIndex.Record(
            key: key, segment: 0, location: DiskCacheSegment.Location(offset: 0, length: 0, payloadSize: data.count, checksum: 0),
            storedAt: now, expiresAt: expiry.date(now: now, defaultTimeToLive: configuration.defaultTimeToLive),
            lastAccessedAt: now, validators: validators, userInfo: userInfo)
        let (number, segment) = try state.withLock { (state) throws(DiskCacheError) -> (UInt64, DiskCacheSegment) in
            guard state.journal != nil else { throw .closed }
            return try beginAppend(&state, bytes: data.count + metadataSize)
        }
        do throws(DiskCacheFileSystem.Failure) {
            record.location = try segment.append(data, metadataOf: record)
            record.segment = number
        } catch {
            state.withLock { state in
                endAppend(&state, segment: number, end: nil)
                // The next store starts a fresh segment (and finds out whether files can still be
                // created); this one keeps serving what it holds.
                if state.current == number { state.current = nil }
            }
            throw .fromErrno(error.errno, operation: "write", path: segment.path)
        }
        try state.withLock { (state) throws(DiskCacheError) in
            // Whatever happens next, these bytes are on disk: dead ones unless journaled below.
            endAppend(&state, segment: number, end: record.location.offset + record.location.length)
            guard let journal = state.journal else { throw .closed }
            journal.appendPut(record)
            do throws(DiskCacheFileSystem.Failure) {
                try journal.flush()
            } catch {
                throw .fromErrno(error.errno, operation: "write", path: journal.path)
            }
            state.index.insert(record)
            let evicted = Self.evict(from: &state.index, configuration: configuration, keeping: key)
            if !evicted.isEmpty {
                for entry in evicted { journal.appendRemove(key: entry.key) }
                // If these removals are lost, the next open evicts down to the limit again.
                try? journal.flush()
            }
            compactJournalIfNeeded(&state)
        }
        scheduleCompactionIfNeeded()
    }

    /// Refreshes the expiry (and optionally the validators) of a stored entry without rewriting
    /// its payload — what a `304 Not Modified` answer to a revalidation calls for.
    ///
    /// - Parameters:
    ///   - key: the key of the entry the server confirmed.
    ///   - expiry: when the entry stops being fresh, from now (default: `Configuration.defaultTimeToLive`).
    ///   - validators: new validators from the 304 response; `nil` keeps the stored ones.
    /// - Returns: `false` if no entry is stored under `key`.
    /// - Throws: ``DiskCacheError``: `.metadataTooLarge` if the new validators make the entry's metadata
    ///   too large; `.noSpace`, `.notWritable` or `.io` if the journal cannot be written; `.closed`.
    @discardableResult
    public func markRevalidated(forKey key: String, expiry: DiskCacheExpiry = .default, validators: DiskCacheValidators? = nil) throws(DiskCacheError) -> Bool {
        guard key.utf8.count <= Self.metadataLimit else { return false }
        let now = self.now()
        let expiresAt = expiry.date(now: now, defaultTimeToLive: configuration.defaultTimeToLive)
        return try state.withLock { (state) throws(DiskCacheError) -> Bool in
            guard let journal = state.journal else { throw .closed }
            guard let record = state.index.record(forKey: key) else { return false }
            let newValidators = validators ?? record.validators
            let metadataSize = key.utf8.count + Self.size(of: newValidators) + (record.userInfo?.count ?? 0)
            guard metadataSize <= Self.metadataLimit else {
                throw .metadataTooLarge(size: metadataSize, limit: Self.metadataLimit)
            }
            journal.appendUpdate(key: key, expiresAt: expiresAt, validators: newValidators)
            journal.appendRead(key: key, at: now)
            do throws(DiskCacheFileSystem.Failure) {
                try journal.flush()
            } catch {
                throw .fromErrno(error.errno, operation: "write", path: journal.path)
            }
            state.index.update(key: key) { record in
                record.expiresAt = expiresAt
                record.validators = newValidators
            }
            state.index.touch(key: key, at: now)
            compactJournalIfNeeded(&state)
            return true
        }
    }

    /// Removes the entry stored under `key`; returns whether there was one.
    ///
    /// - Parameter key: the key whose entry goes.
    /// - Returns: `true` if an entry was stored under `key`.
    /// - Throws: `DiskCacheError.closed` once the cache is closed. A journal that cannot be written is
    ///   not an error: the entry is gone now, and may come back on the next open.
    @discardableResult
    public func removeValue(forKey key: String) throws(DiskCacheError) -> Bool {
        guard key.utf8.count <= Self.metadataLimit else { return false }
        let removed = try removeRecords { index in index.remove(key: key).map { [$0] } ?? [] }
        return removed == 1
    }

    /// Removes every expired entry; returns how many were removed.
    ///
    /// - Returns: how many entries were removed.
    /// - Throws: `DiskCacheError.closed` once the cache is closed.
    @discardableResult
    public func removeExpired() throws(DiskCacheError) -> Int {
        let now = self.now()
        return try removeRecords { index in
            index.removeAll { record in record.expiresAt.map { $0 <= now } ?? false }
        }
    }

    /// Evicts least-recently-used entries until the payloads total at most `size` bytes;
    /// returns how many were removed. A `size` at or above the current total removes nothing.
    ///
    /// - Parameter size: the payload bytes to keep at most; a negative size counts as 0.
    /// - Returns: how many entries were evicted.
    /// - Throws: `DiskCacheError.closed` once the cache is closed.
    @discardableResult
    public func trim(toSize size: Int) throws(DiskCacheError) -> Int {
        try removeRecords { index in
            var evicted: [DiskCacheIndex.Record] = []
            while index.totalSize > max(0, size), let oldest = index.leastRecentlyUsed {
                index.remove(key: oldest.key)
                evicted.append(oldest)
            }
            return evicted
        }
    }

    /// Removes the records `pick` takes out of the index and journals their removal; returns
    /// how many. Their bytes become dead, for compaction to reclaim.
    private func removeRecords(_ pick: (inout DiskCacheIndex) -> [DiskCacheIndex.Record]) throws(DiskCacheError) -> Int {
        let removed = try state.withLock { (state) throws(DiskCacheError) -> Int in
            guard let journal = state.journal else { throw .closed }
            let removed = pick(&state.index)
            guard !removed.isEmpty else { return 0 }
            for record in removed { journal.appendRemove(key: record.key) }
            // If the records are lost, the entries come back on the next open (still intact:
            // their bytes stay until their segment is compacted, which the journal allows
            // only after it is written).
            try? journal.flush()
            compactJournalIfNeeded(&state)
            return removed.count
        }
        if removed > 0 { scheduleCompactionIfNeeded() }
        return removed
    }

    /// What the cache holds, for maintenance tools (`loupe cache stats`).
    public struct Summary: Sendable, Equatable {
        /// Entries stored.
        public var count: Int
        /// Payload bytes stored.
        public var totalSize: Int
        /// When the oldest entry was stored; `nil` when empty.
        public var oldestStoredAt: Date?
        /// When the least recently used entry was last read or written; `nil` when empty.
        public var leastRecentlyUsedAt: Date?
        /// Entries past their expiry (served only after revalidation).
        public var expiredCount: Int
        /// Payload bytes of the expired entries.
        public var expiredSize: Int
    }

    /// Counts, sizes and ages of the entries, read from the index (no file is opened).
    public var summary: Summary {
        let now = self.now()
        return state.withLock { state in
            let records = state.index.recordsOldestFirst
            let expired = records.filter { $0.expiresAt.map { $0 <= now } ?? false }
            return Summary(
                count: records.count, totalSize: state.index.totalSize,
                oldestStoredAt: records.lazy.map(\.storedAt).min(),
                leastRecentlyUsedAt: records.first?.lastAccessedAt,
                expiredCount: expired.count, expiredSize: expired.reduce(0) { $0 + $1.payloadSize })
        }
    }

    /// Removes every entry and deletes the segments that held them.
    ///
    /// - Throws: `.noSpace`, `.notWritable` or `.io` if the empty journal cannot be written (the
    ///   entries are then kept), `.closed`.
    public func removeAll() throws(DiskCacheError) {
        let deletable = try state.withLock { (state) throws(DiskCacheError) -> [String] in
            guard let journal = state.journal else { throw .closed }
            do throws(DiskCacheFileSystem.Failure) {
                try journal.compact(records: [])
            } catch {
                throw .fromErrno(error.errno, operation: "write", path: journal.path)
            }
            state.index = DiskCacheIndex()
            state.compactionThreshold = Self.compactionThreshold(liveCount: 0)
            state.current = nil
            return retireEmptySegments(&state)
        }
        // Deleted once the journal no longer mentions them.
        for path in deletable { DiskCacheFileSystem.remove(path) }
    }

    // MARK: State

    /// Total payload bytes stored (never above `configuration.sizeLimit`).
    public var totalSize: Int {
        state.withLock { $0.index.totalSize }
    }

    /// Number of entries stored.
    public var count: Int {
        state.withLock { $0.index.count }
    }

    /// Bytes of the segment files: live entries with their framing, plus dead bytes.
    var segmentBytes: Int {
        state.withLock { $0.segmentBytes }
    }

    /// Segment bytes no live entry uses (what compaction reclaims).
    var deadBytes: Int {
        state.withLock { $0.deadBytes }
    }

    /// Writes pending access records, marks the journal as cleanly closed and releases the
    /// directory lock, after any compaction step in progress has finished. Later calls throw
    /// `DiskCacheError.closed`. Called by `deinit` too.
    public func close() {
        state.withLock { $0.isClosing = true }
        // No compaction may append to a segment once another owner can open the directory.
        compactionQueue.sync {}
        closeState()
    }

    private func closeState() {
        state.withLock { state in
            guard let journal = state.journal else { return }
            if let number = state.current { state.segments[number]?.releaseReserve() }
            journal.appendClose()
            // If this fails, the next open sees an unclean journal and reconciles: still safe.
            try? journal.flush()
            journal.close()
            state.journal = nil
            // Unlocked before closing: a child process another thread is spawning right now holds
            // a copy of the descriptor until it execs, and closing ours alone would leave the lock
            // held through that copy — a reopen would then see `directoryInUse`. An explicit
            // unlock releases it for every copy.
            flock(state.lockDescriptor, LOCK_UN)
            Glibc.close(state.lockDescriptor)
        }
    }

    // MARK: Internals

    private static func size(of validators: DiskCacheValidators) -> Int {
        (validators.etag?.utf8.count ?? 0) + (validators.lastModified?.utf8.count ?? 0)
    }

    static func compactionThreshold(liveCount: Int) -> Int {
        2 * liveCount + compactionSlack
    }

    /// Evicts least-recently-used entries down to the low-water mark if the size limit is
    /// exceeded, never evicting `keeping` (the entry just written).
    private static func evict(from index: inout DiskCacheIndex, configuration: Configuration, keeping key: String?) -> [DiskCacheIndex.Record] {
        guard index.totalSize > configuration.sizeLimit else { return [] }
        var evicted: [DiskCacheIndex.Record] = []
        while index.totalSize > configuration.lowWaterMark, let oldest = index.leastRecentlyUsed, oldest.key != key {
            index.remove(key: oldest.key)
            evicted.append(oldest)
        }
        return evicted
    }

    /// Rewrites the journal once superseded records dominate it.
    func compactJournalIfNeeded(_ state: inout State) {
        guard let journal = state.journal, journal.recordCount >= state.compactionThreshold else { return }
        do {
            try journal.compact(records: state.index.recordsOldestFirst)
            state.compactionThreshold = Self.compactionThreshold(liveCount: state.index.count)
        } catch {
            // The old journal is intact; try again after another batch of records.
            state.compactionThreshold = journal.recordCount + Self.compactionSlack
        }
    }
}
