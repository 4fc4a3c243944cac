import Foundation

/// imgproxy's environment variables (`IMGPROXY_*`), read so that an imgproxy deployment's
/// environment starts `loupe serve` unchanged: each one Loupe can honour becomes the value of a
/// Loupe setting, in that setting's own format (units and formats converted here, in one table),
/// below the setting's flag and its `LOUPE_*` variable; each one it cannot is named at start-up
/// with the reason (``ignored(in:)``). docs/imgproxy-environment.md lists them all.
public enum ImgproxyEnvironment {
    /// What one variable's value means to Loupe.
    enum Outcome: Equatable {
        /// The Loupe setting's value, in its own format.
        case value(String)
        /// The value asks for what Loupe does anyway: taken, nothing to set.
        case matches
        /// The value asks for behaviour Loupe lacks: reported as ignored, for this reason.
        case ignored(String)
    }

    /// One rule: variable `name` read for Loupe setting `flag` (`nil`: for no setting, only
    /// checked against what Loupe does), through `convert`, which sees the whole environment
    /// (some settings combine variables) and throws a ``SettingsError`` naming the variable for a
    /// value that is not valid.
    struct Rule: Sendable {
        let name: String
        let flag: String?
        let convert: @Sendable (_ value: String, _ environment: [String: String]) throws(SettingsError) -> Outcome
    }

