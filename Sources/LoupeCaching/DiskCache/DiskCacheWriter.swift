import Dispatch
import Foundation
import Logging

/// A ``DiskCache``'s background writer: a caller hands its data over and returns at once, and
/// one serial queue, off Swift's cooperative pool, writes it in the order given. The image
/// pipeline, the service's result cache and anything else that must not wait for a disk write
/// go through one of these; what it adds to the cache's rules is listed on ``DiskCache``.
///
/// Measured on this project's machine when the cache still wrote one file per entry, storing a
/// 100 KB entry (a file created, written, renamed, journaled) made cold loads through the
/// pipeline several times slower than the bare HTTP client when each load waited for its
/// write; file creation contends in the file system. Segment appends cost far less, but a
/// caller still need not wait for the disk. Nuke stages its disk writes the same way.
///
/// - **Staging**: until written, an entry is served from memory by ``entry(forKey:)``, so a
///   request arriving meanwhile still finds it. At most `stagingLimit` bytes wait; data arriving
///   beyond that is not cached (a cache may drop entries; a caller must not wait for one).
/// - **Coalescing**: a key stored again while its earlier write waits is served as the newer
///   payload at once; the writes land in order, so the newer one is what stays on disk.
/// - **Order**: stores, revalidations and removals of a key run in the order they were made; a
///   removed key misses from the moment of ``remove(forKey:)``, before its removal has run.
/// - **Durability**: ``flush()`` returns once everything handed over before it is written (the
///   cache's own durability rules then apply); ``close()`` flushes, then closes the cache.
/// - **Failures** (disk full, unwritable folder) are logged at `warning` and the entry is simply
///   not cached; reads that fail count as misses.
public final class DiskCacheWriter: Sendable {
    private struct Staged {
        var generation: UInt64
        var data: Data
        var storedAt: Date
        var expiresAt: Date?
        var validators: DiskCacheValidators
        var userInfo: Data?
    }

    private struct State {
        var staged: [String: Staged] = [:]
        var stagedBytes = 0
        var nextGeneration: UInt64 = 0
        /// Keys removed whose removal has not run yet, by the removal's generation: a write of
        /// the key queued before the removal may land on disk in between, and must not be read.
        var removing: [String: UInt64] = [:]
        /// Set by ``close()``: the cache is (being) closed, and nothing reads or writes it.
        var isClosed = false
    }

    /// The cache written to. Reading it directly misses what is still staged.
    public let cache: DiskCache
    /// The most bytes that wait to be written at any time.
    public let stagingLimit: Int
    private let logger: Logger
    /// Runs the writes, one at a time, in order (internal: tests suspend it to hold writes back).
    let queue = DispatchQueue(label: "loupe.disk-cache-writer")
    private let state = Locked(State())

    /// A writer for `cache` holding at most `stagingLimit` bytes in memory while they wait.
    /// Staged entries expire by the cache's own clock, as written ones do.
    ///
    /// - Parameters:
    ///   - cache: the disk cache to write to; ``close()`` closes it.
    ///   - stagingLimit: the most bytes that wait in memory to be written; a store that would pass it is
    ///     refused.
    ///   - logger: where failed reads, writes, revalidations and removals (at `warning`) and refused
    ///     stores (at `debug`) are logged.
    public init(cache: DiskCache, stagingLimit: Int, logger: Logger = Logger(label: "loupe.disk-cache")) {
        self.cache = cache
        self.stagingLimit = stagingLimit
        self.logger = logger
    }

