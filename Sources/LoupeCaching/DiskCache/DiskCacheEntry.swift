import Foundation

/// HTTP validators stored beside a payload so a stale entry can be revalidated with a
/// conditional request (`If-None-Match` / `If-Modified-Since`) instead of downloaded again.
public struct DiskCacheValidators: Sendable, Hashable {
    /// The response's `ETag` header, verbatim.
    public var etag: String?
    /// The response's `Last-Modified` header, verbatim.
    public var lastModified: String?

    /// Validators from the given header values; both default to absent.
    ///
    /// - Parameters:
    ///   - etag: the response's `ETag` header, verbatim (sent back as `If-None-Match`); `nil` for none.
    ///   - lastModified: the response's `Last-Modified` header, verbatim (sent back as
    ///     `If-Modified-Since`); `nil` for none.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// When a stored entry stops being fresh.
public enum DiskCacheExpiry: Sendable, Hashable {
    /// The cache's `Configuration.defaultTimeToLive` from now.
    case `default`
    /// Never expires by age (it can still be evicted by size).
    case never
    /// The given number of seconds from now.
    case after(TimeInterval)
    /// At the given date.
    case at(Date)

    /// The policy for an absolute expiry date: `.at(date)`, or `.never` when `date` is `nil`
    /// (an HTTP response's freshness gives one or the other).
    ///
    /// - Parameter date: when the entry stops being fresh; `nil` for never.
    public init(expiresAt date: Date?) {
        self = date.map { .at($0) } ?? .never
    }

    /// The expiry date this policy gives at `now`, or `nil` for "never".
    func date(now: Date, defaultTimeToLive: TimeInterval?) -> Date? {
        switch self {
        case .default: defaultTimeToLive.map { now.addingTimeInterval($0) }
        case .never: nil
        case .after(let seconds): now.addingTimeInterval(seconds)
        case .at(let date): date
        }
    }
}

/// A payload read from the disk cache together with its metadata.
///
/// Lookups return stale entries too (`isExpired == true`) so the caller can revalidate with
/// `validators` and, on a 304, call `DiskCache.markRevalidated` rather than rewrite the payload.
public struct DiskCacheEntry: Sendable {
    /// The stored bytes, verified against their checksum on this read.
    public let data: Data
    /// When the payload was stored (a revalidation does not change it).
    public let storedAt: Date
    /// When the entry stops being fresh; `nil` means never.
    public let expiresAt: Date?
    /// The HTTP validators stored with the payload.
    public let validators: DiskCacheValidators
    /// The caller's opaque metadata stored with the payload.
    public let userInfo: Data?
    /// Whether `expiresAt` had passed at the time of the lookup.
    public let isExpired: Bool
}
