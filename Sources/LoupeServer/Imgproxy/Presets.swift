import Foundation

/// Named sets of options (imgproxy's presets): `--presets thumb=rs:fill:300:300/q:70,...` or a
/// presets file, used in URLs as `preset:thumb` / `pr:thumb:sharp`, as the whole options part in
/// only-presets mode, and (the one named `default`) before every URL's options.
///
/// A preset is expanded where it appears, into its options (and the presets it names, in
/// turn), so later options override it and it overrides earlier ones, as imgproxy applies
/// them. The result key is made from the options after expansion: two URLs that expand to the
/// same options share one result. A preset met again inside its own expansion is skipped (as
/// imgproxy does), and an expansion is bounded in size, so no table can make a URL loop or
/// grow without end.
public struct Presets: Sendable, Equatable {
    /// Each preset's option segments (`rs:fill:300:300`, `pr:other`) as defined, by name.
    public private(set) var table: [String: [String]] = [:]
    /// The same segments parsed: what an expansion hands on.
    private var parsed: [String: [OptionSegment]] = [:]

    /// The most option segments and preset references one URL may expand to: a table whose
    /// presets name each other several times over grows exponentially, and is refused.
    static let maximumExpansion = 1_024

    /// The largest presets file read, in bytes.
    static let maximumFileBytes = 1 << 20

    /// No presets.
    public init() {}

    /// Whether two sets of presets define the same presets.
    public static func == (lhs: Presets, rhs: Presets) -> Bool { lhs.table == rhs.table }

    /// Presets from imgproxy's definitions, `name=option/option`: surrounding spaces are
    /// trimmed, empty lines and lines starting with `#` are skipped (the presets file's
    /// comments). Each preset is then checked by expanding and applying it.
    /// Options' arguments are separated by `separator` (imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`).
    /// - Throws: the first definition that is malformed, names an unknown preset or holds an
    ///   option the parser refuses, naming it.
    public init(definitions: [String], separator: Character = ":") throws(SettingsError) {
        for line in definitions {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let parts = text.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw SettingsError("preset '\(text)' is not name=options") }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw SettingsError("preset '\(text)' has an empty name") }
            guard !value.isEmpty else { throw SettingsError("preset '\(name)' has no options") }
            let segments = value.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if let bad = segments.first(where: { !$0.contains(separator) }) {
                throw SettingsError("preset '\(name)': '\(bad)' is not an option (name:arguments)")
            }
            table[name] = segments
            do {
                parsed[name] = try segments.map { text throws(ServiceError) in try OptionSegment(text, separator: separator) }
            } catch {
                throw SettingsError("preset '\(name)': \(error.message)")
            }
        }
        for name in table.keys.sorted() {
            do {
                var expansion = Expansion()
                try expand(names: [name], into: &expansion)
                _ = try expansion.options()
            } catch {
                throw SettingsError("preset '\(name)': \(error.message)")
            }
        }
    }

    /// Whether there is no preset.
    public var isEmpty: Bool { table.isEmpty }

    /// What an expansion has produced so far: the parsed option segments, and the steps taken
    /// (a segment or a preset reference each), which bound it.
    struct Expansion {
        var segments: [OptionSegment] = []
        var steps = 0

        mutating func step() throws(ServiceError) {
            steps += 1
            guard steps <= Presets.maximumExpansion else { throw Presets.tooLarge }
        }

        /// The options the segments ask for, applied in order onto `defaults` (imgproxy's,
        /// unless the client's hints changed them).
        func options(from defaults: ProcessingOptions = ProcessingOptions()) throws(ServiceError) -> ProcessingOptions {
            var options = defaults
            for segment in segments { try segment.apply(to: &options) }
            return options
        }
    }

    /// The expansion a URL's options start from: the `default` preset's, when there is one.
    func start() throws(ServiceError) -> Expansion {
        var expansion = Expansion()
        if parsed["default"] != nil { try expand(names: ["default"], into: &expansion) }
        return expansion
    }

    /// `segments` with every `preset`/`pr` segment replaced by the presets' segments (the
    /// presets' own references replaced in turn), appended to `expansion`.
    func expand(_ segments: [OptionSegment], into expansion: inout Expansion, chain: [String] = []) throws(ServiceError) {
        for segment in segments {
            try expansion.step()
            guard let names = segment.presetNames else {
                expansion.segments.append(segment)
                continue
            }
            try expand(names: names, into: &expansion, chain: chain)
        }
    }

    /// The segments of the presets `names`, in order, appended to `expansion`.
    func expand(names: [String], into expansion: inout Expansion, chain: [String] = []) throws(ServiceError) {
        for name in names {
            try expansion.step()
            guard let segments = parsed[name] else { throw ServiceError.badOption("unknown preset '\(name)'") }
            // A preset inside its own expansion adds nothing new: skipped, as imgproxy does.
            if chain.contains(name) { continue }
            try expand(segments, into: &expansion, chain: chain + [name])
        }
    }

    static let tooLarge = ServiceError.badOption("the presets expand to more than \(maximumExpansion) options")
}
