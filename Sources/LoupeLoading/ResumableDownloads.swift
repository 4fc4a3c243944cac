import Foundation
import NIOConcurrencyHelpers

/// The bytes of downloads that were cut off, kept so that the next load of the same resource —
/// a retry, or a later request after the last caller left — asks only for the rest
/// (`Range: bytes=N-` with `If-Range`), appends the server's `206`, and starts over when the
/// server answers the whole file (`200`: it changed, or ignores ranges), refuses the range
/// (`416`) or sends a range that does not continue the bytes kept.
///
/// Only `GET`s without a range of their own whose response named a strong validator are kept
/// (RFC 9110 allows `If-Range` with nothing weaker). Bounded in bytes and in count; past either,
/// the least recently kept go first. A load takes its resource's bytes out while it runs, so two
/// loads of one resource never append to the same start.
///
/// ```swift
/// let loader = AsyncHTTPClientDataLoader(resumableDownloads: ResumableDownloads(maximumBytes: 64 << 20))
/// ```
public final class ResumableDownloads: Sendable {
    /// At most this many cut-off downloads are kept.
    public let maximumCount: Int
    /// At most this many bytes are kept in all; a cut-off body larger than this is not kept.
    public let maximumBytes: Int

    private struct State {
        var entries: [Key: PartialDownload] = [:]
        /// Least recently kept first.
        var order: [Key] = []
        var bytes = 0
    }

    /// A resource as a `GET` names it: its URL and headers, less the ones that only make it
    /// conditional or partial.
    private struct Key: Hashable {
        var url: String
        var headers: [String: String]
    }

    private static let conditionalHeaders: Set<String> = ["range", "if-range", "if-none-match", "if-modified-since"]

    private let state = NIOLockedValueBox(State())

    /// A store keeping at most `maximumCount` cut-off downloads (16 by default) and at most
    /// `maximumBytes` bytes of them in all (32 MiB by default).
    public init(maximumCount: Int = 16, maximumBytes: Int = 32 << 20) {
        self.maximumCount = max(0, maximumCount)
        self.maximumBytes = max(0, maximumBytes)
    }

    /// How many cut-off downloads are kept now.
    public var count: Int { state.withLockedValue { $0.entries.count } }
    /// How many bytes are kept now.
    public var totalBytes: Int { state.withLockedValue { $0.bytes } }

    /// Forgets every cut-off download.
    public func removeAll() {
        state.withLockedValue { $0 = State() }
    }

    /// The key of `request`, or `nil` when it cannot be resumed: not a `GET`, or a range of its own.
    private static func key(of request: DataRequest) -> Key? {
        guard request.method.uppercased() == "GET",
              !request.headers.keys.contains(where: { $0.lowercased() == "range" }) else { return nil }
        var headers: [String: String] = [:]
        for (name, value) in request.headers where !conditionalHeaders.contains(name.lowercased()) {
            headers[name.lowercased()] = value
        }
        return Key(url: request.url.absoluteString, headers: headers)
    }

    /// Whether `request` may be resumed later, if cut off.
    func isResumable(_ request: DataRequest) -> Bool { Self.key(of: request) != nil }

    /// Takes out what was kept of `request`'s resource, for the load that resumes it.
    func take(for request: DataRequest) -> PartialDownload? {
        guard let key = Self.key(of: request) else { return nil }
        return state.withLockedValue { state in
            guard let partial = state.entries.removeValue(forKey: key) else { return nil }
            state.order.removeAll { $0 == key }
            state.bytes -= partial.data.count
            return partial
        }
    }

    /// Gives back what ``take(for:)`` took, for a load that failed before it could append to it,
    /// unless something newer was kept for the resource meanwhile.
    func restore(_ partial: PartialDownload, for request: DataRequest) {
        keep(partial, for: request, replacing: false)
    }

    /// Keeps `partial` for `request`'s resource (replacing what was kept of it, unless not
    /// `replacing`), evicting the least recently kept past the bounds.
    func keep(_ partial: PartialDownload, for request: DataRequest, replacing: Bool = true) {
        guard let key = Self.key(of: request), partial.data.count <= maximumBytes, maximumCount > 0 else { return }
        state.withLockedValue { state in
            if !replacing, state.entries[key] != nil { return }
            if let previous = state.entries.updateValue(partial, forKey: key) {
                state.bytes -= previous.data.count
                state.order.removeAll { $0 == key }
            }
            state.order.append(key)
            state.bytes += partial.data.count
            // Bounded: each turn removes one entry, and the one just kept fits alone.
            while state.entries.count > maximumCount || state.bytes > maximumBytes, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.bytes -= state.entries.removeValue(forKey: oldest)?.data.count ?? 0
            }
        }
    }
}
