import Crypto
import Foundation
import LoupeCaching
import LoupeCodecs

/// One encoded result: the bytes the service answers with and what describes them.
struct EncodedResult: Sendable {
    /// The encoded image.
    var data: Data
    /// Its format.
    var format: ImageFormat
    /// A strong validator: a digest of the bytes.
    var etag: String

    init(data: Data, format: ImageFormat) {
        self.data = data
        self.format = format
        etag = "\"" + SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    private init(data: Data, format: ImageFormat, etag: String) {
        self.data = data
        self.format = format
        self.etag = etag
    }

    /// A result read back from the result cache.
    static func restored(from entry: DiskCacheEntry) -> EncodedResult? {
        guard let info = entry.userInfo, let name = String(data: info, encoding: .utf8),
              let format = ImageFormat(rawValue: name), let etag = entry.validators.etag else { return nil }
        return EncodedResult(data: entry.data, format: format, etag: etag)
    }
}

/// Processed results on disk, keyed by the options and the source (never the signature, so a
/// key rotation keeps them): a result asked for again is read, not made again.
struct ResultCache: Sendable {
    let cache: DiskCache

    /// The result stored under `key`, if any and still fresh.
    func result(forKey key: String) -> EncodedResult? {
        guard let entry = try? cache.entry(forKey: key), !entry.isExpired else { return nil }
        return EncodedResult.restored(from: entry)
    }

    /// Stores `result`; a failure (disk full, say) only means it is made again next time.
    func store(_ result: EncodedResult, forKey key: String, timeToLive: Int) {
        try? cache.store(result.data, forKey: key, expiry: .after(TimeInterval(timeToLive)),
                         validators: DiskCacheValidators(etag: result.etag), userInfo: Data(result.format.rawValue.utf8))
    }
}
