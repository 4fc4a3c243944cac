import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A persistent cache of byte payloads keyed by strings, with a size limit, per-entry expiry and
/// HTTP validators, that survives crashes without serving damaged data.
///
/// Every rule of the disk cache is listed here; each concept has its file (`DiskCacheJournal`,
/// `DiskCacheIndex`, `DiskCacheEntryFile`, `DiskCacheChecksum`, recovery in
/// `DiskCache+Recovery`, background writes in ``DiskCacheWriter``).
///
/// - **Size**: the sum of payload sizes never exceeds `Configuration.sizeLimit` once `store`
///   returns; crossing it evicts least-recently-used entries down to the low-water mark
///   (`Configuration.lowWaterFraction`). A read marks an entry used. A payload larger than the
///   limit is refused with `DiskCacheError.entryTooLarge`.
/// - **Keys**: any string (slashes, `..`, empty, 10 KB); key + validators + user info together
///   are at most `metadataLimit` bytes (`DiskCacheError.metadataTooLarge`), a longer key is a miss.
/// - **Age**: `data(forKey:)` returns fresh payloads only; `entry(forKey:)` also returns stale
///   ones with their validators, and `markRevalidated` refreshes an entry after a 304 without
///   rewriting its payload. Expiry and last access live in the cache's journal, not in file
///   timestamps (Linux cannot set creation dates and access times depend on mount options).
/// - **Lookups** go through an in-memory index loaded from the journal when the cache opens;
///   nothing lists the directory except recovery after a crash or a lost journal.
/// - **Background writes**: ``DiskCacheWriter`` stages stores in memory (bounded), serves them
///   before they are written and writes them in order on one queue; `flush()` waits for them.
///   Users that must not wait for the disk (the image pipeline, the service's result cache)
///   write through it; `store` itself always writes before returning.
/// - **Durability / crash safety**: each entry is written to a temporary file and renamed into place, and
///   carries an XXH64 checksum. The checksum is verified on the entry's first read in a session
///   and again whenever its file's inode, size or change time differs from when it last passed;
///   a failing entry is removed and reported as `DiskCacheError.corruptEntry`, never returned.
///   The journal tolerates a cut-off last record; after a crash, opening reconciles the journal
///   with the directory. Nothing is `fsync`ed: a killed process loses nothing that `store`
///   returned for; after a power loss the checksum catches torn files.
/// - **Files**: everything lives under `directory`: `journal`, `lock` and `entries/`, whose files
///   are named by a write counter, never by the key, so any key (slashes, `..`, 10 KB) is safe.
///   Files the cache did not write are ignored.
/// - **Concurrency**: all methods may be called from any thread. Index updates are serialized
///   by a mutex; file reads and writes run outside it.
/// - **One owner per directory**: opening takes an exclusive `flock` on `directory/lock`. A second
///   `DiskCache` on the same directory, in this process or another, is refused with
///   `DiskCacheError.directoryInUse` until the first is closed (or its process exits or dies,
///   which releases the lock).
public final class DiskCache: Sendable {
    /// Limits and defaults of a disk cache.
    public struct Configuration: Sendable {
        /// Maximum total payload size in bytes (payload bytes, not allocated blocks).
        public var sizeLimit: Int
        /// When a write crosses `sizeLimit`, entries are evicted until the total is at most this
        /// fraction of it, so the next writes do not each pay for an eviction.
        public var lowWaterFraction: Double
        /// Time to live of entries stored with `DiskCacheExpiry.default`; `nil` means never expire.
        public var defaultTimeToLive: TimeInterval?

        /// A configuration; the defaults are 256 MB, a low-water mark of 80 % and a week.
        public init(sizeLimit: Int = 256 * 1024 * 1024, lowWaterFraction: Double = 0.8, defaultTimeToLive: TimeInterval? = 7 * 24 * 60 * 60) {
            self.sizeLimit = sizeLimit
            self.lowWaterFraction = lowWaterFraction
            self.defaultTimeToLive = defaultTimeToLive
        }

        var lowWaterMark: Int { Int(Double(sizeLimit) * lowWaterFraction) }
    }