    /// The entry for `key`, staged or on disk, fresh or not (see `isExpired`). A disk that fails
    /// to read is logged and counts as a miss.
    ///
    /// - Parameter key: the key to look up: the staged entry first, else the cache's.
    /// - Returns: the entry, or `nil` when there is none, the key is being removed, the writer is closed
    ///   or the disk failed to read.
    public func entry(forKey key: String) -> DiskCacheEntry? {
        let (staged, isRemoving, isClosed) = state.withLock { ($0.staged[key], $0.removing[key] != nil, $0.isClosed) }
        guard !isClosed else { return nil }
        if let staged {
            return DiskCacheEntry(
                data: staged.data, storedAt: staged.storedAt, expiresAt: staged.expiresAt, validators: staged.validators,
                userInfo: staged.userInfo, isExpired: staged.expiresAt.map { $0 <= cache.now() } ?? false)
        }
        guard !isRemoving else { return nil }
        do {
            return try cache.entry(forKey: key)
        } catch {
            logger.warning("disk cache read failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }

    /// Whether a fresh entry for `key` is staged or on disk, without reading it.
    ///
    /// - Parameter key: the key to look up, among the staged entries and in the cache's index.
    /// - Returns: `true` when an unexpired entry is staged or indexed under `key`; `false` once the
    ///   writer is closed.
    public func containsFreshEntry(forKey key: String) -> Bool {
        let (staged, isRemoving, isClosed) = state.withLock { ($0.staged[key], $0.removing[key] != nil, $0.isClosed) }
        guard !isClosed else { return false }
        if let staged { return staged.expiresAt.map { $0 > cache.now() } ?? true }
        return !isRemoving && cache.containsFreshEntry(forKey: key)
    }

    /// Stages `data` for `key` and writes it in the background, as ``DiskCache/store(_:forKey:expiry:validators:userInfo:)``
    /// would. The expiry date is fixed now, when the data is handed over, not when it is written.
    ///
    /// - Parameters:
    ///   - data: the payload, served from memory until it is written.
    ///   - key: any string, as the cache takes it.
    ///   - expiry: when the entry stops being fresh, its date fixed now (default: the cache's
    ///     `Configuration.defaultTimeToLive` from now).
    ///   - validators: the response's `ETag` / `Last-Modified`, for later revalidation.
    ///   - userInfo: opaque caller metadata returned with the entry.
    /// - Returns: `false` when it was not staged (the staging area is full, the writer is
    ///   closed, or the entry is larger than the disk cache accepts).
    @discardableResult
    public func store(_ data: Data, forKey key: String, expiry: DiskCacheExpiry = .default,
                      validators: DiskCacheValidators = DiskCacheValidators(), userInfo: Data? = nil) -> Bool {
        guard data.count <= cache.configuration.sizeLimit else { return false }
        let now = cache.now()
        let expiresAt = expiry.date(now: now, defaultTimeToLive: cache.configuration.defaultTimeToLive)
        let generation: UInt64? = state.withLock { state in
            guard !state.isClosed else { return nil }
            let replaced = state.staged[key]?.data.count ?? 0
            guard state.stagedBytes - replaced + data.count <= stagingLimit else { return nil }
            defer { state.nextGeneration += 1 }
            state.stagedBytes += data.count - replaced
            state.staged[key] = Staged(generation: state.nextGeneration, data: data, storedAt: now, expiresAt: expiresAt,
                                       validators: validators, userInfo: userInfo)
            return state.nextGeneration
        }
        guard let generation else {
            logger.debug("disk cache staging full or closed: not stored", metadata: ["key": "\(key)"])
            return false
        }
        queue.async { [self] in
            do {
                try cache.store(data, forKey: key, expiry: DiskCacheExpiry(expiresAt: expiresAt), validators: validators, userInfo: userInfo)
            } catch {
                logger.warning("disk cache write failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            state.withLock { state in
                // A newer store for the key may be staged by now: it stays until written.
                guard let staged = state.staged[key], staged.generation == generation else { return }
                state.staged[key] = nil
                state.stagedBytes -= staged.data.count
            }
        }
        return true
    }

    /// Refreshes `key`'s expiry and validators after a `304 Not Modified`. A staged entry is
    /// refreshed where it waits (and its write follows); a written one at once — a journal
    /// record, no file to create — so the next read already sees it fresh.
    ///
    /// - Parameters:
    ///   - key: the key of the entry the server confirmed; nothing happens when none is stored.
    ///   - expiry: when the entry stops being fresh, its date fixed now (default: the cache's
    ///     `Configuration.defaultTimeToLive` from now).
    ///   - validators: the validators kept from now on, replacing the stored ones.
    public func markRevalidated(forKey key: String, expiry: DiskCacheExpiry = .default, validators: DiskCacheValidators) {
        let expiresAt = expiry.date(now: cache.now(), defaultTimeToLive: cache.configuration.defaultTimeToLive)
        let isStaged: Bool? = state.withLock { state in
            guard !state.isClosed else { return nil }
            state.staged[key]?.expiresAt = expiresAt
            state.staged[key]?.validators = validators
            return state.staged[key] != nil
        }
        let revalidate: @Sendable () -> Void = { [cache, logger] in
            do {
                _ = try cache.markRevalidated(forKey: key, expiry: DiskCacheExpiry(expiresAt: expiresAt), validators: validators)
            } catch {
                logger.warning("disk cache revalidation failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
        guard let isStaged else { return }
        if isStaged { queue.async(execute: revalidate) } else { revalidate() }
    }

    /// Removes `key`, staged or written, after any write of it still waiting; reads miss it from
    /// now on (until it is stored again).
    ///
    /// - Parameter key: the key whose entry goes, staged or written.
    public func remove(forKey key: String) {
        let generation: UInt64? = state.withLock { state in
            guard !state.isClosed else { return nil }
            if let staged = state.staged.removeValue(forKey: key) { state.stagedBytes -= staged.data.count }
            defer { state.nextGeneration += 1 }
            state.removing[key] = state.nextGeneration
            return state.nextGeneration
        }
        guard let generation else { return }
        queue.async { [self] in
            do {
                _ = try cache.removeValue(forKey: key)
            } catch {
                logger.warning("disk cache removal failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            // A later removal of the key keeps it hidden until that one has run too.
            state.withLock { state in
                if state.removing[key] == generation { state.removing[key] = nil }
            }
        }
    }

    /// Returns once everything handed over so far is on disk (or failed).
    public func flush() async {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
    }

    /// Writes everything handed over so far, then closes the cache; from the moment this is
    /// called, reads miss and stores, revalidations and removals are refused. The close runs on
    /// the writing queue, after every write queued before it, so none of them finds the cache
    /// closed.
    public func close() async {
        let wasClosed = state.withLock { state in
            defer { state.isClosed = true }
            return state.isClosed
        }
        await withCheckedContinuation { continuation in
            queue.async { [cache] in
                if !wasClosed { cache.close() }
                continuation.resume()
            }
        }
    }

    /// The bytes waiting to be written.
    public var stagedBytes: Int { state.withLock { $0.stagedBytes } }
}
