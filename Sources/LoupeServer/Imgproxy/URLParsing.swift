/// What a server's settings change in how it reads imgproxy URLs, beyond presets: imgproxy's
/// parser settings, each with imgproxy's meaning.
public struct URLParsing: Sendable, Equatable {
    /// Between an option's name and its arguments (`IMGPROXY_ARGUMENTS_SEPARATOR`, `:`).
    public var argumentsSeparator: Character = ":"
    /// Put in front of every source that does not start with it (`IMGPROXY_BASE_URL`).
    public var baseURL = ""
    /// Applied in turn to every source before ``baseURL`` (`IMGPROXY_URL_REPLACEMENTS`).
    public var sourceReplacements: [SourceReplacement] = []
    /// A base64 source may be followed by `/filename`, which is dropped
    /// (`IMGPROXY_BASE64_URL_INCLUDES_FILENAME`).
    public var base64SourceIncludesFilename = false
    /// The option names (as a URL spells them: `w` and `width` are two names) a URL may use;
    /// empty: any (`IMGPROXY_ALLOWED_PROCESSING_OPTIONS`). Presets' own options are not checked.
    public var allowedOptions: [String] = []
    /// Whether a URL may use imgproxy's security options (`IMGPROXY_ALLOW_SECURITY_OPTIONS`).
    /// Loupe's only lower the server's limits, so it takes them by default; off, they are
    /// refused as imgproxy refuses them.
    public var allowsSecurityOptions = true

    /// imgproxy's defaults.
    public init() {}

    /// The source a URL names, as the server loads it: replaced, then prefixed.
    func source(_ named: String) -> String {
        var source = named
        for replacement in sourceReplacements { source = replacement.apply(to: source) }
        return baseURL.isEmpty || source.hasPrefix(baseURL) ? source : baseURL + source
    }

    /// A URL's option segment, split at the separator; an option this server does not allow
    /// is refused by the name the URL gave it.
    func segment(_ text: String) throws(ServiceError) -> OptionSegment {
        let segment = try OptionSegment(text, separator: argumentsSeparator)
        if !allowedOptions.isEmpty, !allowedOptions.contains(segment.arguments.name) { throw .forbiddenOption(segment.arguments.name) }
        if !allowsSecurityOptions, ImgproxyOption.byName[segment.arguments.name]?.isSecurity == true {
            throw ServiceError(403, "forbiddenOption", "security processing options such as '\(segment.arguments.name)' are not allowed on this server")
        }
        return segment
    }
}