    /// What opening the cache found and repaired (for logs and diagnostics).
    public struct Recovery: Sendable, Equatable {
        /// The previous owner closed the cache; nothing had to be checked.
        public var previousSessionEndedCleanly = true
        /// The journal was missing or damaged, so the index was rebuilt from the entry files
        /// (last-access order and revalidated expiry dates from the lost journal are gone).
        public var indexRebuiltFromFiles = false
        /// Index entries dropped because their file was missing or unreadable.
        public var droppedEntries = 0
        /// Leftover files removed: temporary files of interrupted writes, and entry files the
        /// journal no longer references.
        public var removedFiles = 0
        /// Entries evicted on open because they exceeded the (possibly lowered) size limit.
        public var evictedEntries = 0
    }

    /// The directory holding the cache.
    public let directory: URL
    /// The limits this cache was opened with.
    public let configuration: Configuration
    /// What opening this cache had to repair.
    public let recovery: Recovery

    /// The wall clock expiry is judged by (the writer stages by it too).
    let now: @Sendable () -> Date
    /// `<directory>/entries/` as UTF-8, the prefix of every entry file path.
    private let entriesPrefix: [UInt8]
    private let state: Locked<State>

    private struct State {
        var index: DiskCacheIndex
        /// `nil` once the cache is closed.
        var journal: DiskCacheJournal?
        var lockDescriptor: Int32
        var nextGeneration: UInt64
        /// The journal is compacted once it holds this many records; raised after a failed
        /// attempt so a full disk does not make every write retry it.
        var compactionThreshold: Int
    }

    /// Largest key + validators + user info accepted, in bytes (1 MiB). They live in the
    /// journal, the entry trailer and memory, so they are bounded like the payload is.
    public static let metadataLimit = 1 << 20

    /// Superseded journal records tolerated before compacting (as in DiskLruCache).
    static let compactionSlack = 2000

