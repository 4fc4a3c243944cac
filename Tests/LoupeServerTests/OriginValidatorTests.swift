import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy 4's validators (`--etag origin`, `--last-modified origin`, the busters) over real
/// HTTP on both sides: a `loupe serve` on loopback and the embedded origin, which records what
/// it was sent.
@Suite struct OriginValidatorTests {
    static let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

    /// An origin whose image carries `etag` and `Last-Modified`, answering `304` to a matching
    /// `If-None-Match` or to any `If-Modified-Since` not before its `Last-Modified`.
    static func conditionalOrigin(etag: @escaping @Sendable () -> String, image: @escaping @Sendable () -> Data) -> OriginServer.Handler {
        { request in
            let tag = etag()
            let validators = [("ETag", tag), ("Last-Modified", lastModified)]
            if let match = request.header("If-None-Match"), match == tag { return OriginResponse(status: 304, headers: validators) }
            if request.header("If-None-Match") == nil, let since = request.header("If-Modified-Since").flatMap(Self.date),
               let modified = Self.date(lastModified), modified <= since {
                return OriginResponse(status: 304, headers: validators)
            }
            return OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg")] + validators, body: image())
        }
    }

    static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }

    static func settings(_ change: (inout ServerSettings) -> Void) -> ServerSettings {
        var settings = testSettings()
        change(&settings)
        return settings
    }

    @Test func theOriginsETagPassesThroughAndItsNotModifiedIsAnswered() async throws {
        let image = try TestImage.jpeg(width: 120, height: 80, seed: 3)
        try await OriginServer.run(handler: Self.conditionalOrigin(etag: { "\"v1\"" }, image: { image })) { origin in
            let path = insecurePath("rs:fit:60:60", origin.url("/a.jpg").absoluteString)
            try await RunningServer.with(Self.settings { $0.etagMode = .origin }) { server in
                let first = try await server.request(path)
                #expect(first.status == 200)
                #expect(first.header("ETag") == "\"v1\"")
                // Loupe's default for Last-Modified: local files' only.
                #expect(first.header("Last-Modified") == nil)
                #expect(try ImageDecoder().metadata(of: first.body).width == 60)
                #expect(origin.requests(for: "/a.jpg").first?.header("If-None-Match") == nil)

                let again = try await server.request(path, headers: [("If-None-Match", "\"v1\"")])
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
                #expect(again.header("ETag") == "\"v1\"")
                #expect(origin.requests(for: "/a.jpg").last?.header("If-None-Match") == "\"v1\"")

                let other = try await server.request(path, headers: [("If-None-Match", "\"v0\"")])
                #expect(other.status == 200)
                #expect(other.header("ETag") == "\"v1\"")
                // imgproxy asks the origin for every request; the result for its version is made once.
                #expect(origin.requestCount(for: "/a.jpg") == 3)
                #expect(other.header("Server-Timing")?.contains("hit") == true)
            }
        }
    }

    @Test func theBusterWrapsTheOriginsETagAndIsTakenOffBeforeItIsSentOn() async throws {
        let image = try TestImage.jpeg(width: 120, height: 80, seed: 4)
        try await OriginServer.run(handler: Self.conditionalOrigin(etag: { "\"loremipsumdolor\"" }, image: { image })) { origin in
            let path = insecurePath("rs:fit:60:60", origin.url("/b.jpg").absoluteString)
            // Set by imgproxy's variable alone, which also asks for the origin's ETag.
            let settings = try ServerSettings(flags: [:], environment: ["IMGPROXY_ETAG_BUSTER": "buster"])
            #expect(settings.etagMode == .origin)
            var served = testSettings()
            served.etagMode = settings.etagMode
            served.etagBuster = settings.etagBuster
            try await RunningServer.with(served) { server in
                let first = try await server.request(path)
                // The origin's tag, quotes and all, in base64url: imgproxy's form.
                let busted = "\"buster/" + Data("\"loremipsumdolor\"".utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "") + "\""
                #expect(first.header("ETag") == busted)

                let again = try await server.request(path, headers: [("If-None-Match", busted)])
                #expect(again.status == 304)
                #expect(again.header("ETag") == busted)
                #expect(origin.requests(for: "/b.jpg").last?.header("If-None-Match") == "\"loremipsumdolor\"")

                // Without the buster (a copy from before it changed): nothing is sent on, not even
                // If-Modified-Since, and the image is answered.
                let stale = try await server.request(path, headers: [("If-None-Match", "\"loremipsumdolor\""),
                                                                     ("If-Modified-Since", "Thu, 25 Feb 2021 01:45:00 GMT")])
                #expect(stale.status == 200)
                let sent = origin.requests(for: "/b.jpg").last
                #expect(sent?.header("If-None-Match") == nil)
                #expect(sent?.header("If-Modified-Since") == nil)
            }
        }
    }

    @Test func lastModifiedPassesThroughAndIfModifiedSinceIsSentOn() async throws {
        let image = try TestImage.jpeg(width: 120, height: 80, seed: 5)
        try await OriginServer.run(handler: Self.conditionalOrigin(etag: { "\"v1\"" }, image: { image })) { origin in
            let path = insecurePath("rs:fit:60:60", origin.url("/c.jpg").absoluteString)
            try await RunningServer.with(Self.settings { $0.lastModifiedMode = .origin }) { server in
                let first = try await server.request(path)
                #expect(first.status == 200)
                #expect(first.header("Last-Modified") == Self.lastModified)
                // The ETag stays Loupe's digest of the result.
                #expect(first.header("ETag")?.count == 34)

                let later = try await server.request(path, headers: [("If-Modified-Since", "Thu, 25 Feb 2021 01:45:00 GMT")])
                #expect(later.status == 304)
                #expect(later.header("Last-Modified") == Self.lastModified)
                #expect(origin.requests(for: "/c.jpg").last?.header("If-Modified-Since") == "Thu, 25 Feb 2021 01:45:00 GMT")

                let earlier = try await server.request(path, headers: [("If-Modified-Since", "Tue, 01 Oct 2013 17:31:00 GMT")])
                #expect(earlier.status == 200)
            }
            let buster = try #require(ISO8601DateFormatter().date(from: "2020-01-01T00:00:00Z"))
            try await RunningServer.with(Self.settings { $0.lastModifiedMode = .origin; $0.lastModifiedBuster = buster }) { server in
                let first = try await server.request(path)
                #expect(first.header("Last-Modified") == "Wed, 01 Jan 2020 00:00:00 GMT")
                // Not after the buster: not sent on, so the image is made anew.
                let before = try await server.request(path, headers: [("If-Modified-Since", "Thu, 25 Feb 2016 01:45:00 GMT")])
                #expect(before.status == 200)
                #expect(origin.requests(for: "/c.jpg").last?.header("If-Modified-Since") == nil)
                let after = try await server.request(path, headers: [("If-Modified-Since", "Thu, 25 Feb 2021 01:45:00 GMT")])
                #expect(after.status == 304)
            }
        }
    }

    @Test func aChangedOriginIsANewResult() async throws {
        let landscape = try TestImage.jpeg(width: 120, height: 80, seed: 6), portrait = try TestImage.jpeg(width: 80, height: 120, seed: 7)
        let changed = Locked(false)
        let handler = Self.conditionalOrigin(etag: { changed.withLock { $0 } ? "\"v2\"" : "\"v1\"" },
                                             image: { changed.withLock { $0 } ? portrait : landscape })
        try await OriginServer.run(handler: handler) { origin in
            let folder = try TemporaryFolder.created()
            let path = insecurePath("rs:fit:60:60", origin.url("/d.jpg").absoluteString)
            try await RunningServer.with(Self.settings { $0.etagMode = .origin; $0.cacheDirectory = folder.url }) { server in
                let before = try await server.request(path)
                #expect(before.header("ETag") == "\"v1\"")
                let first = try ImageDecoder().metadata(of: before.body)
                #expect((first.width, first.height) == (60, 40))
                changed.withLock { $0 = true }
                // The client's copy is of v1: the origin says it changed, and the result is v2's.
                let after = try await server.request(path, headers: [("If-None-Match", "\"v1\"")])
                #expect(after.status == 200)
                #expect(after.header("ETag") == "\"v2\"")
                let second = try ImageDecoder().metadata(of: after.body)
                #expect((second.width, second.height) == (40, 60))
            }
        }
    }

    @Test func unsafeValidatorsAreNeitherSentOnNorReflected() async throws {
        let image = try TestImage.jpeg(width: 120, height: 80, seed: 8)
        let long = "\"" + String(repeating: "a", count: 600) + "\""
        try await OriginServer.run(handler: { request in
            // A tag too long to pass on, and a Last-Modified that is no date.
            OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("ETag", long), ("Last-Modified", "yesterday; x=1")],
                           body: image)
        }) { origin in
            let path = insecurePath("rs:fit:60:60", origin.url("/e.jpg").absoluteString)
            let settings = Self.settings { $0.etagMode = .origin; $0.lastModifiedMode = .origin; $0.etagBuster = "b" }
            try await RunningServer.with(settings) { server in
                let answer = try await server.request(path)
                #expect(answer.status == 200)
                #expect(answer.header("ETag") == nil)
                #expect(answer.header("Last-Modified") == nil)

                // A busted tag that decodes to a header break, and a date that is none: nothing sent on.
                let injected = Data("\"x\"\r\nSet-Cookie: a=b".utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                let tricked = try await server.request(path, headers: [("If-None-Match", "\"b/\(injected)\""), ("If-Modified-Since", "soon")])
                #expect(tricked.status == 200)
                let sent = origin.requests(for: "/e.jpg").last
                #expect(sent?.header("If-None-Match") == nil)
                #expect(sent?.header("If-Modified-Since") == nil)
                #expect(sent?.header("Set-Cookie") == nil)
            }
            try await RunningServer.with(Self.settings { $0.etagMode = .origin }) { server in
                let huge = try await server.request(path, headers: [("If-None-Match", long)])
                #expect(huge.status == 200)
                #expect(origin.requests(for: "/e.jpg").last?.header("If-None-Match") == nil)
            }
        }
    }

    @Test func conditionalHeadersNeverReachAnOriginTheGuardRefuses() async throws {
        let image = try TestImage.jpeg(width: 120, height: 80, seed: 9)
        try await OriginServer.run(handler: Self.conditionalOrigin(etag: { "\"v1\"" }, image: { image })) { origin in
            let path = insecurePath("rs:fit:60:60", origin.url("/f.jpg").absoluteString)
            // Loopback is a private address: this server's guard refuses it.
            var settings = Self.settings { $0.etagMode = .origin }
            settings.addressPolicy = .init(allowsPrivateNetworks: false, permittedAddresses: [])
            try await RunningServer.with(settings) { server in
                let answer = try await server.request(path, headers: [("If-None-Match", "\"v1\"")])
                #expect(answer.status != 304 && answer.status != 200)
                #expect(origin.requestCount(for: "/f.jpg") == 0)
            }
        }
    }

    @Test func aLocalFilesETagComesFromItsVersion() async throws {
        let folder = try TemporaryFolder.created()
        try TestImage.jpeg(width: 120, height: 80, seed: 10).write(to: folder.url.appendingPathComponent("g.jpg"))
        var settings = Self.settings { $0.etagMode = .origin; $0.etagBuster = "b2" }
        settings.localRoot = try RootedFileSystem(root: folder.url.path)
        try await RunningServer.with(settings) { server in
            let path = insecurePath("rs:fit:60:60", "local:///g.jpg")
            let first = try await server.request(path)
            #expect(first.status == 200)
            let etag = try #require(first.header("ETag"))
            #expect(etag.hasPrefix("\"b2/"))
            #expect(first.header("Last-Modified") != nil)
            let again = try await server.request(path, headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(again.header("ETag") == etag)
        }
    }

    @Test func imgproxysVariablesChooseTheModes() throws {
        let defaults = try ServerSettings(flags: [:], environment: [:])
        #expect(defaults.etagMode == .digest && defaults.lastModifiedMode == .local)
        let on = try ServerSettings(flags: [:], environment: ["IMGPROXY_USE_ETAG": "true", "IMGPROXY_USE_LAST_MODIFIED": "1",
                                                             "IMGPROXY_LAST_MODIFIED_BUSTER": "2024-05-01T00:00:00Z"])
        #expect(on.etagMode == .origin && on.lastModifiedMode == .origin)
        #expect(on.lastModifiedBuster == ISO8601DateFormatter().date(from: "2024-05-01T00:00:00Z"))
        let off = try ServerSettings(flags: [:], environment: ["IMGPROXY_USE_ETAG": "false", "IMGPROXY_ETAG_BUSTER": "x",
                                                              "IMGPROXY_USE_LAST_MODIFIED": "false"])
        #expect(off.etagMode == ETagMode.none && off.lastModifiedMode == LastModifiedMode.none)
        #expect(throws: SettingsError.self) { try ServerSettings(flags: [:], environment: ["IMGPROXY_ETAG_BUSTER": "a\"b"]) }
        #expect(throws: SettingsError.self) { try ServerSettings(flags: [:], environment: ["IMGPROXY_LAST_MODIFIED_BUSTER": "yesterday"]) }
    }
}
