import Foundation
import LoupeProcessing

/// One thumbor URL path, parsed: `/unsafe/` or `/<signature>/`, then thumbor's optional parts in
/// its order — `debug/`, `meta/`, `trim[:top-left|bottom-right][:tolerance]/`, `AxB:CxD/`,
/// `[adaptive-][full-]fit-in/`, `[-]W x [-]H/` (numbers or `orig`), `left|center|right/`,
/// `top|middle|bottom/`, `smart/`, `filters:…)/` — then the image (with or without a scheme,
/// plain or percent-encoded). Each part is taken when the next segment has its shape, as
/// thumbor's URL pattern takes it; whatever follows is the image.
///
/// The result is the same ``ProcessingOptions`` an imgproxy URL gives (thumbor's geometry in
/// its ``ProcessingOptions/thumbor`` field, filters in their imgproxy twins' fields), so both
/// dialects share one pipeline, result cache and admission gate.
struct ThumborURL: Sendable {
    /// The signature segment as sent; `nil` for `unsafe`.
    var signature: String?
    /// What the signature signs: the path after `/<signature>/`, as sent.
    var signedPath: String
    /// `meta/`: answer thumbor's JSON of the operations instead of the image.
    var meta: Bool
    var options: ProcessingOptions
    /// The `filters:` part's calls as spelled, those Loupe ignores included.
    var filters: [ThumborFilterCall] = []
    /// The source URL, decoded, with `http://` in front when it names no scheme.
    var source: String

    /// The fields of ``ProcessingOptions`` only thumbor URLs set, with their part in the result key.
    static let fields: [OptionField] = [OptionField(\.thumbor, key: "thumbor", .geometry(.acts)),
                                        OptionField(\.maxAge, key: "maxage", .headersOnly),
                                        OptionField(\.thumborFilters, key: "tfilters"),
                                        OptionField(\.thumborWatermarks, key: "twm"),
                                        OptionField(\.thumborFrames, key: "tframe")]