    /// Opens (or creates) the cache in `directory`.
    ///
    /// - Parameter now: the wall clock. Expiry dates are persisted and compared across
    ///   processes, so they are `Date`s, and tests pass a controllable clock here.
    /// - Throws: `DiskCacheError.directoryInUse` if another cache has the directory open;
    ///   `.invalidConfiguration`; `.notWritable`, `.noSpace` or `.io` if the directory, lock or
    ///   journal cannot be created. A damaged or missing journal is never an error: it is rebuilt.
    public init(directory: URL, configuration: Configuration = Configuration(), now: @escaping @Sendable () -> Date = { Date() }) throws(DiskCacheError) {
        guard configuration.sizeLimit > 0 else { throw .invalidConfiguration("sizeLimit must be positive, got \(configuration.sizeLimit)") }
        guard configuration.lowWaterFraction > 0, configuration.lowWaterFraction <= 1 else {
            throw .invalidConfiguration("lowWaterFraction must be in (0, 1], got \(configuration.lowWaterFraction)")
        }
        if let ttl = configuration.defaultTimeToLive, !(ttl >= 0) {
            throw .invalidConfiguration("defaultTimeToLive must be non-negative, got \(ttl)")
        }
        let path = directory.standardizedFileURL.path
        let entriesPath = path + "/entries"
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.makeDirectories(entriesPath)
        } catch {
            throw .fromErrno(error.errno, operation: "mkdir", path: entriesPath)
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
            loaded = try Self.load(journalPath: path + "/journal", entriesPath: entriesPath, configuration: configuration, now: now())
        } catch {
            Glibc.close(lockDescriptor)
            throw error
        }
        self.directory = directory
        self.configuration = configuration
        self.recovery = loaded.recovery
        self.now = now
        self.entriesPrefix = Array((entriesPath + "/").utf8)
        let compactionThreshold = Self.compactionThreshold(liveCount: loaded.index.count)
        state = Locked(State(
            index: loaded.index, journal: loaded.journal, lockDescriptor: lockDescriptor,
            nextGeneration: loaded.nextGeneration,
            compactionThreshold: max(compactionThreshold, loaded.journal.recordCount + Self.compactionSlack)))
    }

    deinit {
        close()
    }

    // MARK: Reading

    /// The payload stored under `key` if it is fresh; `nil` when absent or expired.
    ///
    /// - Throws: `DiskCacheError.corruptEntry` when the stored file fails its checksum (it is
    ///   removed; the next call returns `nil`), `.closed`, or `.io` for a failing disk.
    public func data(forKey key: String) throws(DiskCacheError) -> Data? {
        try lookup(key, includeExpired: false)?.data
    }

    /// The entry stored under `key`, fresh or expired (check `isExpired`), with its metadata.
    /// Marks it most recently used.
    ///
    /// - Throws: as `data(forKey:)`.
    public func entry(forKey key: String) throws(DiskCacheError) -> DiskCacheEntry? {
        try lookup(key, includeExpired: true)
    }

    /// Whether a fresh entry is stored under `key`, from the index alone: no file is read and
    /// the entry is not marked used (a prefetcher asks this to skip what is already cached).
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
        // A second pass is needed only when a concurrent write replaced the entry between the
        // index lookup and the open (the old file is then already unlinked).
        for _ in 0..<2 {
            let now = self.now()
            let found = try state.withLock { (state) throws(DiskCacheError) -> DiskCacheIndex.Record? in
                guard let journal = state.journal else { throw .closed }
                guard let record = state.index.touch(key: key, at: now, unlessExpired: !includeExpired) else { return nil }
                journal.appendRead(key: key, at: now)
                // Access order is advisory: if it cannot be written, the cache still works.
                if journal.wantsFlush { try? journal.flush() }
                return record
            }
            guard let record = found else { return nil }
            let path = entryPath(record.generation)
            switch DiskCacheEntryFile.read(path: path, expecting: record) {
            case .payload(let data, let stamp):
                if record.verifiedStamp != stamp { remember(stamp, for: record) }
                return DiskCacheEntry(
                    data: data, storedAt: record.storedAt, expiresAt: record.expiresAt,
                    validators: record.validators, userInfo: record.userInfo,
                    isExpired: record.expiresAt.map { $0 <= now } ?? false)
            case .missing:
                // Deleted behind the cache's back: forget it. Otherwise it was replaced: retry.
                if dropIfCurrent(record) { return nil }
            case .corrupt:
                DiskCacheFileSystem.remove(path)
                dropIfCurrent(record)
                throw .corruptEntry(key: key)
            case .failed(let code):
                throw .fromErrno(code, operation: "read", path: path)
            }
        }
        return nil
    }

    /// Records that `record`'s file passed its checksum with this stamp.
    private func remember(_ stamp: DiskCacheEntryFile.Stamp, for record: DiskCacheIndex.Record) {
        state.withLock { state in
            guard state.index.record(forKey: record.key)?.generation == record.generation else { return }
            state.index.update(key: record.key) { $0.verifiedStamp = stamp }
        }
    }

    /// Removes `record` from the index if it is still the current version of its key.
    @discardableResult
    private func dropIfCurrent(_ record: DiskCacheIndex.Record) -> Bool {
        state.withLock { state in
            guard let journal = state.journal, state.index.record(forKey: record.key)?.generation == record.generation else { return false }
            state.index.remove(key: record.key)
            journal.appendRemove(key: record.key)
            // If this is lost, the next open finds the file gone and drops the entry again.
            try? journal.flush()
            return true
        }
    }

    // MARK: Writing

    /// Stores `data` under `key`, replacing any previous entry, and returns once the entry is
    /// on disk, journaled, and the size limit holds again.
    ///
    /// - Parameters:
    ///   - expiry: when the entry stops being fresh (default: `Configuration.defaultTimeToLive`).
    ///   - validators: the response's `ETag` / `Last-Modified`, for later revalidation.
    ///   - userInfo: opaque caller metadata returned with the entry.
    /// - Throws: `.entryTooLarge` (before writing anything), `.noSpace`, `.notWritable`, `.io`,
    ///   `.closed`. On failure the previous entry for `key`, if any, is still served.
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
        let generation = try state.withLock { (state) throws(DiskCacheError) -> UInt64 in
            guard state.journal != nil else { throw .closed }
            defer { state.nextGeneration += 1 }
            return state.nextGeneration
        }
        var record = DiskCacheIndex.Record(
            key: key, generation: generation, payloadSize: data.count, fileSize: 0, checksum: 0,
            storedAt: now, expiresAt: expiry.date(now: now, defaultTimeToLive: configuration.defaultTimeToLive),
            lastAccessedAt: now, validators: validators, userInfo: userInfo)
        let trailer = DiskCacheEntryFile.makeTrailer(for: &record, payload: data)
        let path = entryPath(generation)
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheEntryFile.write(payload: data, trailer: trailer, temporaryPath: path + ".tmp", path: path)
        } catch {
            throw .fromErrno(error.errno, operation: "write", path: path)
        }
        let obsolete = try state.withLock { (state) throws(DiskCacheError) -> [DiskCacheIndex.Record] in
            guard let journal = state.journal else {
                DiskCacheFileSystem.remove(path)
                throw .closed
            }
            journal.appendPut(record)
            do throws(DiskCacheFileSystem.Failure) {
                try journal.flush()
            } catch {
                DiskCacheFileSystem.remove(path)
                throw .fromErrno(error.errno, operation: "write", path: journal.path)
            }
            var obsolete: [DiskCacheIndex.Record] = []
            if let replaced = state.index.insert(record) { obsolete.append(replaced) }
            let evicted = Self.evict(from: &state.index, configuration: configuration, keeping: key)
            if !evicted.isEmpty {
                for entry in evicted { journal.appendRemove(key: entry.key) }
                // If these removals are lost, the files are still deleted below; the next open
                // (or read) notices the missing files and drops the entries.
                try? journal.flush()
                obsolete += evicted
            }
            compactIfNeeded(&state)
            return obsolete
        }
        // Unlinked outside the lock: names are unique per write, so no newer entry can be hit.
        for entry in obsolete { DiskCacheFileSystem.remove(entryPath(entry.generation)) }
    }

    /// Refreshes the expiry (and optionally the validators) of a stored entry without rewriting
    /// its payload — what a `304 Not Modified` answer to a revalidation calls for.
    ///
    /// - Parameter validators: new validators from the 304 response; `nil` keeps the stored ones.
    /// - Returns: `false` if no entry is stored under `key`.
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
            compactIfNeeded(&state)
            return true
        }
    }

    /// Removes the entry stored under `key`; returns whether there was one.
    @discardableResult
    public func removeValue(forKey key: String) throws(DiskCacheError) -> Bool {
        guard key.utf8.count <= Self.metadataLimit else { return false }
        let removed = try state.withLock { (state) throws(DiskCacheError) -> DiskCacheIndex.Record? in
            guard let journal = state.journal else { throw .closed }
            guard let record = state.index.remove(key: key) else { return nil }
            journal.appendRemove(key: key)
            // If the record is lost, the next open finds the file gone and drops the entry.
            try? journal.flush()
            compactIfNeeded(&state)
            return record
        }
        guard let removed else { return false }
        DiskCacheFileSystem.remove(entryPath(removed.generation))
        return true
    }

    /// Removes every expired entry; returns how many were removed.
    @discardableResult
    public func removeExpired() throws(DiskCacheError) -> Int {
        let now = self.now()
        let removed = try state.withLock { (state) throws(DiskCacheError) -> [DiskCacheIndex.Record] in
            guard let journal = state.journal else { throw .closed }
            let expired = state.index.recordsOldestFirst.filter { record in
                record.expiresAt.map { $0 <= now } ?? false
            }
            for record in expired {
                state.index.remove(key: record.key)
                journal.appendRemove(key: record.key)
            }
            try? journal.flush()
            compactIfNeeded(&state)
            return expired
        }
        for record in removed { DiskCacheFileSystem.remove(entryPath(record.generation)) }
        return removed.count
    }

    /// Evicts least-recently-used entries until the payloads total at most `size` bytes;
    /// returns how many were removed. A `size` at or above the current total removes nothing.
    @discardableResult
    public func trim(toSize size: Int) throws(DiskCacheError) -> Int {
        let removed = try state.withLock { (state) throws(DiskCacheError) -> [DiskCacheIndex.Record] in
            guard let journal = state.journal else { throw .closed }
            var evicted: [DiskCacheIndex.Record] = []
            while state.index.totalSize > max(0, size), let oldest = state.index.leastRecentlyUsed {
                state.index.remove(key: oldest.key)
                journal.appendRemove(key: oldest.key)
                evicted.append(oldest)
            }
            guard !evicted.isEmpty else { return [] }
            try? journal.flush()
            compactIfNeeded(&state)
            return evicted
        }
        for record in removed { DiskCacheFileSystem.remove(entryPath(record.generation)) }
        return removed.count
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

    /// Removes every entry.
    ///
    /// - Throws: `.noSpace`, `.notWritable` or `.io` if the empty journal cannot be written (the
    ///   entries are then kept), `.closed`.
    public func removeAll() throws(DiskCacheError) {
        let removed = try state.withLock { (state) throws(DiskCacheError) -> [DiskCacheIndex.Record] in
            guard let journal = state.journal else { throw .closed }
            do throws(DiskCacheFileSystem.Failure) {
                try journal.compact(records: [])
            } catch {
                throw .fromErrno(error.errno, operation: "write", path: journal.path)
            }
            let records = state.index.recordsOldestFirst
            state.index = DiskCacheIndex()
            state.compactionThreshold = Self.compactionThreshold(liveCount: 0)
            return records
        }
        for record in removed { DiskCacheFileSystem.remove(entryPath(record.generation)) }
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

    /// Writes pending access records, marks the journal as cleanly closed and releases the
    /// directory lock. Later calls throw `DiskCacheError.closed`. Called by `deinit` too.
    public func close() {
        state.withLock { state in
            guard let journal = state.journal else { return }
            journal.appendClose(nextGeneration: state.nextGeneration)
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

    private func entryPath(_ generation: UInt64) -> String {
        Self.path(prefix: entriesPrefix, generation: generation)
    }

    /// The name of the entry file of `generation`: 16 lowercase hex digits.
    static func fileName(_ generation: UInt64) -> String {
        path(prefix: [], generation: generation)
    }

    /// `prefix` followed by the file name, built in one allocation (every read builds a path,
    /// and string concatenation was a measurable part of a warm read).
    private static func path(prefix: [UInt8], generation: UInt64) -> String {
        String(unsafeUninitializedCapacity: prefix.count + 16) { buffer in
            var end = buffer.initialize(fromContentsOf: prefix)
            var remaining = generation
            end += 16
            for index in stride(from: end - 1, through: end - 16, by: -1) {
                let digit = UInt8(truncatingIfNeeded: remaining & 0xF)
                buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                remaining >>= 4
            }
            return end
        }
    }

    /// The generation of a file the cache wrote (`<16 hex>` or `<16 hex>.tmp`), or `nil` for any
    /// other name — those files are not the cache's and are left alone.
    static func parseFileName(_ name: UnsafeBufferPointer<UInt8>) -> (generation: UInt64, isTemporary: Bool)? {
        let isTemporary = name.count == 20 && name[16] == UInt8(ascii: ".") && name[17] == UInt8(ascii: "t")
            && name[18] == UInt8(ascii: "m") && name[19] == UInt8(ascii: "p")
        guard name.count == 16 || isTemporary else { return nil }
        var generation: UInt64 = 0
        for byte in name[0..<16] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            generation = generation << 4 | UInt64(digit)
        }
        return (generation, isTemporary)
    }

    static func parseFileName(_ name: String) -> (generation: UInt64, isTemporary: Bool)? {
        var name = name
        return name.withUTF8 { parseFileName($0) }
    }

    private static func size(of validators: DiskCacheValidators) -> Int {
        (validators.etag?.utf8.count ?? 0) + (validators.lastModified?.utf8.count ?? 0)
    }

    private static func compactionThreshold(liveCount: Int) -> Int {
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

    private func compactIfNeeded(_ state: inout State) {
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
