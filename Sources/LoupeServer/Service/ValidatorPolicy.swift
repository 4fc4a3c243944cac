import Foundation
import LoupeLoading

/// The validators an image answer carries and the conditional headers sent on to a source:
/// imgproxy 4's rules (`--etag origin`, `--last-modified origin`, the busters), with every
/// value from a client or an origin checked before it goes into a header.
///
/// imgproxy's rules, as its `conditionalheaders` package has them:
/// - the answer's `ETag` is the origin's as it is, or `"<buster>/<the origin's, base64url>"`;
///   with a buster, a client's `If-None-Match` must be of that form and is decoded before it
///   is sent on, and one that is not sends no conditional header at all;
/// - the answer's `Last-Modified` is the origin's, raised to the buster when older; an
///   `If-Modified-Since` is sent on only when after the buster;
/// - an origin's `304` is answered as a `304` with its validators.
///
/// Loupe's own checks: a validator from a client or an origin longer than ``longestValidator``
/// or holding anything but visible ASCII (a line break, say) is ignored, never reflected; an
/// `If-Modified-Since` or `Last-Modified` is taken only as a date it can read, and written anew.
struct ValidatorPolicy: Sendable {
    let etag: ETagMode
    let etagBuster: String?
    let lastModified: LastModifiedMode
    let lastModifiedBuster: Date?

    /// The longest `ETag` or `If-None-Match` taken from an origin or a client.
    static let longestValidator = 512

    init(settings: ServerSettings) {
        etag = settings.etagMode
        etagBuster = settings.etagBuster
        lastModified = settings.lastModifiedMode
        lastModifiedBuster = settings.lastModifiedBuster
    }

    /// Whether a request for a remote source goes to its origin with the client's conditions,
    /// each time (imgproxy has no result cache: it asks the origin for every request).
    var asksOrigin: Bool { etag == .origin || lastModified == .origin }

    /// What an answer says about its version.
    struct Validators: Sendable, Equatable {
        var etag: String?
        var lastModified: String?
    }

    /// The conditions a client's request makes, in the form they are sent to an origin (or
    /// checked against a local file): the headers, each `nil` when not sent.
    struct Conditions: Sendable, Equatable {
        var ifNoneMatch: String?
        var ifModifiedSince: String?

        /// The headers for the origin's request.
        var headers: [String: String] {
            var headers: [String: String] = [:]
            if let ifNoneMatch { headers["If-None-Match"] = ifNoneMatch }
            if let ifModifiedSince { headers["If-Modified-Since"] = ifModifiedSince }
            return headers
        }
    }

    /// The conditions of a client's `If-None-Match` and `If-Modified-Since` to send on.
    /// `If-None-Match` only with ``ETagMode/origin`` (a digest ETag is checked here, against
    /// the result); `If-Modified-Since` unless ``LastModifiedMode/none``, and not beside an
    /// `If-None-Match` that Loupe checks itself (RFC 9110 §13.1.3: it is then ignored).
    func conditions(ifNoneMatch: String?, ifModifiedSince: String?) -> Conditions {
        var conditions = Conditions()
        if etag == .origin, let ifNoneMatch, let safe = Self.safeValidator(ifNoneMatch) {
            if let etagBuster {
                // imgproxy: a tag without this buster, or one that does not decode, sends nothing.
                guard let decoded = Self.decodeBusted(safe, buster: etagBuster) else { return Conditions() }
                conditions.ifNoneMatch = decoded
            } else {
                conditions.ifNoneMatch = safe
            }
        }
        let checkedHere = etag == .digest && ifNoneMatch != nil
        if lastModified != .none, !checkedHere, let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince) {
            if lastModified == .origin, let lastModifiedBuster, since <= lastModifiedBuster { return conditions }
            conditions.ifModifiedSince = HTTPDate.string(from: since)
        }
        return conditions
    }

    /// The headers sent to an origin for `conditions`: `If-Modified-Since` only with
    /// ``LastModifiedMode/origin`` (``LastModifiedMode/local`` checks it against local files only).
    func originHeaders(_ conditions: Conditions) -> [String: String] {
        var sent = conditions
        if lastModified != .origin { sent.ifModifiedSince = nil }
        return sent.headers
    }

    /// The answer's validators from an origin's `ETag` and `Last-Modified` (or, `local`, a
    /// local file's), as the modes and busters make them; a value that is not safe is left out.
    func validators(etag originETag: String?, lastModified originLastModified: String?, local: Bool) -> Validators {
        var validators = Validators()
        if etag == .origin, let originETag, let safe = Self.safeValidator(originETag) {
            validators.etag = etagBuster.map { "\"\($0)/\(URLSigner.base64URLEncode(Data(safe.utf8)))\"" } ?? safe
        }
        let passes = lastModified == .origin || (lastModified == .local && local)
        if passes, let originLastModified, var date = HTTPDate.parse(originLastModified) {
            if lastModified == .origin, let lastModifiedBuster, date < lastModifiedBuster { date = lastModifiedBuster }
            validators.lastModified = HTTPDate.string(from: date)
        }
        return validators
    }

    /// `text`, trimmed, when it can go into a header as it is: visible ASCII and spaces, at
    /// most ``longestValidator`` bytes; else `nil`.
    static func safeValidator(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= longestValidator,
              trimmed.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return trimmed
    }

    /// The origin's tag inside a busted one (`"buster/base64url"`, quoted or not, weak or not),
    /// or `nil` when it is not one of this buster's or decodes to something unsafe.
    static func decodeBusted(_ tag: String, buster: String) -> String? {
        var unquoted = Substring(tag)
        if unquoted.hasPrefix("W/") { unquoted = unquoted.dropFirst(2) }
        unquoted = unquoted.drop { $0 == "\"" }
        while unquoted.last == "\"" { unquoted = unquoted.dropLast() }
        let prefix = buster + "/"
        guard unquoted.hasPrefix(prefix), let data = ImgproxyURL.base64URLDecode(String(unquoted.dropFirst(prefix.count))),
              let decoded = String(data: data, encoding: .utf8) else { return nil }
        return safeValidator(decoded)
    }

    /// Whether an `If-None-Match` list names `etag` (or is `*`), weakly compared.
    static func matches(_ header: String, _ etag: String) -> Bool {
        let strong = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        return header.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == strong || tag == "W/" + strong
        }
    }
}
