import Foundation
import LoupeServer
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
            (["allowed-sources": "a.com"], [:], "allowed source 'a.com' is not an http(s) URL prefix like https://images.example.com/ (or local:///folder/)"),
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

    /// The settings table of docs/service.md lists every setting, with its variable and help, in order.
    @Test func docsTableListsEverySetting() throws {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("docs/service.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| `--") && $0.contains("| `LOUPE_") }.map(String.init)
        #expect(rows == ServerSettings.all.map { "| `--\($0.flag)` | `\($0.environmentVariable)` | \($0.help) |" })
    }
}
