import Foundation
import LoupeLoading
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's `IMGPROXY_*` variables as Loupe's settings: precedence, units, formats, errors
/// naming the variable, and the variables reported as ignored.
@Suite struct ImgproxyEnvironmentTests {
    @Test func flagWinsOverLoupeVariableWhichWinsOverImgproxyVariable() throws {
        let environment = ["IMGPROXY_BIND": ":9001", "IMGPROXY_QUALITY": "61", "IMGPROXY_TTL": "120", "IMGPROXY_WORKERS": "5",
                           "LOUPE_QUALITY": "62", "LOUPE_WORKERS": "6"]
        let imgproxyOnly = try ServerSettings(flags: [:], environment: environment.filter { $0.key.hasPrefix("IMGPROXY_") })
        #expect(imgproxyOnly.port == 9001 && imgproxyOnly.defaultQuality == 61 && imgproxyOnly.workers == 5)
        let settings = try ServerSettings(flags: ["workers": "7"], environment: environment)
        #expect(settings.port == 9001)
        #expect(settings.timeToLive == 120)
        #expect(settings.defaultQuality == 62)
        #expect(settings.workers == 7)
        // An imgproxy value that a LOUPE_ variable or flag replaces is not even checked.
        let replaced = try ServerSettings(flags: ["quality": "70"], environment: [
            "IMGPROXY_QUALITY": "best", "LOUPE_PORT": "81", "LOUPE_HOST": "127.0.0.2", "IMGPROXY_BIND": "?"])
        #expect(replaced.defaultQuality == 70)
        #expect(replaced.port == 81 && replaced.host == "127.0.0.2")
    }

