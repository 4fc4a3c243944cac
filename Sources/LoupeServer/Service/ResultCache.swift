import Foundation
import Logging
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import NIOCore

/// One encoded result: the bytes the service answers with and what describes them.
struct EncodedResult: Sendable {
    /// The encoded image, held as the buffer responses are written from: every response for
    /// the result shares it (copy-on-write) instead of copying the bytes into a new one.
    var body: ByteBuffer
    /// Its format.
    var format: ImageFormat
    /// A strong validator: a digest of the bytes.
    var etag: String
    /// How long its stages took when it was made (`Server-Timing`); empty when restored.
    var timing = ServerTiming()
    /// The source's failure when this is the fallback image made in its place (never cached).
    var fallbackFor: ServiceError?

    init(data: Data, format: ImageFormat) {
        body = ByteBuffer(data: data)
        self.format = format
        etag = "\"" + Hex.string(Digest.sha256(data).prefix(16)) + "\""
    }

    private init(data: Data, format: ImageFormat, etag: String) {
        body = ByteBuffer(data: data)
        self.format = format
        self.etag = etag
    }

    /// The encoded image as `Data` (a copy: for the disk cache, once per result made).
    var data: Data { Data(buffer: body) }

    /// The encoded image's size in bytes.
    var count: Int { body.readableBytes }

    /// The memory the result holds: its buffer's capacity, which NIO rounds up to a power of
    /// two (a 33 KB JPEG holds 64 KB). The memory level's limit counts this, not `count`, so
    /// that it bounds what the process really keeps.
    var memoryCost: Int { body.capacity }

    /// A result read back from the result cache.
    static func restored(from entry: DiskCacheEntry) -> EncodedResult? {
        guard let info = entry.userInfo, let name = String(data: info, encoding: .utf8),
              let format = ImageFormat(rawValue: name), let etag = entry.validators.etag else { return nil }
        return EncodedResult(data: entry.data, format: format, etag: etag)
    }
}

/// Processed results, keyed by the options and the source (never the signature, so a key
/// rotation keeps them): a result asked for again is read, not made again.
///
/// Two levels: encoded results in memory (bounded in bytes, least recently used out first) in
/// front of the disk cache. A repeated URL — the warm case behind a CDN's misses, and every
/// `If-None-Match` — is then a dictionary lookup, with no file opened; the disk keeps results
/// across restarts and beyond the memory bound, and a disk hit is promoted to memory. Disk
/// writes go through the disk cache's background writer, so a response never waits for one.
///
/// Behind both, a cluster's shared ``ResultStorage`` (a bucket), read only by
/// ``storedResult(forKey:)``: a network round trip, which a request pays only once it is
/// admitted to make the result, never on the synchronous lookup of ``result(forKey:)``.
final class ResultCache: Sendable {
    private let memory: MemoryCache<String, EncodedResult>?
    private let disk: DiskCacheWriter?
    private let storage: ResultStorage?

    /// A cache holding at most `memoryLimit` bytes of results in memory (0: none) in front of
    /// `disk` (`nil`: none), with at most `stagingLimit` bytes waiting to be written to it, and
    /// `storage` (`nil`: none) behind them.
    init(memoryLimit: Int, disk: DiskCache?, storage: ResultStorage? = nil, stagingLimit: Int = 64 << 20,
         logger: Logger = Logger(label: "loupe.results")) {
        memory = memoryLimit > 0 ? MemoryCache(configuration: .init(costLimit: memoryLimit)) : nil
        self.disk = disk.map { DiskCacheWriter(cache: $0, stagingLimit: stagingLimit, logger: logger) }
        self.storage = storage
    }

    /// The result stored under `key`, if any and still fresh.
    func result(forKey key: String) -> EncodedResult? {
        if let hit = memory?.value(forKey: key) { return hit }
        guard let disk, let entry = disk.entry(forKey: key), !entry.isExpired,
              let result = EncodedResult.restored(from: entry) else { return nil }
        if let memory {
            // Kept in memory no longer than the disk would keep it.
            let remaining = entry.expiresAt.map { Duration.seconds(max(0, $0.timeIntervalSinceNow)) }
            memory.setValue(result, forKey: key, cost: result.memoryCost, timeToLive: remaining)
        }
        return result
    }

    /// The result the shared storage holds under `key`, kept in memory and on disk for what
    /// remains of its lifetime; `nil` without storage, or when it has none fresh.
    func storedResult(forKey key: String) async -> EncodedResult? {
        guard let storage, let (result, timeToLive) = await storage.result(forKey: key) else { return nil }
        keepLocally(result, forKey: key, timeToLive: timeToLive)
        return result
    }

    /// Stores `result` for `timeToLive` seconds, at every level; a failure (disk full, say)
    /// only means it is made again next time.
    func store(_ result: EncodedResult, forKey key: String, timeToLive: Int) {
        keepLocally(result, forKey: key, timeToLive: timeToLive)
        storage?.store(result, forKey: key, timeToLive: timeToLive)
    }

    private func keepLocally(_ result: EncodedResult, forKey key: String, timeToLive: Int) {
        memory?.setValue(result, forKey: key, cost: result.memoryCost, timeToLive: .seconds(timeToLive))
        disk?.store(result.data, forKey: key, expiry: .after(TimeInterval(timeToLive)),
                    validators: DiskCacheValidators(etag: result.etag), userInfo: Data(result.format.rawValue.utf8))
    }

    /// Returns once every result handed over so far is on disk and in the storage (or failed).
    func flush() async {
        await disk?.flush()
        await storage?.flush()
    }

    /// Bytes of memory the results held in memory take (their buffers' capacity).
    var memoryBytes: Int { memory?.totalCost ?? 0 }
}
