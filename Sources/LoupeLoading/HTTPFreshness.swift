import Foundation

/// How long a response may be served from a cache without asking the server again, from its
/// `Cache-Control`, `Expires`, `Date` and `Age` headers (RFC 9111 §4.2, as a private cache).
///
/// Kingfisher and SDWebImage ignore these headers and keep everything for a fixed week, which is
/// why "the image changed behind the same URL" is their most common complaint; Loupe keeps what
/// the server says and falls back to a configured default only when it says nothing.
public struct HTTPFreshness: Sendable, Equatable {
    /// Whether the response may be stored at all (`Cache-Control: no-store` says no).
    public var isStorable: Bool
    /// When the stored copy stops being fresh and must be revalidated; `nil` when neither the
    /// server nor the default sets a limit.
    public var expiresAt: Date?

    /// The freshness of `response`, received at `now`.
    ///
    /// - Parameter defaultTimeToLive: used when the response carries no explicit expiry.
    public static func of(_ response: DataResponse, receivedAt now: Date, defaultTimeToLive: TimeInterval?) -> HTTPFreshness {
        let directives = cacheControl(response.header("Cache-Control"))
        if directives["no-store"] != nil { return HTTPFreshness(isStorable: false, expiresAt: nil) }
        // no-cache: may be stored, but every use must be revalidated first.
        if directives["no-cache"] != nil { return HTTPFreshness(isStorable: true, expiresAt: now) }
        let age = response.header("Age").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        if let maxAge = directives["max-age"].flatMap({ $0 }).flatMap(Double.init) {
            return HTTPFreshness(isStorable: true, expiresAt: now.addingTimeInterval(max(0, maxAge - max(0, age))))
        }
        if let expires = response.header("Expires") {
            // An invalid Expires (often "0" or "-1") means already expired (RFC 9111 §5.3).
            guard let expiry = HTTPDate.parse(expires) else { return HTTPFreshness(isStorable: true, expiresAt: now) }
            // The lifetime is Expires − Date on the server's clock; our clock may differ from it.
            let serverNow = response.header("Date").flatMap(HTTPDate.parse) ?? now
            let lifetime = expiry.timeIntervalSince(serverNow) - max(0, age)
            return HTTPFreshness(isStorable: true, expiresAt: now.addingTimeInterval(max(0, lifetime)))
        }
        return HTTPFreshness(isStorable: true, expiresAt: defaultTimeToLive.map { now.addingTimeInterval($0) })
    }

    /// Directive names (lower-cased) to their argument, if any; quotes removed.
    static func cacheControl(_ header: String?) -> [String: String?] {
        guard let header else { return [:] }
        var directives: [String: String?] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = pair.first?.lowercased(), !name.isEmpty else { continue }
            let value = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            // The first occurrence wins, so a later duplicate cannot extend a lifetime.
            if directives[name] == nil { directives[name] = .some(value) }
        }
        return directives
    }
}
