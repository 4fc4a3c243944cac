/// One `IMGPROXY_*` variable, declared with the setting it is read for (or, for a variable
/// that sets nothing, with what Loupe always does): its name, how its value becomes that
/// setting's text in Loupe's units and format, and its row in docs/imgproxy-environment.md.
struct ImgproxyVariable: Sendable {
    /// The variable, e.g. `IMGPROXY_TTL`.
    let name: String
    /// The row's last column in docs/imgproxy-environment.md; `nil` when another setting that
    /// reads the same variable describes it (`IMGPROXY_BIND` sets the host and the port).
    let note: String?
    /// Whether its values are booleans (imgproxy's spellings, ``BooleanSpelling``).
    let isBoolean: Bool
    /// Variables read only together with this one (`IMGPROXY_PRESETS_SEPARATOR`), each with its note.
    let companions: [(name: String, note: String)]
    /// The Loupe setting's text for `value`; sees the whole environment, since some settings
    /// combine variables, and throws a ``SettingsError`` naming the variable for a value that is
    /// not valid.
    let convert: @Sendable (_ value: String, _ environment: [String: String]) throws(SettingsError) -> ImgproxyEnvironment.Outcome

    init(_ name: String, _ note: String?, companions: [(name: String, note: String)] = [], isBoolean: Bool = false,
         convert: @escaping @Sendable (_ value: String, _ environment: [String: String]) throws(SettingsError) -> ImgproxyEnvironment.Outcome) {
        self.name = name
        self.note = note
        self.companions = companions
        self.isBoolean = isBoolean
        self.convert = convert
    }

    /// A variable whose value is the setting's text as it is (same units and format).
    init(_ name: String, _ note: String) {
        self.init(name, note) { value, _ in .value(value) }
    }

    /// A boolean in imgproxy's spellings (``BooleanSpelling``), refused otherwise.
    static func boolean(_ name: String, _ note: String) -> ImgproxyVariable {
        ImgproxyVariable(name, note, isBoolean: true) { value, _ throws(SettingsError) in
            try .value(String(ImgproxyEnvironment.boolean(value, name)))
        }
    }

    /// A whole number where imgproxy's `0` means no limit, which becomes Loupe's `largest`.
    static func unlimitedAtZero(_ name: String, _ note: String, largest: Int) -> ImgproxyVariable {
        ImgproxyVariable(name, note) { value, _ in .value(value.trimmingCharacters(in: .whitespaces) == "0" ? String(largest) : value) }
    }
}