    @Test func unitsAndFormatsAreConverted() throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let settings = try ServerSettings(flags: [:], environment: [
            "IMGPROXY_KEY": "0a0b, ff", "IMGPROXY_SALT": "01,02",
            "IMGPROXY_BIND": ":9090",
            "IMGPROXY_MAX_SRC_RESOLUTION": "16.8", "IMGPROXY_MAX_SRC_FILE_SIZE": "1000000",
            "IMGPROXY_MAX_RESULT_DIMENSION": "0", "IMGPROXY_REQUESTS_QUEUE_SIZE": "0",
            "IMGPROXY_DOWNLOAD_TIMEOUT": "4", "IMGPROXY_TIMEOUT": "12", "IMGPROXY_AUTO_AVIF": "T",
            "IMGPROXY_ALLOWED_SOURCES": "https://images.example.com/, local:///public/, https://*.cdn.example.com/*/thumbs/",
            "IMGPROXY_LOCAL_FILESYSTEM_ROOT": folder.url.path,
        ])
        #expect(settings.keys.map(\.key) == [Data([0x0a, 0x0b]), Data([0xff])])
        #expect(settings.keys.map(\.salt) == [Data([1]), Data([2])])
        #expect(settings.host == "0.0.0.0" && settings.port == 9090)
        #expect(settings.maximumSourcePixels == 16_800_000)
        #expect(settings.maximumSourceBytes == 1_000_000)
        #expect(settings.maximumResultDimension == 65_500)
        #expect(settings.queueLength == 1_000_000)
        #expect(settings.downloadTimeout == .seconds(4) && settings.requestTimeout == .seconds(12))
        #expect(settings.negotiatesAVIF)
        #expect(settings.sources == (try SourcePolicy(allowedPrefixes: [
            "https://images.example.com/", "local:///public/", "https://*.cdn.example.com/*/thumbs/",
        ])))
        #expect(try settings.sources.check("https://eu.cdn.example.com/2024/thumbs/a.jpg").host == "eu.cdn.example.com")
        #expect(settings.localRoot == (try RootedFileSystem(root: folder.url.path)))

        let v6 = try ServerSettings(flags: [:], environment: ["IMGPROXY_BIND": "[::1]:81", "IMGPROXY_MAX_SRC_FILE_SIZE": "0"])
        #expect(v6.host == "::1" && v6.port == 81)
        #expect(v6.maximumSourceBytes == 4096 << 20)
        // An older name imgproxy 4 still reads, below the current one.
        let older = try ServerSettings(flags: [:], environment: ["IMGPROXY_ENABLE_AVIF_DETECTION": "1"])
        #expect(older.negotiatesAVIF)
    }

    /// Variables imgproxy 4 removed change nothing, as in imgproxy 4, and are named at start-up.
    @Test func variablesImgproxy4RemovedAreIgnored() throws {
        let removed = ["IMGPROXY_CONCURRENCY": "3", "IMGPROXY_WRITE_TIMEOUT": "9", "IMGPROXY_READ_TIMEOUT": "5",
                       "IMGPROXY_UNSHARPENING_MODE": "always", "IMGPROXY_DOWNLOAD_BUFFER_SIZE": "1024"]
        let settings = try ServerSettings(flags: [:], environment: removed)
        #expect(settings.workers == ServerSettings().workers && settings.requestTimeout == ServerSettings().requestTimeout)
        let ignored = ImgproxyEnvironment.ignored(in: removed)
        #expect(ignored.map(\.name) == removed.keys.sorted())
        #expect(ignored.allSatisfy { $0.reason.contains("removed in imgproxy 4") })
        // Each names its own successor, from imgproxy 4's changelog.
        let reasons = Dictionary(uniqueKeysWithValues: ignored.map { ($0.name, $0.reason) })
        #expect(reasons["IMGPROXY_CONCURRENCY"]?.contains("its successor is IMGPROXY_WORKERS, which Loupe takes") == true)
        #expect(reasons["IMGPROXY_WRITE_TIMEOUT"]?.contains("its successor is IMGPROXY_TIMEOUT, which Loupe takes") == true)
        #expect(reasons["IMGPROXY_READ_TIMEOUT"]?.contains("IMGPROXY_READ_REQUEST_TIMEOUT") == true)
        #expect(reasons["IMGPROXY_UNSHARPENING_MODE"]?.contains("IMGPROXY_UNSHARP_MASKING_MODE") == true)
        #expect(reasons["IMGPROXY_DOWNLOAD_BUFFER_SIZE"]?.contains("without a successor") == true)
    }

    @Test func privateAddressesOpenOnlyWhenImgproxyOpensAllThreeKinds() throws {
        let all = ["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true", "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "true"]
        // Private addresses are open by default in imgproxy.
        #expect(try ServerSettings(flags: [:], environment: all).addressPolicy.allowsPrivateNetworks)
        var closedPrivate = all
        closedPrivate["IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES"] = "false"
        #expect(!(try ServerSettings(flags: [:], environment: closedPrivate).addressPolicy.allowsPrivateNetworks))
        let loopbackOnly = ["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"]
        #expect(!(try ServerSettings(flags: [:], environment: loopbackOnly).addressPolicy.allowsPrivateNetworks))
        let ignored = ImgproxyEnvironment.ignored(in: loopbackOnly)
        #expect(ignored.map(\.name) == ["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"])
        #expect(ImgproxyEnvironment.ignored(in: all).isEmpty)
    }

    @Test func invalidValuesNameTheirVariable() {
        let cases: [([String: String], String)] = [
            (["IMGPROXY_QUALITY": "best"], "IMGPROXY_QUALITY 'best' is not a whole number in 1...100"),
            (["IMGPROXY_BIND": "localhost"], "IMGPROXY_BIND 'localhost' is not host:port or :port"),
            (["IMGPROXY_BIND": ":99999"], "IMGPROXY_BIND ':99999' is not host:port or :port"),
            (["IMGPROXY_MAX_SRC_RESOLUTION": "-2"], "IMGPROXY_MAX_SRC_RESOLUTION '-2' is not a positive number of megapixels"),
            (["IMGPROXY_MAX_SRC_RESOLUTION": "5000"], "IMGPROXY_MAX_SRC_RESOLUTION '5000' is not a number above 0 and at most 1000"),
            (["IMGPROXY_MAX_SRC_FILE_SIZE": "1.5"], "IMGPROXY_MAX_SRC_FILE_SIZE '1.5' is not a whole number of bytes (0 for no limit)"),
            (["IMGPROXY_AUTO_AVIF": "yes"], "IMGPROXY_AUTO_AVIF 'yes' is not a boolean (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)"),
            (["IMGPROXY_USE_ETAG": "sometimes"], "IMGPROXY_USE_ETAG 'sometimes' is not a boolean (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)"),
            (["IMGPROXY_NETWORK": "unix"], "IMGPROXY_NETWORK 'unix' is not supported: loupe serve listens on TCP only"),
            (["IMGPROXY_KEY": "xyz", "IMGPROXY_SALT": "00"], "IMGPROXY_KEY 'xyz' is not hexadecimal"),
            (["IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/nonexistent-loupe-root"],
             "IMGPROXY_LOCAL_FILESYSTEM_ROOT '/nonexistent-loupe-root' does not exist or cannot be resolved"),
            (["IMGPROXY_WORKERS": "0"], "IMGPROXY_WORKERS '0' is not a whole number in 1...1024"),
            (["IMGPROXY_MAX_SRC_FILE_SIZE": "5000000000"], "IMGPROXY_MAX_SRC_FILE_SIZE '5000000000' is over Loupe's largest source, 4294967296 bytes"),
        ]
        for (environment, message) in cases {
            do {
                _ = try ServerSettings(flags: [:], environment: environment)
                Issue.record("\(environment) was accepted")
            } catch {
                #expect(error.description == message)
            }
        }
    }

    @Test func variablesLoupeDoesNotTakeAreListedWithTheirReason() throws {
        let environment = [
            "IMGPROXY_QUALITY": "80", "IMGPROXY_USE_ETAG": "true", "IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_SIGNATURE_SIZE": "32",
            "IMGPROXY_GCS_ENDPOINT": "https://storage.example.com", "IMGPROXY_USE_LAST_MODIFIED": "true",
            "IMGPROXY_ENFORCE_WEBP": "true", "IMGPROXY_SIGNATURE_SIZE_X": "1", "IMGPROXY_PATH_PREFIX": "/img",
            "IMGPROXY_PRESETS": "thumb=rs:fill:100:100", "IMGPROXY_TIFF_UNLIMITED": "", "LOUPE_S3": "x",
        ]
        let ignored = ImgproxyEnvironment.ignored(in: environment)
        // The format switches and the validators are settings now: IMGPROXY_ENFORCE_WEBP and
        // IMGPROXY_USE_LAST_MODIFIED are taken.
        let expected = ["IMGPROXY_GCS_ENDPOINT", "IMGPROXY_SIGNATURE_SIZE_X"]
        #expect(ignored.map(\.name) == expected)
        #expect(try ServerSettings(flags: [:], environment: environment).enforcesWebP)
        let reasons = Dictionary(uniqueKeysWithValues: ignored.map { ($0.name, $0.reason) })
        #expect(reasons["IMGPROXY_SIGNATURE_SIZE_X"] == "not an imgproxy setting Loupe knows of")
        #expect(reasons["IMGPROXY_GCS_ENDPOINT"]?.hasPrefix("cloud storage sources") == true)
        #expect(ImgproxyEnvironment.ignored(in: ["IMGPROXY_STRIP_METADATA": "false"]).map(\.name) == ["IMGPROXY_STRIP_METADATA"])
        #expect(ImgproxyEnvironment.ignored(in: ["IMGPROXY_PRESETS_SEPARATOR": ";"]).first?.reason
                == "read only with IMGPROXY_PRESETS, which is not set")
    }

    /// docs/imgproxy-environment.md has one row for every imgproxy variable Loupe knows of: the
    /// taken ones as their declarations say (the settings they set, their notes), the ignored
    /// ones with their reasons.
    @Test func documentationMapsEveryVariable() throws {
        let text = try String(contentsOf: Repository.root.appendingPathComponent("docs/imgproxy-environment.md"), encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `IMGPROXY_") }.map(String.init)
        let expected = SettingsDocumentation.takenImgproxyRows + SettingsDocumentation.ignoredImgproxyRows
        #expect(rows == expected, "docs/imgproxy-environment.md's rows should be:\n\(expected.joined(separator: "\n"))")
        let documented = rows.map { $0.dropFirst(3).prefix { $0 != "`" }.description }
        #expect(documented.sorted() == ImgproxyEnvironment.knownVariables)
        #expect(Set(documented).count == documented.count)
    }
}
