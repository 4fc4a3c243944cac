import Foundation

/// Where an image answer's `ETag` comes from (`--etag`).
public enum ETagMode: String, Sendable, CaseIterable {
    /// A digest of the result's bytes, `If-None-Match` compared with it here: Loupe's default.
    case digest
    /// The source's own (imgproxy 4's, `IMGPROXY_USE_ETAG`): an http(s) or S3 origin's `ETag`,
    /// a local file's from its version, with `--etag-buster` folded in; `If-None-Match` is sent
    /// on to the origin, whose `304` becomes the answer.
    case origin
    /// No `ETag`, and `If-None-Match` ignored (`IMGPROXY_USE_ETAG=false`).
    case none
}

/// Where an image answer's `Last-Modified` comes from (`--last-modified`).
public enum LastModifiedMode: String, Sendable, CaseIterable {
    /// A local file's modification time; nothing for other sources: Loupe's default.
    case local
    /// The source's own (imgproxy 4's, `IMGPROXY_USE_LAST_MODIFIED`): an origin's
    /// `Last-Modified` passed on (raised to `--last-modified-buster`), `If-Modified-Since` sent
    /// to it, a local file's modification time.
    case origin
    /// No `Last-Modified`, and `If-Modified-Since` ignored (`IMGPROXY_USE_LAST_MODIFIED=false`).
    case none
}

extension SettingType where Value: RawRepresentable & CaseIterable & SendableMetatype, Value.RawValue == String {
    /// One of the mode's names.
    static var mode: SettingType {
        let names = Value.allCases.map(\.rawValue).joined(separator: "|")
        return SettingType(valueName: "<\(names)>", read: { text, origin throws(SettingsError) in
            guard let mode = Value(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw SettingsError("\(origin) '\(text)' is not one of \(names)")
            }
            return mode
        }, describe: { $0.rawValue })
    }
}

extension SettingType where Value == String? {
    /// imgproxy's ETag buster: text that goes inside a quoted `ETag`, so visible ASCII without
    /// `"` or `\`, at most 64 characters; empty leaves it unset.
    static var etagBuster: SettingType {
        SettingType(valueName: "<text>", read: { text, origin throws(SettingsError) in
            guard !text.isEmpty else { return nil }
            guard text.utf8.count <= 64, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }) else {
                throw SettingsError("\(origin) '\(text)' is not up to 64 visible ASCII characters without '\"' or '\\'")
            }
            return text
        }, describe: { $0 })
    }
}

extension SettingType where Value == Date? {
    /// An RFC 3339 time (`2024-05-01T00:00:00Z`), imgproxy's format for
    /// `IMGPROXY_LAST_MODIFIED_BUSTER`; empty leaves it unset.
    static var rfc3339Time: SettingType {
        SettingType(valueName: "<time>", read: { text, origin throws(SettingsError) in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = ISO8601DateFormatter().date(from: trimmed) ?? fractional.date(from: trimmed) else {
                throw SettingsError("\(origin) '\(text)' is not an RFC 3339 time such as 2024-05-01T00:00:00Z")
            }
            return date
        }, describe: { $0.map { ISO8601DateFormatter().string(from: $0) } })
    }
}
