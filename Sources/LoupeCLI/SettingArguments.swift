import Foundation
import LoupeServer

/// `loupe serve`'s settings on its command line, read as their declarations
/// (``ServerSettings/all``) say: `--name value` or `--name=value`, and a boolean's bare `--name`
/// (true) or `--name=false`; and the SETTINGS section of `--help`, rendered from them.
enum SettingArguments {
    /// The settings in `arguments` by flag name, for ``ServerSettings/init(flags:environment:)``;
    /// a repeated one's last value wins.
    /// - Throws: one line naming an argument that is no setting or a setting without its value.
    static func flags(in arguments: [String]) throws(SettingsError) -> [String: String] {
        let settings = Dictionary(uniqueKeysWithValues: ServerSettings.all.map { ($0.flag, $0) })
        var flags: [String: String] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw SettingsError("'\(argument)' is not a setting: settings are --name value (loupe serve --help lists them)")
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            guard let setting = settings[name] else { throw SettingsError("unknown setting --\(name)") }
            if let equals = body.firstIndex(of: "=") {
                flags[name] = String(body[body.index(after: equals)...])
            } else if setting.isBoolean {
                flags[name] = "true"
            } else {
                guard index < arguments.endIndex else { throw SettingsError("--\(name) needs a value") }
                flags[name] = arguments[index]
                index += 1
            }
        }
        return flags
    }

    /// The SETTINGS section of `loupe serve --help`: each setting's flag and help, laid out as
    /// ArgumentParser lays out options, within `width` columns (one less than ArgumentParser wraps at, so it leaves the lines as they are).
    static var help: String {
        let width = 79, column = 26
        var lines = ["SETTINGS:"]
        for setting in ServerSettings.all {
            let label = "  --\(setting.flag)" + (setting.valueName.map { " \($0)" } ?? "")
            let text = setting.help.prefix(1).uppercased() + setting.help.dropFirst() + "."
            var words = text.split(separator: " ").map(String.init)
            var line = label.count < column - 1 ? label.padding(toLength: column, withPad: " ", startingAt: 0) : label
            if label.count >= column - 1 {
                lines.append(line)
                line = String(repeating: " ", count: column)
            }
            var lineHasWord = false
            while !words.isEmpty {
                let word = words.removeFirst()
                if lineHasWord, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: column) + word
                } else {
                    line += (lineHasWord ? " " : "") + word
                }
                lineHasWord = true
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
