import Foundation
@testable import LoupeServer
import Testing

/// Settings from flags and `LOUPE_*` variables.
@Suite struct ServerSettingsTests {
    @Test func defaults() throws {
        let settings = try ServerSettings(flags: [:], environment: [:])
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 8080)
        #expect(settings.keys.isEmpty && !settings.allowsUnsigned)
        #expect(settings.workers == ProcessInfo.processInfo.activeProcessorCount)
        #expect(!settings.addressPolicy.allowsPrivateNetworks)
    }

    @Test func flagWinsOverEnvironment() throws {
        let settings = try ServerSettings(
            flags: ["port": "9000", "allowed-sources": "https://a.com/"],
            environment: ["LOUPE_PORT": "nonsense", "LOUPE_WORKERS": "3", "LOUPE_KEY": "0a0b,ff", "LOUPE_SALT": "01,02",
                          "LOUPE_REQUEST_TIMEOUT": "7", "LOUPE_ALLOW_PRIVATE_NETWORKS": "true"])
        #expect(settings.port == 9000)
        #expect(settings.workers == 3)
        #expect(settings.keys.map(\.key) == [Data([0x0a, 0x0b]), Data([0xff])])
        #expect(settings.keys.map(\.salt) == [Data([1]), Data([2])])
        #expect(settings.requestTimeout == .seconds(7))
        #expect(settings.addressPolicy.allowsPrivateNetworks)
    }

    @Test func invalidSettingsNameThemselves() {
        let cases: [([String: String], [String: String], String)] = [
            (["port": "http"], [:], "--port 'http' is not a whole number in 0...65535"),
            ([:], ["LOUPE_PORT": "70000"], "LOUPE_PORT '70000' is not a whole number in 0...65535"),
            (["key": "zz", "salt": "00"], [:], "--key 'zz' is not hexadecimal"),
            (["key": "00"], [:], "--key has 1 keys and --salt 0 salts: give one salt per key"),
            (["workers": "0"], [:], "--workers '0' is not a whole number in 1...1024"),
            (["allowed-sources": "a.com"], [:], "allowed source 'a.com' is not an http(s) URL prefix like https://images.example.com/ (or local:///folder/, s3://bucket/folder/)"),
            (["allow-private-networks": "maybe"], [:], "--allow-private-networks 'maybe' is not a boolean (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)"),
            (["permit-addresses": "localhost"], [:], "--permit-addresses 'localhost' is not an IP address"),
            (["allow-unsigned": "true", "key": "00", "salt": "00"], [:], "--allow-unsigned cannot be combined with a signing key"),
        ] + ["on", "yes", "maybe", ""].map { spelling in
            ([:], ["LOUPE_ALLOW_PRIVATE_NETWORKS": spelling],
             "LOUPE_ALLOW_PRIVATE_NETWORKS '\(spelling)' is not a boolean (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)")
        }
        for (flags, environment, message) in cases {
            #expect(throws: SettingsError.self) { try ServerSettings(flags: flags, environment: environment) }
            do {
                _ = try ServerSettings(flags: flags, environment: environment)
            } catch {
                #expect(error.description == message)
                #expect(!error.description.contains("\n"))
            }
        }
    }

    /// Every boolean setting, as its flag, its `LOUPE_*` variable and each `IMGPROXY_*` variable
    /// it reads (and every imgproxy switch Loupe only checks), refuses what is not one of
    /// imgproxy's spellings with one line naming where the value came from, and takes imgproxy's
    /// spellings. An empty `IMGPROXY_*` value is unset, as imgproxy reads it.
    @Test func everyBooleanSettingTakesOnlyImgproxysSpellings() throws {
        let booleans = ServerSettings.all.filter(\.isBoolean)
        #expect(booleans.count >= 5)
        for setting in booleans {
            let allBoolean = setting.imgproxy.allSatisfy { $0.isBoolean }
            #expect(allBoolean, "\(setting.flag) reads a variable that is not a boolean")
        }
        let variables = booleans.flatMap(\.imgproxy).map(\.name) + ImgproxyEnvironment.checks.map(\.variable).filter(\.isBoolean).map(\.name)
        #expect(variables.count >= 14)
        func refusal(flags: [String: String] = [:], environment: [String: String] = [:]) -> String? {
            do {
                _ = try ServerSettings(flags: flags, environment: environment)
                return nil
            } catch {
                return error.description
            }
        }
        let accepted = "(1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)"
        for spelling in ["on", "yes", "maybe", "", "TRUE ", "tRuE", "2"] {
            for setting in booleans {
                #expect(refusal(flags: [setting.flag: spelling]) == "--\(setting.flag) '\(spelling)' is not a boolean \(accepted)")
                #expect(refusal(environment: [setting.environmentVariable: spelling])
                        == "\(setting.environmentVariable) '\(spelling)' is not a boolean \(accepted)")
            }
            for name in variables where !spelling.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(refusal(environment: [name: spelling]) == "\(name) '\(spelling)' is not a boolean \(accepted)")
            }
        }
        for name in variables {
            #expect(refusal(environment: [name: ""]) == nil, "\(name) empty is unset")
        }
        let presets = ["presets": "small=w:10"]
        for (spellings, value) in [(["1", "t", "T", "TRUE", "true", "True"], "true"), (["0", "f", "F", "FALSE", "false", "False"], "false")] {
            for spelling in spellings {
                for setting in booleans {
                    let byFlag = try ServerSettings(flags: presets.merging([setting.flag: spelling]) { $1 }, environment: [:])
                    #expect(setting.value(in: byFlag) == value, "--\(setting.flag) \(spelling)")
                    let byVariable = try ServerSettings(flags: presets, environment: [setting.environmentVariable: spelling])
                    #expect(setting.value(in: byVariable) == value, "\(setting.environmentVariable) \(spelling)")
                }
                for name in variables {
                    #expect(refusal(flags: presets, environment: [name: spelling]) == nil, "\(name)=\(spelling)")
                }
            }
        }
    }

    /// The settings table of docs/service.md is the declarations' (flag, variable, help, default), in order.
    @Test func docsTableListsEverySetting() throws {
        let page = try String(contentsOf: Repository.root.appendingPathComponent("docs/service.md"), encoding: .utf8)
        let rows = page.split(separator: "\n").filter { $0.hasPrefix("| `--") && $0.contains("| `LOUPE_") }.map(String.init)
        let expected = SettingsDocumentation.serviceRows
        #expect(rows == expected, "docs/service.md's settings table should be:\n\(expected.joined(separator: "\n"))")
    }

    /// Each help states its default as the settings' own default value, where it has one.
    @Test func helpStatesTheDefaults() {
        let help = Dictionary(uniqueKeysWithValues: ServerSettings.all.map { ($0.flag, $0.help) })
        #expect(help["port"] == "port to listen on, 0 for any free one (default 8080)")
        #expect(help["disk-limit"] == "disk cache limit in MB, for sources and results each (default 1024)")
        #expect(help["max-source-size"] == "largest source in MB, fractions allowed (default 50)")
        #expect(help["max-source-pixels"] == "largest source in megapixels, fractions allowed, checked from its header (default 50)")
        #expect(help["download-timeout"] == "seconds for one source download (default 10)")
        #expect(help["watermark-opacity"] == "multiplies every URL's watermark opacity, 0 to 1 (default 1)")
        #expect(help["workers"] == "decodes and processing at once (default: cores)")
        #expect(help["allow-unsigned"] == "serve 'insecure' and '_' URLs when no key is set (true/false; default false)")
        #expect(help["key"] == "signing keys in hex, comma-separated for rotation")
    }
}
