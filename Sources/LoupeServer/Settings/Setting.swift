extension ServerSettings {
    /// One setting of `loupe serve`, declared once (``ServerSettings/all``): its flag, its
    /// `LOUPE_*` variable, the `IMGPROXY_*` variables read below them, its type, where its value
    /// goes, its default and its help. `loupe serve --help`, the environment readers and the
    /// tables of docs/service.md and docs/imgproxy-environment.md all come from these.
    public struct Setting: Sendable {
        /// The flag without dashes, e.g. `port`.
        public let flag: String
        /// What it sets, with its default: the line of `--help` and the row of docs/service.md.
        public let help: String
        /// The value's placeholder in `--help` (`<n>`); `nil` for a boolean, given as a flag
        /// without a value (or `--flag=false`).
        public let valueName: String?
        /// imgproxy's variables for it, in precedence order (imgproxy's current name before its older one).
        let imgproxy: [ImgproxyVariable]
        /// thumbor's variable for it (`THUMBOR_SECURITY_KEY`), read below the `LOUPE_*` one and
        /// above imgproxy's, its value in the setting's own format.
        public let thumborVariable: String?
        /// The setting's value in `draft` as its text (`nil`: nothing to show).
        let describe: @Sendable (_ draft: SettingsDraft) -> String?
        /// Reads the setting's text (from `origin`) into the draft.
        let apply: @Sendable (_ draft: inout SettingsDraft, _ text: String, _ origin: String) throws(SettingsError) -> Void

        /// `LOUPE_` and the flag in capitals with `_` for `-`.
        public var environmentVariable: String { "LOUPE_" + flag.uppercased().replacingOccurrences(of: "-", with: "_") }

        /// Whether it is a boolean: a flag without a value.
        public var isBoolean: Bool { valueName == nil }

        /// The setting's value in `settings` as its text (`nil`: nothing to show); meaningful for
        /// a setting stored in the settings themselves, not one of a ``SettingsDraft``'s parts.
        func value(in settings: ServerSettings) -> String? {
            var draft = SettingsDraft()
            draft.settings = settings
            return describe(draft)
        }

        /// A setting stored in `keyPath` of the settings. Its help is `summary` and its default:
        /// `unset` when given (what happens without it), else its value in ``ServerSettings/init()``.
        init<Value>(_ flag: String, _ type: SettingType<Value>, _ keyPath: WritableKeyPath<ServerSettings, Value> & Sendable,
                    _ summary: String, unset: String? = nil, imgproxy: [ImgproxyVariable] = [], thumbor: String? = nil) {
            self.init(flag, type, part: \.settings, keyPath, summary, unset: unset, imgproxy: imgproxy, thumbor: thumbor)
        }

        /// A setting stored in `part` of the draft, one of several settings read together
        /// (``SettingsDraft``); its help is `summary` and, when given, `unset`.
        init<Value>(_ flag: String, _ type: SettingType<Value>, part: WritableKeyPath<SettingsDraft, Value> & Sendable,
                    _ summary: String, unset: String? = nil, imgproxy: [ImgproxyVariable] = []) {
            self.init(flag, type, part: part, \.self, summary, unset: unset, imgproxy: imgproxy, thumbor: nil)
        }

        private init<Part, Value>(_ flag: String, _ type: SettingType<Value>, part: WritableKeyPath<SettingsDraft, Part> & Sendable,
                                  _ keyPath: WritableKeyPath<Part, Value> & Sendable, _ summary: String, unset: String?,
                                  imgproxy: [ImgproxyVariable], thumbor: String?) {
            self.flag = flag
            self.thumborVariable = thumbor
            self.valueName = type.valueName
            self.imgproxy = imgproxy
            self.apply = { draft, text, origin throws(SettingsError) in draft[keyPath: part][keyPath: keyPath] = try type.read(text, origin) }
            let describe: @Sendable (SettingsDraft) -> String? = { draft in type.describe(draft[keyPath: part][keyPath: keyPath]) }
            self.describe = describe
            let defaultValue = describe(SettingsDraft())
            self.help = summary + Self.defaultSuffix(boolean: type.valueName == nil, unset: unset, value: defaultValue)
        }

        /// ` (default 80)`, ` (default: memory only)`, ` (true/false; default false)`.
        private static func defaultSuffix(boolean: Bool, unset: String?, value: String?) -> String {
            if boolean { return " (true/false; default \(value ?? "false"))" }
            if let unset { return " (default: \(unset))" }
            return value.map { " (default \($0))" } ?? ""
        }
    }
}