    /// The variables Loupe takes (or checks), in precedence order: where two set one setting,
    /// the first present wins (imgproxy's current name before its older one).
    static let rules: [Rule] = [
        Rule(name: "IMGPROXY_KEY", flag: "key") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_SALT", flag: "salt") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_BIND", flag: "host") { value, _ throws(SettingsError) in try .value(bind(value).host) },
        Rule(name: "IMGPROXY_BIND", flag: "port") { value, _ throws(SettingsError) in try .value(bind(value).port) },
        Rule(name: "IMGPROXY_NETWORK", flag: nil) { value, _ throws(SettingsError) in
            guard ["tcp", "tcp4", "tcp6"].contains(value.lowercased()) else {
                throw SettingsError("IMGPROXY_NETWORK '\(value)' is not supported: loupe serve listens on TCP only")
            }
            return .matches
        },
        Rule(name: "IMGPROXY_ALLOWED_SOURCES", flag: "allowed-sources") { value, _ throws(SettingsError) in
            try .value(allowedSources(value))
        },
        Rule(name: "IMGPROXY_LOCAL_FILESYSTEM_ROOT", flag: "local-root") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_MAX_SRC_RESOLUTION", flag: "max-source-pixels") { value, _ throws(SettingsError) in
            // Megapixels, fractional, in both.
            guard let megapixels = Double(value.trimmingCharacters(in: .whitespaces)), megapixels > 0, megapixels.isFinite else {
                throw SettingsError("IMGPROXY_MAX_SRC_RESOLUTION '\(value)' is not a positive number of megapixels")
            }
            return .value(value.trimmingCharacters(in: .whitespaces))
        },
        Rule(name: "IMGPROXY_MAX_SRC_FILE_SIZE", flag: "max-source-size") { value, _ throws(SettingsError) in
            // Bytes, 0 for no limit, into Loupe's megabytes (fractional); no limit is Loupe's largest.
            guard let bytes = Int(value.trimmingCharacters(in: .whitespaces)), bytes >= 0 else {
                throw SettingsError("IMGPROXY_MAX_SRC_FILE_SIZE '\(value)' is not a whole number of bytes (0 for no limit)")
            }
            guard bytes > 0 else { return .value(String(ServerSettings.largestSourceMegabytes)) }
            guard bytes <= ServerSettings.largestSourceMegabytes << 20 else {
                throw SettingsError("IMGPROXY_MAX_SRC_FILE_SIZE '\(value)' is over Loupe's largest source, \(ServerSettings.largestSourceMegabytes << 20) bytes")
            }
            return .value(String(Double(bytes) / Double(1 << 20)))
        },
        Rule(name: "IMGPROXY_MAX_RESULT_DIMENSION", flag: "max-result-dimension") { value, _ in
            // 0 is imgproxy's "no limit": Loupe's largest.
            .value(value.trimmingCharacters(in: .whitespaces) == "0" ? String(ServerSettings.largestResultDimension) : value)
        },
        Rule(name: "IMGPROXY_WORKERS", flag: "workers") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_CONCURRENCY", flag: "workers") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_REQUESTS_QUEUE_SIZE", flag: "queue") { value, _ in
            // 0 is imgproxy's "no limit": Loupe's largest queue.
            .value(value.trimmingCharacters(in: .whitespaces) == "0" ? String(ServerSettings.largestQueue) : value)
        },
        Rule(name: "IMGPROXY_DOWNLOAD_TIMEOUT", flag: "download-timeout") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_TIMEOUT", flag: "request-timeout") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_WRITE_TIMEOUT", flag: "request-timeout") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_TTL", flag: "ttl") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_QUALITY", flag: "quality") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_AUTO_AVIF", flag: "negotiate-avif") { value, _ throws(SettingsError) in
            try .value(String(boolean(value, "IMGPROXY_AUTO_AVIF")))
        },
        Rule(name: "IMGPROXY_ENABLE_AVIF_DETECTION", flag: "negotiate-avif") { value, _ throws(SettingsError) in
            try .value(String(boolean(value, "IMGPROXY_ENABLE_AVIF_DETECTION")))
        },
        Rule(name: "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", flag: "allow-private-networks") { value, environment throws(SettingsError) in
            try privateNetworks("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", value, environment)
        },
        Rule(name: "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", flag: "allow-private-networks") { value, environment throws(SettingsError) in
            try privateNetworks("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", value, environment)
        },
        Rule(name: "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", flag: "allow-private-networks") { value, environment throws(SettingsError) in
            try privateNetworks("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", value, environment)
        },
        // What Loupe always does: taken when the value asks for it, reported otherwise.
        fixed("IMGPROXY_AUTO_WEBP", expecting: true, "Loupe always answers WebP when Accept lists image/webp and the URL names no format"),
        fixed("IMGPROXY_ENABLE_WEBP_DETECTION", expecting: true, "Loupe always answers WebP when Accept lists image/webp and the URL names no format"),
        fixed("IMGPROXY_ENFORCE_WEBP", expecting: false, "Loupe never overrides a format the URL names"),
        fixed("IMGPROXY_ENFORCE_AVIF", expecting: false, "Loupe never overrides a format the URL names"),
        fixed("IMGPROXY_ENFORCE_JXL", expecting: false, "Loupe never overrides a format the URL names"),
        fixed("IMGPROXY_AUTO_JXL", expecting: false, "Loupe does not encode JPEG XL"),
        fixed("IMGPROXY_USE_ETAG", expecting: true, "Loupe always sends an ETag (a digest of the result) and answers If-None-Match"),
        fixed("IMGPROXY_STRIP_METADATA", expecting: true, "Loupe always strips metadata from results"),
        fixed("IMGPROXY_AUTO_ROTATE", expecting: true, "Loupe always applies the EXIF orientation"),
        Rule(name: "IMGPROXY_SIGNATURE_SIZE", flag: nil) { value, _ in
            value.trimmingCharacters(in: .whitespaces) == "32"
                ? .matches : .ignored("Loupe checks full 32-byte signatures only; truncated signatures are refused")
        },

        // Settings other sessions are adding: each is taken once its Loupe setting exists
        // (is in ``ServerSettings/all``), and reported as ignored until then. The value is passed
        // in imgproxy's format, which those settings are to accept.
        Rule(name: "IMGPROXY_PRESETS", flag: "presets") { value, environment in
            // imgproxy lets the list separator be changed; Loupe's list is comma-separated.
            let separator = environment["IMGPROXY_PRESETS_SEPARATOR"].flatMap { $0.isEmpty ? nil : $0 } ?? ","
            return .value(value.components(separatedBy: separator).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ","))
        },
        Rule(name: "IMGPROXY_PRESETS_PATH", flag: "presets-file") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_ONLY_PRESETS", flag: "only-presets") { value, _ throws(SettingsError) in
            try .value(String(boolean(value, "IMGPROXY_ONLY_PRESETS")))
        },
        Rule(name: "IMGPROXY_FORMAT_QUALITY", flag: "format-quality") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_MAX_ANIMATION_FRAMES", flag: "max-animation-frames") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_WATERMARK_PATH", flag: "watermark-path") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_WATERMARK_URL", flag: "watermark-url") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_WATERMARK_DATA", flag: "watermark-data") { value, _ in .value(value) },
        Rule(name: "IMGPROXY_WATERMARK_OPACITY", flag: "watermark-opacity") { value, _ in .value(value) },
    ]

    /// Every imgproxy variable Loupe knows of, taken or not, sorted: what
    /// docs/imgproxy-environment.md maps.
    public static var knownVariables: [String] {
        Set(rules.map(\.name) + companions.keys + ImgproxyIgnoredVariables.names).sorted()
    }

    /// Variables read only together with another one's rule.
    static let companions: [String: String] = ["IMGPROXY_PRESETS_SEPARATOR": "IMGPROXY_PRESETS"]

    /// The settings' values the environment's `IMGPROXY_*` variables give, by flag, each with
    /// the variable it came from (for error messages); settings in `given` (set by a flag or a
    /// `LOUPE_*` variable, which win) are skipped, their imgproxy variables not even checked.
    /// - Throws: the first invalid value, naming its variable.
    static func values(in environment: [String: String], besides given: Set<String> = []) throws(SettingsError)
        -> [String: (value: String, origin: String)] {
        let known = Set(ServerSettings.all.map(\.flag))
        var values: [String: (value: String, origin: String)] = [:]
        for rule in rules {
            if rule.flag == nil, let raw = environment[rule.name], !raw.trimmingCharacters(in: .whitespaces).isEmpty {
                _ = try rule.convert(raw, environment)  // a check only (IMGPROXY_NETWORK=unix, a bad boolean)
            }
            guard let flag = rule.flag, known.contains(flag), !given.contains(flag), values[flag] == nil,
                  let raw = environment[rule.name], !raw.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            if case .value(let value) = try rule.convert(raw, environment) {
                values[flag] = (value, rule.name)
            }
        }
        return values
    }

    /// Each `IMGPROXY_*` variable in `environment` that Loupe does not take, with the reason,
    /// sorted by name: what `loupe serve` names in its log at start-up. An empty variable is
    /// not set (as imgproxy reads it).
    public static func ignored(in environment: [String: String]) -> [(name: String, reason: String)] {
        let known = Set(ServerSettings.all.map(\.flag))
        var result: [(name: String, reason: String)] = []
        for (name, value) in environment where name.hasPrefix("IMGPROXY_") && !value.trimmingCharacters(in: .whitespaces).isEmpty {
            if let reason = reasonIgnored(name, value: value, environment: environment, known: known) {
                result.append((name, reason))
            }
        }
        return result.sorted { $0.name < $1.name }
    }

    private static func reasonIgnored(_ name: String, value: String, environment: [String: String], known: Set<String>) -> String? {
        if let companion = companions[name] {
            guard let companionValue = environment[companion], !companionValue.trimmingCharacters(in: .whitespaces).isEmpty else {
                return "read only with \(companion), which is not set"
            }
            return reasonIgnored(companion, value: companionValue, environment: environment, known: known)
        }
        let matching = rules.filter { $0.name == name }
        guard !matching.isEmpty else { return ImgproxyIgnoredVariables.reason(for: name) }
        for rule in matching {
            if let flag = rule.flag, !known.contains(flag) { return "Loupe has no '\(flag)' setting yet" }
            // An invalid value stops start-up before this is asked; here it only matters
            // whether the value asks for something Loupe lacks.
            if case .ignored(let reason)? = try? rule.convert(value, environment) { return reason }
        }
        return nil
    }

    // MARK: - Conversions

    /// A rule for behaviour Loupe always has: the value `expecting` is taken, the other ignored.
    private static func fixed(_ name: String, expecting: Bool, _ reason: String) -> Rule {
        Rule(name: name, flag: nil) { value, _ throws(SettingsError) in
            try boolean(value, name) == expecting ? .matches : .ignored(reason)
        }
    }

    /// imgproxy's booleans (`BooleanSpelling`).
    static func boolean(_ value: String, _ name: String) throws(SettingsError) -> Bool {
        guard let result = BooleanSpelling.value(of: value) else {
            throw SettingsError("\(name) '\(value)' is not a boolean (\(BooleanSpelling.accepted))")
        }
        return result
    }

    /// `host:port`, `:port` (every interface) or `[v6]:port`.
    static func bind(_ value: String) throws(SettingsError) -> (host: String, port: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw SettingsError("IMGPROXY_BIND '\(value)' is not host:port or :port")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.contains("/") else { throw SettingsError("IMGPROXY_BIND '\(value)' is not host:port or :port") }
        // Go's ":port" listens on every interface.
        return (host.isEmpty ? "0.0.0.0" : host, String(port))
    }

    /// imgproxy's allowed-source patterns as Loupe's prefixes; `*` (imgproxy's wildcard) has no
    /// equivalent and is refused rather than widened or narrowed silently.
    static func allowedSources(_ value: String) throws(SettingsError) -> String {
        let patterns = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let wildcard = patterns.first(where: { $0.contains("*") }) {
            throw SettingsError("IMGPROXY_ALLOWED_SOURCES '\(wildcard)' has a wildcard (*), which Loupe does not support: list the prefixes")
        }
        return patterns.joined(separator: ",")
    }

    /// Loupe's private-network guard opens private, loopback and link-local addresses together:
    /// it is opened only when imgproxy's three switches all are (private's default is on), and a
    /// variable that opens one alone is reported, since Loupe keeps that kind closed.
    private static func privateNetworks(_ name: String, _ value: String, _ environment: [String: String]) throws(SettingsError) -> Outcome {
        let names = ["IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES",
                     "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES"]
        var all = true
        for other in names {
            let text = environment[other].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            let allowed = try text.map { text throws(SettingsError) in try boolean(text, other) } ?? (other == names[0])
            all = all && allowed
        }
        if !all, try boolean(value, name) {
            return .ignored("Loupe's guard opens private, loopback and link-local addresses together (all three set to true), or single addresses with LOUPE_PERMIT_ADDRESSES")
        }
        return .value(String(all))
    }
}
