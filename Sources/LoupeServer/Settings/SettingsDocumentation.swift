/// The settings tables of docs/service.md and docs/imgproxy-environment.md, as the declarations
/// (``ServerSettings/all``, ``ImgproxyEnvironment/checks``, ``ImgproxyIgnoredVariables``) give
/// them: a test holds the pages to these rows.
enum SettingsDocumentation {
    /// docs/service.md's rows: flag, `LOUPE_*` variable and help of each setting, in order.
    static var serviceRows: [String] {
        ServerSettings.all.map { "| `--\($0.flag)` | `\($0.environmentVariable)` | \($0.help) |" }
    }

    /// docs/imgproxy-environment.md's "Taken" rows: each variable once, in the order of the
    /// settings that read it (then its companions), then the variables for no setting.
    static var takenImgproxyRows: [String] {
        var order: [String] = [], flags: [String: [String]] = [:], notes: [String: String] = [:]
        func add(_ name: String, flag: String?, note: String?) {
            if flags[name] == nil { order.append(name); flags[name] = [] }
            if let flag, flags[name]?.contains(flag) == false { flags[name]?.append(flag) }
            if let note, notes[name] == nil { notes[name] = note }
        }
        for setting in ServerSettings.all {
            for variable in setting.imgproxy {
                add(variable.name, flag: "`--\(setting.flag)`", note: variable.note)
                for companion in variable.companions { add(companion.name, flag: "with `\(variable.name)`", note: companion.note) }
            }
        }
        for check in ImgproxyEnvironment.checks { add(check.variable.name, flag: check.loupe, note: check.variable.note) }
        return order.map { "| `\($0)` | \(flags[$0, default: []].joined(separator: " and ")) | \(notes[$0] ?? "") |" }
    }

    /// docs/imgproxy-environment.md's "Ignored" rows, sorted by variable.
    static var ignoredImgproxyRows: [String] {
        ImgproxyIgnoredVariables.names.sorted().map { "| `\($0)` | \(ImgproxyIgnoredVariables.reason(for: $0)) |" }
    }
}
