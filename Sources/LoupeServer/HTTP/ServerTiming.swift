import HTTPTypes

/// The stage times of one result, sent as a `Server-Timing` header (W3C Server Timing) so a
/// browser's developer tools, or a page's `PerformanceResourceTiming`, show where a request's
/// time went: waiting for a slot, download, decode, processing, encoding.
struct ServerTiming: Sendable, Equatable {
    /// One metric: its name and duration.
    struct Entry: Sendable, Equatable {
        var name: String
        var duration: Duration
    }

    /// The stages measured while the result was made, in the order they ran.
    var entries: [Entry] = []

    /// The header's value: each stage, then whether the result cache answered, then `total`
    /// (the whole request as the service saw it). A cache hit has no stages of its own.
    func header(cacheHit: Bool, total: Duration) -> String {
        // A hit's stored stages belong to the request that made the result, not this one.
        var metrics = cacheHit ? [] : entries.map { "\($0.name);dur=\(Self.milliseconds($0.duration))" }
        metrics.append(cacheHit ? "cache;desc=hit" : "cache;desc=miss")
        metrics.append("total;dur=\(Self.milliseconds(total))")
        return metrics.joined(separator: ", ")
    }

    /// Milliseconds with at most three decimals, as the header's `dur` parameter takes them.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let whole = microseconds / 1000, fraction = microseconds % 1000
        guard fraction > 0 else { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }
}

extension ServerTiming {
    /// The `Server-Timing` header field's name.
    // A constant, valid field name: the initialiser fails only for characters outside a token.
    static let field = HTTPField.Name("Server-Timing")!
}
