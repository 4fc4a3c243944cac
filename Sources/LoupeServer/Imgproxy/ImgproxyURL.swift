import Foundation
import LoupeCodecs
import LoupeLoading
import LoupeProcessing

/// One imgproxy URL path, split and parsed: `/%signature/%options/plain/%source@%extension` or
/// `/%signature/%options/%base64url_source.%extension` (the base64 may be split by `/`).
///
/// Pure: no server, no clock but the one passed in. Options are read by their declarations
/// (`ImgproxyOption`); an option Loupe does not support is an error naming it, never ignored.
public struct ImgproxyURL: Sendable, Equatable {
    /// The first segment: a signature, or `insecure` / `_`.
    public var signature: String
    /// The path after the signature, with its leading `/`, as imgproxy restores it from proxies'
    /// normalisation (`redenormalized(_:)`): what the signature signs.
    public var signedPath: String
    /// The parsed options.
    public var options: ProcessingOptions
    /// The source URL, decoded.
    public var source: String

    /// Parses `path` (the request target's path, still percent-encoded, no query) without presets.
    public init(path: String) throws(ServiceError) {
        try self.init(path: path, presets: Presets(), onlyPresets: false)
    }

    /// Parses `path`, expanding its presets through `presets`: the `default` preset before the
    /// URL's options, each `preset`/`pr` where it appears; in only-presets mode the options part
    /// is one segment of preset names separated as arguments are. `parsing` holds the server's
    /// other parser settings (separator, allowed options, source rewriting). ``signedPath`` is
    /// the path after the signature as imgproxy reads and signs it: the client's, with what
    /// proxies change about it undone. `defaults` are the options before all of them
    /// (imgproxy's, or the client's hints over them).
    public init(path: String, presets: Presets, onlyPresets: Bool, parsing: URLParsing = URLParsing(),
                defaults: ProcessingOptions = ProcessingOptions()) throws(ServiceError) {
        guard path.hasPrefix("/") else { throw .badURL("the path must start with /") }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { throw .badURL("the path has no options or source after the signature") }
        signature = String(afterSlash[..<slash])
        guard !signature.isEmpty else { throw .badURL("the signature segment is empty") }
        let restored = Self.redenormalized(String(afterSlash[afterSlash.index(after: slash)...]))
        guard !restored.isEmpty else { throw .badURL("the path has no options or source after the signature") }
        signedPath = "/" + restored

        var segments = restored.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var expansion = try presets.start()
        if onlyPresets {
            guard segments.count > 1 else { throw .badURL("the URL names no presets and source (/signature/presets/source)") }
            let names = segments.removeFirst().split(separator: parsing.argumentsSeparator, omittingEmptySubsequences: false).map(String.init)
            try presets.expand(names: names, into: &expansion)
            // Only the presets choose options: what follows them must be the source.
            if let next = segments.first, next != "plain", next.contains(parsing.argumentsSeparator) {
                throw .badURL("only presets are allowed before the source on this server, found '\(next)'")
            }
        } else {
            // Options come first: every segment with a colon up to `plain` or the base64 source.
            let count = segments.prefix { $0 != "plain" && $0.contains(parsing.argumentsSeparator) }.count
            var parsed: [OptionSegment] = []
            for text in segments.prefix(count) { parsed.append(try parsing.segment(text)) }
            try presets.expand(parsed, into: &expansion)
            segments.removeFirst(count)
        }
        var options = try expansion.options(from: defaults)
        guard !segments.isEmpty, !(segments.count == 1 && segments[0].isEmpty) else { throw .badURL("the URL names no source") }
        var extensionName: String?
        if segments[0] == "plain" {
            let rest = segments.dropFirst().joined(separator: "/")
            var encoded = rest
            if let at = rest.lastIndex(of: "@") {
                encoded = String(rest[..<at])
                extensionName = String(rest[rest.index(after: at)...])
            }
            guard let decoded = PercentDecoding.string(encoded), !decoded.isEmpty else {
                throw .badURL("the plain source is not valid percent-encoding")
            }
            source = parsing.source(decoded)
        } else {
            // A file name after the base64 source is only there for the client's sake.
            if parsing.base64SourceIncludesFilename, segments.count > 1 { segments.removeLast() }
            var encoded = segments.joined()
            if let dot = encoded.lastIndex(of: ".") {
                extensionName = String(encoded[encoded.index(after: dot)...])
                encoded = String(encoded[..<dot])
            }
            guard let decoded = Self.base64URLDecode(encoded), let text = String(data: decoded, encoding: .utf8), !text.isEmpty else {
                throw .badURL("the source is neither plain/ nor valid URL-safe base64")
            }
            source = parsing.source(text)
        }
        if let extensionName {
            guard !extensionName.isEmpty else { throw .badURL("empty extension") }
            let format = try Self.format(named: extensionName)
            if options.format == nil { options.format = format }
        }
        self.options = options
    }

    /// Options alone, as a URL's options segments (`rs:fill:300:300/g:ce`; empty: the
    /// defaults), for callers that name the source apart (a `POST /batch` item), with presets
    /// expanded as a URL's are: the `default` preset, then `text`'s segments (in only-presets
    /// mode, `text` is `:`-separated preset names).
    static func options(_ text: String, presets: Presets = Presets(), onlyPresets: Bool = false,
                        parsing: URLParsing = URLParsing()) throws(ServiceError) -> ProcessingOptions {
        var expansion = try presets.start()
        if onlyPresets {
            let names = text.split(separator: parsing.argumentsSeparator, omittingEmptySubsequences: false).map(String.init)
            if !text.isEmpty { try presets.expand(names: names, into: &expansion) }
        } else {
            var segments: [OptionSegment] = []
            for segment in text.split(separator: "/") {
                guard segment.contains(parsing.argumentsSeparator) else { throw .badOption("'\(segment)' is not an option (name:arguments)") }
                segments.append(try parsing.segment(String(segment)))
            }
            try presets.expand(segments, into: &expansion)
        }
        return try expansion.options()
    }

    /// The output format an extension or `format` names.
    static func format(named text: String) throws(ServiceError) -> ImageFormat {
        switch text.lowercased() {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        case "webp": return .webp
        case "avif": return .avif
        case "gif": return .gif
        case "jxl": return .jxl
        case "heic": return .heif
        case "tiff": return .tiff
        case "bmp": return .bmp
        case "ico": return .ico
        case "svg": return .svg
        default: throw .badOption("output format '\(text)' is not supported (jpg, png, webp, avif, gif, jxl, heic, tiff, bmp, ico, svg)")
        }
    }

    /// imgproxy's image type names: `.some(format)` for the formats Loupe writes with a
    /// quality or reads, `.some(nil)` for names imgproxy knows that no result of Loupe's can
    /// have, `nil` for unknown names.
    static func qualityFormat(named name: String) -> ImageFormat?? {
        switch name {
        case "jpeg", "jpg": return .some(.jpeg)
        case "webp": return .some(.webp)
        case "avif": return .some(.avif)
        case "jxl": return .some(.jxl)
        case "heic": return .some(.heif)
        case "png", "gif", "ico", "svg", "bmp", "tiff": return .some(nil)
        default: return nil
        }
    }

    /// Decodes URL-safe base64 with or without padding.
    static func base64URLDecode(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !standard.contains("=") || standard.hasSuffix("=") else { return nil }
        standard = standard.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        let padding = (4 - standard.count % 4) % 4
        if padding == 3 { return nil }
        return Data(base64Encoded: standard + String(repeating: "=", count: padding))
    }
}
