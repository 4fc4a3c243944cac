import Foundation

/// imgproxy's environment variables (`IMGPROXY_*`), read so that an imgproxy deployment's
/// environment starts `loupe serve` unchanged: each one Loupe can honour becomes the value of a
/// Loupe setting, in that setting's own format (each variable declared with its setting in
/// ``ServerSettings/all``, units and formats converted there), below the setting's flag and its
/// `LOUPE_*` variable; each one it cannot is named at start-up with the reason
/// (``ignored(in:)``). docs/imgproxy-environment.md lists them all, held to the declarations by a test.
public enum ImgproxyEnvironment {
    /// What one variable's value means to Loupe.
    enum Outcome: Equatable, Sendable {
        /// The Loupe setting's value, in its own format.
        case value(String)
        /// The value asks for what Loupe does anyway: taken, nothing to set.
        case matches
        /// The value asks for behaviour Loupe lacks: reported as ignored, for this reason.
        case ignored(String)
    }

    /// A variable that sets no Loupe setting, only checked against what Loupe does: taken
    /// when its value asks for that, reported as ignored otherwise.
    struct Check: Sendable {
        let variable: ImgproxyVariable
        /// What Loupe does, for the setting column of docs/imgproxy-environment.md.
        let loupe: String
    }

    /// The variables for no setting. (The variables read for a setting are declared with it,
    /// in ``ServerSettings/all``.)
    static let checks: [Check] = [
        Check(variable: ImgproxyVariable("IMGPROXY_NETWORK", "`tcp`, `tcp4`, `tcp6` taken (Loupe listens on TCP); `unix` stops start-up with an error naming it") { value, _ throws(SettingsError) in
            guard ["tcp", "tcp4", "tcp6"].contains(value.lowercased()) else {
                throw SettingsError("IMGPROXY_NETWORK '\(value)' is not supported: loupe serve listens on TCP only")
            }
            return .matches
        }, loupe: "—"),
    ] + fixedBehaviour.map { name, expecting, reason in
        // The older names say so and nothing more in the docs; the current name carries the reason.
        let current = fixedBehaviour.first { $0.reason == reason }?.name ?? name
        let note = current == name
            ? "`\(expecting)` taken; `\(!expecting)` ignored: \(reason)" : "as `\(current)`"
        return Check(variable: ImgproxyVariable(name, note, isBoolean: true) { value, _ throws(SettingsError) in
            try boolean(value, name) == expecting ? .matches : .ignored(reason)
        }, loupe: expecting ? "— (always on)" : "— (always off)")
    }

    /// Switches of behaviour Loupe always has: the value `expecting` is taken, the other is
    /// reported as ignored for `reason`.
    private static let fixedBehaviour: [(name: String, expecting: Bool, reason: String)] = [
        ("IMGPROXY_STRIP_METADATA", true, "Loupe always strips metadata from results"),
    ]

    /// Every imgproxy variable Loupe knows of, taken or not, sorted: what
    /// docs/imgproxy-environment.md maps.
    public static var knownVariables: [String] {
        let variables = ServerSettings.all.flatMap(\.imgproxy) + checks.map(\.variable)
        return Set(variables.map(\.name) + variables.flatMap { $0.companions.map(\.name) } + ImgproxyIgnoredVariables.names).sorted()
    }

    /// The settings' values the environment's `IMGPROXY_*` variables give, by flag, each with
    /// the variable it came from (for error messages); settings in `given` (set by a flag or a
    /// `LOUPE_*` variable, which win) are skipped, their imgproxy variables not even checked.
    /// - Throws: the first invalid value, naming its variable.
    static func values(in environment: [String: String], besides given: Set<String> = []) throws(SettingsError)
        -> [String: (value: String, origin: String)] {
        for check in checks {
            // A check only: IMGPROXY_NETWORK=unix, a bad boolean.
            if let raw = set(check.variable.name, in: environment) { _ = try check.variable.convert(raw, environment) }
        }
        var values: [String: (value: String, origin: String)] = [:]
        for setting in ServerSettings.all where !given.contains(setting.flag) {
            for variable in setting.imgproxy where values[setting.flag] == nil {
                guard let raw = set(variable.name, in: environment) else { continue }
                if case .value(let value) = try variable.convert(raw, environment) {
                    values[setting.flag] = (value, variable.name)
                }
            }
        }
        return values
    }

