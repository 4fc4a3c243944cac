/// Parsing with presets: the options part is expanded through the server's ``Presets`` (the
/// `default` preset first), then parsed as if the URL had spelled the options out.
extension ImgproxyURL {
    /// Parses `path` as ``init(path:)`` does, after expanding its presets: the `default` preset
    /// before the URL's options, each `preset`/`pr` where it appears; in only-presets mode the
    /// options part is one segment of `:`-separated preset names. ``signedPath`` stays the path
    /// as given: the signature signs what the client sent.
    public init(path: String, presets: Presets, onlyPresets: Bool) throws(ServiceError) {
        guard onlyPresets || !presets.isEmpty, path.hasPrefix("/") else {
            try self.init(path: path)
            return
        }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else {
            try self.init(path: path)
            return
        }
        let signature = String(afterSlash[..<slash])
        var segments = afterSlash[afterSlash.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
        var expansion = Presets.Expansion()
        if presets.table["default"] != nil { try presets.expand(names: ["default"], into: &expansion) }
        if onlyPresets {
            guard segments.count > 1 else { throw .badURL("the URL names no presets and source (/signature/presets/source)") }
            let names = segments.removeFirst().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            try presets.expand(names: names, into: &expansion)
            // Only the presets choose options: what follows them must be the source.
            if let next = segments.first, next != "plain", next.contains(":") {
                throw .badURL("only presets are allowed before the source on this server, found '\(next)'")
            }
        } else {
            // Option segments as the parser finds them: up to `plain` or the first without a colon.
            let count = segments.prefix { $0 != "plain" && $0.contains(":") }.count
            try presets.expand(Array(segments.prefix(count)), into: &expansion)
            segments.removeFirst(count)
        }
        try self.init(path: "/" + signature + "/" + (expansion.segments + segments).joined(separator: "/"))
        signedPath = String(afterSlash[slash...])
    }

    /// Options alone (a `POST /batch` item's) with presets expanded: the `default` preset,
    /// then `text`'s segments (in only-presets mode, `text` is `:`-separated preset names).
    static func options(_ text: String, presets: Presets, onlyPresets: Bool) throws(ServiceError) -> ProcessingOptions {
        if onlyPresets {
            let names = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            return try options(expanding: names.isEmpty || text.isEmpty ? [] : ["pr:" + names.joined(separator: ":")],
                               presets: presets, applyingDefault: true)
        }
        return try options(expanding: text.split(separator: "/").map(String.init), presets: presets, applyingDefault: true)
    }

    /// `segments` expanded through `presets` (after the `default` preset when asked) and parsed.
    static func options(expanding segments: [String], presets: Presets, applyingDefault: Bool) throws(ServiceError) -> ProcessingOptions {
        var expansion = Presets.Expansion()
        if applyingDefault, presets.table["default"] != nil { try presets.expand(names: ["default"], into: &expansion) }
        for segment in segments where !segment.contains(":") {
            throw .badOption("'\(segment)' is not an option (name:arguments)")
        }
        try presets.expand(segments, into: &expansion)
        return try options(expansion.segments.joined(separator: "/"))
    }
}
