import Foundation
import LoupeLoading

extension ImageRequest {
    /// Whether a stale copy in the disk cache may be answered, and how stale: the choice behind
    /// ``ImageRequest/staleWhileRevalidate`` and ``ImageRequest/staleIfError``.
    ///
    /// The server has the last word, as in RFC 5861 and browsers: its `stale-while-revalidate=N`
    /// or `stale-if-error=N` bounds how stale a copy may be (the smaller of its window and the
    /// request's applies), and `must-revalidate`, `proxy-revalidate` or `no-cache` forbid any stale
    /// answer. Where the server says nothing, the request's window alone applies.
    public enum StalePolicy: Sendable, Hashable {
        /// Never answer a stale copy, whatever the server allows.
        case never
        /// Only as far as the server's directive allows (none without one): what browsers do.
        case whenServerAllows
        /// Up to this many seconds past the copy's expiry, or the server's window if smaller.
        /// A negative or non-finite number other than `infinity` answers no stale copy.
        case upTo(TimeInterval)

        /// As stale as the server allows, and any age when it says nothing.
        public static let always = StalePolicy.upTo(.infinity)

        /// How many seconds past expiry a copy may be answered under this policy, given the
        /// server's window for the case (`nil`: it said nothing) and whether it forbids stale
        /// answers; `nil` for none.
        func window(server: TimeInterval?, forbidden: Bool) -> TimeInterval? {
            guard !forbidden else { return nil }
            switch self {
            case .never:
                return nil
            case .whenServerAllows:
                return server
            case .upTo(let seconds):
                guard seconds >= 0, !seconds.isNaN else { return nil }
                return server.map { min($0, seconds) } ?? seconds
            }
        }
    }

    /// A request's stale policies as given (`nil`: the pipeline's default), part of its stage
    /// keys: requests that would answer differently from a stale copy do not share work.
    struct StaleUse: Sendable, Hashable {
        var whileRevalidating: StalePolicy?
        var ifError: StalePolicy?
    }
}
