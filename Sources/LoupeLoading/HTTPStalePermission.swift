import Foundation

/// How long past its expiry the server lets a stored response be answered (RFC 5861): while
/// the cache revalidates it in the background (`stale-while-revalidate=N`), or when the
/// revalidation fails (`stale-if-error=N`) — and whether it forbids any stale use
/// (`must-revalidate`, `proxy-revalidate` or `no-cache`, which override both, as RFC 9111 §4.2.4
/// and RFC 5861 §4 say).
///
/// Kept beside a stored copy, as the text of the directives that say it (``storedDirectives``),
/// so the copy's permission is known when it goes stale, in this process or a later one.
public struct HTTPStalePermission: Sendable, Equatable {
    /// Seconds past expiry the copy may be answered while it is revalidated; `nil` when the
    /// server did not say.
    public var whileRevalidating: TimeInterval?
    /// Seconds past expiry the copy may be answered when its revalidation fails; `nil` when the
    /// server did not say.
    public var ifError: TimeInterval?
    /// Whether the server forbids answering the copy once stale, whatever the cache prefers.
    public var isForbidden: Bool

    /// The permission `Cache-Control` gives; a value that is not a number of seconds (RFC 9111's
    /// delta-seconds: digits only) counts as not given.
    public init(cacheControl: String?) {
        let directives = HTTPFreshness.cacheControl(cacheControl)
        func seconds(_ name: String) -> TimeInterval? {
            guard let value = directives[name] ?? nil, !value.isEmpty, value.allSatisfy(\.isASCIIDigit) else { return nil }
            // Past Int's range it is still "a very long time", not "not given".
            return TimeInterval(Int(value) ?? .max)
        }
        whileRevalidating = seconds("stale-while-revalidate")
        ifError = seconds("stale-if-error")
        isForbidden = ["must-revalidate", "proxy-revalidate", "no-cache"].contains { directives[$0] != nil }
    }

    /// The directives that make up this permission, as `Cache-Control` text (empty when it says
    /// nothing): what is stored beside the copy and read back with ``init(cacheControl:)``.
    public var storedDirectives: String {
        var parts: [String] = []
        if let whileRevalidating { parts.append("stale-while-revalidate=\(Self.text(whileRevalidating))") }
        if let ifError { parts.append("stale-if-error=\(Self.text(ifError))") }
        if isForbidden { parts.append("must-revalidate") }
        return parts.joined(separator: ", ")
    }

    /// Whole seconds as text; Int's largest for anything at or past it (converting those to
    /// `Int` would trap).
    private static func text(_ seconds: TimeInterval) -> String {
        seconds >= TimeInterval(Int.max) ? String(Int.max) : String(Int(max(0, seconds)))
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
