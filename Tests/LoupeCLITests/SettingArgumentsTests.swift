import Foundation
@testable import LoupeCLI
import LoupeServer
import Testing

/// `loupe serve`'s command line read from the settings' declarations, and its `--help` made from them.
@Suite struct SettingArgumentsTests {
    @Test func valuesBooleansAndEqualsSigns() throws {
        let flags = try SettingArguments.flags(in: [
            "--port", "0", "--allow-unsigned", "--quality=70", "--negotiate-avif=false", "--presets", "a=w:1", "--port", "81",
            "--batch-token=", "--cache-dir", "--not-a-flag-but-a-value",
        ])
        #expect(flags == ["port": "81", "allow-unsigned": "true", "quality": "70", "negotiate-avif": "false", "presets": "a=w:1",
                          "batch-token": "", "cache-dir": "--not-a-flag-but-a-value"])
    }

    @Test func argumentsThatAreNoSettingNameThemselves() {
        let cases: [([String], String)] = [
            (["--nonsense", "1"], "unknown setting --nonsense"),
            (["--nonsense=1"], "unknown setting --nonsense"),
            (["--port"], "--port needs a value"),
            (["8080"], "'8080' is not a setting: settings are --name value (loupe serve --help lists them)"),
            (["--"], "'--' is not a setting: settings are --name value (loupe serve --help lists them)"),
            (["-p", "1"], "'-p' is not a setting: settings are --name value (loupe serve --help lists them)"),
        ]
        for (arguments, message) in cases {
            #expect(throws: SettingsError(message)) { try SettingArguments.flags(in: arguments) }
        }
    }

    /// `--help` lists every setting from its declaration: the flag, its value's placeholder and
    /// its help with the default, wrapped within 79 columns.
    @Test func helpListsEveryDeclaredSetting() {
        let help = SettingArguments.help
        let lines = help.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 79 }, "\(lines.filter { $0.count > 79 })")
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for setting in ServerSettings.all {
            let label = "--\(setting.flag)" + (setting.valueName.map { " \($0)" } ?? "")
            let text = setting.help.prefix(1).uppercased() + setting.help.dropFirst() + "."
            #expect(flat.contains("\(label) \(text.split(whereSeparator: \.isWhitespace).joined(separator: " "))"), "\(setting.flag)")
        }
        #expect(flat.contains("--port <n> Port to listen on, 0 for any free one (default 8080)."))
        #expect(flat.contains("--allow-private-networks Let sources resolve to private, loopback and link-local addresses (true/false; default false)."))
    }
}
