import Foundation

/// The start of a body whose download was cut off — by a network failure, a timeout or its last
/// caller leaving — with what is needed to ask the server for the rest of that same
/// representation: `Range: bytes=N-` and `If-Range` with a strong validator, so a server whose
/// file changed meanwhile answers the whole new file (`200`) instead of a tail that does not fit.
struct PartialDownload: Sendable, Equatable {
    /// The bytes received, from the body's first.
    var data: Data
    /// The strong validator sent as `If-Range`: an ETag not marked weak, else a `Last-Modified`
    /// at least a second before the response's `Date` (RFC 9110 §8.8.2.2, §13.1.5).
    var validator: String
    /// The full response's headers (lower-cased names), which the completed response keeps
    /// where the `206` does not repeat them.
    var headers: [String: String]
    /// The whole body's length, from the full response's `Content-Length`, when it was sent.
    var completeLength: Int?

    /// What is kept of a body cut off after `data`, or `nil` when it cannot be resumed: nothing
    /// received, a response that is not the whole representation, the server refusing ranges
    /// (`Accept-Ranges: none`), or no strong validator.
    init?(data: Data, headers: [String: String], completeLength: Int?) {
        guard !data.isEmpty, completeLength.map({ data.count < $0 }) ?? true,
              headers["accept-ranges"]?.lowercased() != "none",
              let validator = Self.strongValidator(in: headers)
        else { return nil }
        self.data = data
        self.validator = validator
        self.headers = headers
        self.completeLength = completeLength
    }

    /// The validator `If-Range` may carry for a response with `headers`, or `nil`: a weak ETag
    /// or a `Last-Modified` that may not change with every edit cannot guarantee that two
    /// ranges come from the same bytes.
    static func strongValidator(in headers: [String: String]) -> String? {
        if let etag = headers["etag"]?.trimmingCharacters(in: .whitespaces), !etag.isEmpty {
            return etag.hasPrefix("W/") ? nil : etag
        }
        guard let lastModified = headers["last-modified"], let modified = HTTPDate.parse(lastModified),
              let sent = headers["date"].flatMap(HTTPDate.parse), sent.timeIntervalSince(modified) >= 1
        else { return nil }
        return lastModified
    }

    /// `request` asking for the bytes after ``data``, if the representation is still ``validator``.
    func resuming(_ request: DataRequest) -> DataRequest {
        var resumed = request
        resumed.headers["Range"] = "bytes=\(data.count)-"
        resumed.headers["If-Range"] = validator
        return resumed
    }

    /// Whether a `206`'s `Content-Range` continues ``data``: it starts at the first byte
    /// missing, and names the same complete length when both are known.
    func isContinued(by contentRange: String?) -> Bool {
        guard let range = contentRange.flatMap(ContentRange.init), range.first == data.count else { return false }
        if let known = completeLength, let stated = range.completeLength { return known == stated }
        return true
    }

    /// The headers of the completed body: the full response's, updated by the `206`'s
    /// (fresher `Cache-Control`, `Date`, `Expires`), without the range and with the whole length.
    func completedHeaders(updatedBy partialResponse: [String: String], length: Int) -> [String: String] {
        var merged = headers.merging(partialResponse) { _, fresh in fresh }
        merged["content-range"] = nil
        merged["content-length"] = String(length)
        return merged
    }
}

/// A `206`'s `Content-Range: bytes first-last/complete` (the complete length may be `*`).
struct ContentRange: Equatable {
    var first: Int
    var last: Int
    var completeLength: Int?

    /// The range `text` states, or `nil` when it is not a satisfied byte range.
    init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first else { return nil }
        let complete = halves[1] == "*" ? nil : Int(halves[1])
        guard halves[1] == "*" || complete.map({ $0 > last }) == true else { return nil }
        self.first = first
        self.last = last
        self.completeLength = complete
    }
}
