import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import Logging

/// Results kept in an S3 bucket (`--result-storage s3://bucket/prefix`), behind the memory and
/// disk levels of ``ResultCache``: every instance of a cluster reads what any instance made, so
/// each result is made once across the cluster, and losing an instance (its disk included)
/// loses none.
///
/// An object holds the encoded result with its `Content-Type`, its format and its expiry as
/// user metadata (`x-amz-meta-loupe-format`, `x-amz-meta-loupe-expires`, seconds since 1970) and
/// a `Cache-Control` for whoever reads the bucket directly; the `ETag` the service answers with
/// is the digest of the bytes, so the object carries it by its content. An expired object is a
/// miss, and the result made again replaces it: a bucket lifecycle rule only needs to delete
/// objects older than the longest TTL.
///
/// Writes go out in the background, at most ``maximumPendingWrites`` at once: an answer never
/// waits for one, a failed or dropped write is logged and counted, never fatal.
final class ResultStorage: Sendable {
    /// What happened to a lookup or a write (a metric's label).
    enum Outcome: String, CaseIterable, Sendable {
        case hit, miss, expired, lookupFailed = "lookup_failed", written, writeFailed = "write_failed", writeDropped = "write_dropped"
    }

    /// The bucket and the key prefix (ending in `/` unless empty).
    let bucket: String
    let prefix: String
    /// Writes in flight beyond which a new one is dropped (and counted).
    let maximumPendingWrites: Int
    private let reader: any DataLoading
    private let writer: S3ObjectWriter
    private let count: @Sendable (Outcome) -> Void
    private let logger: Logger
    private let pending = Locked<[UInt64: Task<Void, Never>]>([:])
    private let nextWrite = Locked<UInt64>(0)

    /// Storage in `place` on the S3 server `configuration` names, reading objects of at most
    /// `limits`' size within its time, counting each outcome.
    init(place: ResultStoragePlace, configuration: S3Configuration, limits: HTTPLoadingLimits, maximumPendingWrites: Int = 64,
         logger: Logger, count: @escaping @Sendable (Outcome) -> Void) {
        bucket = place.bucket
        prefix = place.prefix
        self.maximumPendingWrites = maximumPendingWrites
        reader = RetryingDataLoader(S3DataLoader(configuration: configuration, limits: limits))
        writer = S3ObjectWriter(configuration: configuration, timeout: limits.totalTimeout)
        self.logger = logger
        self.count = count
    }

    /// The object that holds the result named `key`.
    func location(forKey key: String) throws -> S3Location {
        try S3Location(bucket: bucket, key: prefix + key)
    }

    /// The result stored under `key` with the seconds it stays fresh, or `nil` when there is
    /// none, it expired, or the bucket could not be read (logged: the result is made instead).
    func result(forKey key: String, now: Date = Date()) async -> (result: EncodedResult, timeToLive: Int)? {
        do {
            let location = try location(forKey: key)
            guard let url = URL(string: location.description) else { throw DataLoadingError.invalidURL(location.description) }
            let response = try await reader.loadData(for: DataRequest(url: url), progress: nil)
            guard let format = response.header("x-amz-meta-loupe-format").flatMap(ImageFormat.init(rawValue:)),
                  let expires = response.header("x-amz-meta-loupe-expires").flatMap(Double.init)
            else {
                // Not written by this service (or by one that stored other metadata).
                count(.miss)
                return nil
            }
            let remaining = Int((expires - now.timeIntervalSince1970).rounded(.down))
            guard remaining > 0 else {
                count(.expired)
                return nil
            }
            count(.hit)
            return (EncodedResult(data: response.data, format: format), remaining)
        } catch DataLoadingError.httpStatus(404, _, _) {
            count(.miss)
        } catch is CancellationError {
        } catch {
            count(.lookupFailed)
            logger.warning("result storage lookup failed", metadata: ["key": "\(key)", "error": "\(error)"])
        }
        return nil
    }

    /// Writes `result` under `key`, fresh for `timeToLive` seconds, in the background.
    func store(_ result: EncodedResult, forKey key: String, timeToLive: Int, now: Date = Date()) {
        let id = nextWrite.withLock { value in
            value += 1
            return value
        }
        let headers = [
            "content-type": result.format.mimeType,
            "cache-control": "max-age=\(timeToLive)",
            "x-amz-meta-loupe-format": result.format.rawValue,
            "x-amz-meta-loupe-expires": String(Int(now.timeIntervalSince1970.rounded(.up)) + timeToLive),
        ]
        let data = result.data
        let admitted = pending.withLock { tasks -> Bool in
            guard tasks.count < maximumPendingWrites else { return false }
            tasks[id] = Task { [writer, logger, count] in
                do {
                    try await writer.put(data, at: try location(forKey: key), headers: headers)
                    count(.written)
                } catch {
                    count(.writeFailed)
                    logger.warning("result storage write failed", metadata: ["key": "\(key)", "error": "\(error)"])
                }
                self.pending.withLock { _ = $0.removeValue(forKey: id) }
            }
            return true
        }
        if !admitted {
            count(.writeDropped)
            logger.warning("result storage write dropped: \(maximumPendingWrites) writes already pending", metadata: ["key": "\(key)"])
        }
    }

    /// Returns once every write started so far has ended.
    func flush() async {
        // Bounded: each turn waits for the writes pending at its start, and a shutdown's flush
        // comes after the last request.
        for _ in 0..<8 {
            let tasks = pending.withLock { Array($0.values) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }
}