    /// The value of `name` in `environment`, unless it is absent or blank (imgproxy's unset).
    private static func set(_ name: String, in environment: [String: String]) -> String? {
        guard let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return value
    }

    /// Each `IMGPROXY_*` variable in `environment` that Loupe does not take, with the reason,
    /// sorted by name: what `loupe serve` names in its log at start-up. An empty variable is
    /// not set (as imgproxy reads it).
    public static func ignored(in environment: [String: String]) -> [(name: String, reason: String)] {
        var result: [(name: String, reason: String)] = []
        for (name, value) in environment where name.hasPrefix("IMGPROXY_") && !value.trimmingCharacters(in: .whitespaces).isEmpty {
            if let reason = reasonIgnored(name, value: value, environment: environment) {
                result.append((name, reason))
            }
        }
        return result.sorted { $0.name < $1.name }
    }

    private static func reasonIgnored(_ name: String, value: String, environment: [String: String]) -> String? {
        let variables = ServerSettings.all.flatMap(\.imgproxy) + checks.map(\.variable)
        if let main = variables.first(where: { $0.companions.contains { $0.name == name } }) {
            guard let mainValue = set(main.name, in: environment) else { return "read only with \(main.name), which is not set" }
            return reasonIgnored(main.name, value: mainValue, environment: environment)
        }
        let matching = variables.filter { $0.name == name }
        guard !matching.isEmpty else { return ImgproxyIgnoredVariables.reason(for: name) }
        for variable in matching {
            // An invalid value stops start-up before this is asked; here it only matters
            // whether the value asks for something Loupe lacks.
            if case .ignored(let reason)? = try? variable.convert(value, environment) { return reason }
        }
        return nil
    }

    // MARK: - Conversions

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

    /// imgproxy's allowed-source patterns as Loupe's prefixes: the same list, each pattern
    /// trimmed as imgproxy trims it; its `*` wildcards are Loupe's (`SourcePattern`).
    static func allowedSources(_ value: String) throws(SettingsError) -> String {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: ",")
    }

    /// `IMGPROXY_MAX_SRC_FILE_SIZE`'s bytes (0 for no limit) as Loupe's fractional megabytes;
    /// no limit is Loupe's largest.
    static func megabytes(ofBytes value: String, _ name: String) throws(SettingsError) -> Outcome {
        guard let bytes = Int(value.trimmingCharacters(in: .whitespaces)), bytes >= 0 else {
            throw SettingsError("\(name) '\(value)' is not a whole number of bytes (0 for no limit)")
        }
        let largest = ServerSettings.largestSourceMegabytes
        guard bytes > 0 else { return .value(String(largest)) }
        guard bytes <= largest << 20 else { throw SettingsError("\(name) '\(value)' is over Loupe's largest source, \(largest << 20) bytes") }
        return .value(String(Double(bytes) / Double(1 << 20)))
    }

    /// imgproxy's three switches of private source addresses, read for `allow-private-networks`.
    static let privateNetworkVariables: [ImgproxyVariable] = [
        ImgproxyVariable("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", "Loupe's guard opens private, loopback and link-local addresses together: it is opened only when all three imgproxy switches are true (private's default is true, as in imgproxy). A switch set to true alone is reported as ignored, and that kind stays closed (use `LOUPE_PERMIT_ADDRESSES` for single addresses)", isBoolean: true) { value, environment throws(SettingsError) in
            try privateNetworks("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", value, environment)
        },
        ImgproxyVariable("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "see `IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES`", isBoolean: true) { value, environment throws(SettingsError) in
            try privateNetworks("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", value, environment)
        },
        ImgproxyVariable("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", "see `IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES`", isBoolean: true) { value, environment throws(SettingsError) in
            try privateNetworks("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", value, environment)
        },
    ]

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
