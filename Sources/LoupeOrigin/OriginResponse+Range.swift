import Foundation

extension OriginResponse {
    /// `body` served as a file server serves a file: with its validators and
    /// `Accept-Ranges: bytes`, and honouring `request`'s `Range: bytes=first-[last]` — a `206`
    /// with `Content-Range`, or a `416` past the end — unless its `If-Range` names another
    /// version (then the whole file, `200`), as RFC 9110 §14.2 and §13.1.5 say.
    package static func file(
        _ body: Data, for request: OriginRequest, etag: String? = nil, lastModified: String? = nil,
        contentType: String = "image/jpeg"
    ) -> OriginResponse {
        var headers: [(String, String)] = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
        if let etag { headers.append(("ETag", etag)) }
        if let lastModified { headers.append(("Last-Modified", lastModified)) }
        guard let range = request.header("Range"), isCurrent(request.header("If-Range"), etag: etag, lastModified: lastModified),
              let (first, last) = byteRange(range)
        else { return OriginResponse(status: 200, headers: headers, body: body) }
        guard first < body.count else {
            return OriginResponse(status: 416, headers: headers + [("Content-Range", "bytes */\(body.count)")])
        }
        let end = min(last ?? (body.count - 1), body.count - 1)
        return OriginResponse(
            status: 206, headers: headers + [("Content-Range", "bytes \(first)-\(end)/\(body.count)")],
            body: body.subdata(in: first..<(end + 1)))
    }

    /// This response cut off after `fraction` (0...1) of its body: the connection is reset
    /// there, a network failure mid-download.
    package func cut(atFraction fraction: Double) -> OriginResponse {
        var cut = self
        cut.fault = .resetAfter(bytes: Int(Double(body.count) * min(1, max(0, fraction))))
        return cut
    }

    /// Whether an `If-Range` (absent, a strong ETag or a date) names the version served.
    private static func isCurrent(_ ifRange: String?, etag: String?, lastModified: String?) -> Bool {
        guard let ifRange else { return true }
        if ifRange.hasPrefix("\"") { return etag.map { !$0.hasPrefix("W/") && $0 == ifRange } ?? false }
        return lastModified == ifRange
    }

    /// The one range of `Range: bytes=first-[last]`, or `nil` for anything else (served whole).
    private static func byteRange(_ header: String) -> (Int, Int?)? {
        let spec = header.trimmingCharacters(in: .whitespaces)
        guard spec.hasPrefix("bytes="), !spec.contains(",") else { return nil }
        let bounds = spec.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), first >= 0 else { return nil }
        if bounds[1].isEmpty { return (first, nil) }
        guard let last = Int(bounds[1]), last >= first else { return nil }
        return (first, last)
    }
}