    /// The dialect rule: a path is thumbor's when its first segment is `unsafe`, or is made of
    /// URL-safe base64 (padding `=` or `%3D` allowed at its end) and is neither
    /// `imgproxySignatureLength` characters long nor `_` — thumbor's HMAC-SHA1 signature is 28
    /// characters ending in `=`, and a truncated or forged one still reads as thumbor's, to be
    /// refused as a bad signature. imgproxy's first segment is `insecure`, `_` or its unpadded
    /// HMAC-SHA256: 43 characters, fewer with `--signature-size` (at 20 or 21 bytes, 27 or 28
    /// characters, which imgproxy's URLs keep); `nil` when the server serves no imgproxy URL.
    static func isThumborPath(_ path: String, imgproxySignatureLength: Int? = 43) -> Bool {
        guard path.hasPrefix("/") else { return false }
        let first = path.dropFirst().prefix { $0 != "/" }
        if first == "unsafe" { return true }
        guard first != "insecure", first != "_", first.count != imgproxySignatureLength else { return false }
        var body = first
        while body.hasSuffix("=") { body = body.dropLast() }
        while body.hasSuffix("%3D") || body.hasSuffix("%3d") { body = body.dropLast(3) }
        return !body.isEmpty && body.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// Parses `path` (the request's path, still percent-encoded); `extractsFocus` false for the
    /// nested URLs `extract_focal()` reads, which are only read, never followed further (each
    /// level following its own would make the work grow exponentially with the nesting).
    init(path: String, extractsFocus: Bool = true) throws(ServiceError) {
        // Whatever length imgproxy's signatures have on this server: the caller chose the dialect
        // (``ImageService/parse(path:)``), or the path is nested in a thumbor URL.
        guard Self.isThumborPath(path, imgproxySignatureLength: nil) else { throw .badURL("not a thumbor URL (/unsafe/… or /<signature>/…)") }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { throw .badURL("the thumbor URL names no image") }
        let first = String(afterSlash[..<slash])
        signature = first == "unsafe" ? nil : first
        var rest = Substring(afterSlash[afterSlash.index(after: slash)...])
        signedPath = String(rest)

        var geometry = ThumborGeometry()
        _ = Self.take(&rest) { $0 == "debug" }
        meta = Self.take(&rest) { $0 == "meta" } != nil
        if let trim = Self.take(&rest, Self.isTrim) { geometry.trim = Self.trim(trim) }
        if let crop = Self.take(&rest, { Self.box($0) != nil }) { geometry.crop = Self.box(crop) }
        if let fit = Self.take(&rest, { ThumborGeometry.FitIn(rawValue: $0) != nil && $0 != "none" }) {
            geometry.fitIn = ThumborGeometry.FitIn(rawValue: fit) ?? .none
        }
        if let size = Self.take(&rest, { Self.dimensions($0) != nil }), let parsed = Self.dimensions(size) {
            (geometry.width, geometry.flipHorizontal, geometry.height, geometry.flipVertical) = parsed
        }
        if let halign = Self.take(&rest, { ["left", "center", "right"].contains($0) }) {
            geometry.horizontalAlignment = ["left": 0, "center": 0.5, "right": 1][halign] ?? 0.5
        }
        if let valign = Self.take(&rest, { ["top", "middle", "bottom"].contains($0) }) {
            geometry.verticalAlignment = ["top": 0, "middle": 0.5, "bottom": 1][valign] ?? 0.5
        }
        geometry.smart = Self.take(&rest) { $0 == "smart" } != nil
        var options = ProcessingOptions()
        options.thumbor = geometry
        // `filters:` ends at the first `)/`, as thumbor's lazy pattern ends it.
        if rest.hasPrefix("filters:"), let end = rest.range(of: ")/") {
            let text = rest[rest.index(rest.startIndex, offsetBy: "filters:".count)..<end.lowerBound] + ")"
            rest = rest[end.upperBound...]
            filters = ThumborFilterCall.parse(String(text))
            // thumbor leaves out a filter it does not know, and one whose arguments its pattern
            // does not read (`focal()`, `blur(0)`, `quality(abc)`): the image is served without it.
            for call in filters {
                guard let filter = ThumborFilter.byName[call.name], filter.arguments.contains(call.values.count) else { continue }
                var applied = options
                guard (try? filter.apply(call, &applied)) != nil else { continue }
                options = applied
            }
        }
        guard !rest.isEmpty else { throw .badURL("the thumbor URL names no image") }
        guard let decoded = String(rest).removingPercentEncoding, !decoded.isEmpty else {
            throw .badURL("the image is not valid percent-encoding")
        }
        source = Self.withScheme(decoded)
        if extractsFocus, filters.contains(where: { $0.name == "extract_focal" }), let extracted = Self.extractedFocus(from: decoded) {
            source = extracted.source
            options.thumbor?.focalPoints.append(extracted.point)
        }
        self.options = options
    }

    /// An image URL as thumbor's HTTP loader takes it: one without a scheme is http.
    static func withScheme(_ url: String) -> String {
        url.range(of: "^[A-Za-z][A-Za-z0-9+.-]*://", options: .regularExpression) != nil ? url : "http://" + url
    }

    /// Removes and returns the next segment when it is followed by `/` and `matches`.
    private static func take(_ rest: inout Substring, _ matches: (String) -> Bool) -> String? {
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let segment = String(rest[..<slash])
        guard matches(segment) else { return nil }
        rest = rest[rest.index(after: slash)...]
        return segment
    }

    /// Digits, at most seven of them (far beyond any image, far from overflowing).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 7, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else { return nil }
        return Int(text)
    }

    private static func isTrim(_ segment: String) -> Bool {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.first == "trim", parts.count <= 3 else { return false }
        var index = 1
        if index < parts.count, parts[index] == "top-left" || parts[index] == "bottom-right" { index += 1 }
        if index < parts.count, number(parts[index]) != nil { index += 1 }
        return index == parts.count
    }

    private static func trim(_ segment: String) -> ThumborGeometry.Trim {
        let parts = segment.split(separator: ":").dropFirst()
        return ThumborGeometry.Trim(bottomRight: parts.contains("bottom-right"), tolerance: parts.compactMap { number($0) }.first ?? 0)
    }

    /// `AxB:CxD`.
    static func box(_ segment: String) -> ThumborGeometry.Box? {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard corners.count == 2 else { return nil }
        let first = corners[0].split(separator: "x", omittingEmptySubsequences: false)
        let second = corners[1].split(separator: "x", omittingEmptySubsequences: false)
        guard first.count == 2, second.count == 2, let left = number(first[0]), let top = number(first[1]),
              let right = number(second[0]), let bottom = number(second[1]) else { return nil }
        return ThumborGeometry.Box(left: left, top: top, right: right, bottom: bottom)
    }

    /// `[-][W|orig]x[-][H|orig]`, each side and its sign optional.
    static func dimensions(_ segment: String) -> (ThumborGeometry.Side, Bool, ThumborGeometry.Side, Bool)? {
        let sides = segment.split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2 else { return nil }
        func side(_ text: Substring) -> (ThumborGeometry.Side, Bool)? {
            let flip = text.hasPrefix("-")
            let value = flip ? text.dropFirst() : text
            if value.isEmpty { return (.pixels(0), flip) }
            if value == "orig" { return (.original, flip) }
            return number(value).map { (.pixels($0), flip) }
        }
        guard let width = side(sides[0]), let height = side(sides[1]) else { return nil }
        return (width.0, width.1, height.0, height.1)
    }
}
