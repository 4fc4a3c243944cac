import Foundation
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
import Testing

/// `loupe fetch` end to end: the real binary against a real nginx on loopback.
@Suite(.serialized) final class FetchCommandTests: Sendable {
    let server: NginxServer
    let folder: TemporaryFolder
    let photo: Data

    init() throws {
        photo = try TestImage.jpeg(width: 640, height: 480)
        server = try NginxServer.start(files: [
            "photo.jpg": photo,
            "a/photo.jpg": try TestImage.jpeg(width: 320, height: 200, seed: 1),
            "b/photo.jpg": try TestImage.jpeg(width: 200, height: 320, seed: 2),
            "logo.png": try TestFiles.pngWithAlpha(width: 200, height: 100),
            "page.jpg": Data("<!doctype html><html><body>Not an image</body></html>".utf8),
            "broken.png": TestFiles.pngWithBadChecksum,
            "bomb.png": TestFiles.pngBomb,
            "big.bin": TestFiles.noise(3 << 20),
            "medium.bin": TestFiles.noise(200_000),
        ])
        folder = try TemporaryFolder.created()
    }

    deinit {
        server.stop()
        folder.remove()
    }

    private var cacheArguments: [String] { ["--cache-dir", folder.path("cache")] }

    @Test func aSuccessCarriesEveryFieldOfTheJSONContract() async throws {
        let run = try await LoupeRun.run(
            ["fetch", "--json", "--thumbnail", "128", "--colors", "--placeholder", "blurhash", "--out", folder.path("out"),
             server.url("photo.jpg").absoluteString] + cacheArguments, home: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        let line = try #require(run.lines.first)
        // The documented fields in sorted order (as `/info` and `/batch` write them), nothing else.
        let keys = ["backgroundColor", "blurhash", "bytes", "dominantColor", "format", "frames", "height", "ms", "ok", "origin",
                    "outputHeight", "outputWidth", "palette", "path", "source", "width"]
        let positions = keys.map { line.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "\(line)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        let object = try #require(try run.objects().first)
        #expect(Set(object.keys) == Set(keys))
        #expect(object["source"] as? String == server.url("photo.jpg").absoluteString)
        #expect(object["ok"] as? Bool == true)
        #expect(object["format"] as? String == "jpeg")
        #expect(object["width"] as? Int == 640 && object["height"] as? Int == 480)
        #expect(object["outputWidth"] as? Int == 128 && object["outputHeight"] as? Int == 96)
        #expect(object["frames"] as? Int == 1)
        #expect(object["bytes"] as? Int == photo.count)
        #expect(object["origin"] as? String == "network")
        #expect((object["ms"] as? Int).map { $0 >= 0 } == true)

        // The exact mode: colorthief's colour of the full-size pixels as stored, not the thumbnail's.
        let fullSize = try ImageDecoder().decode(photo, options: DecodingOptions(firstFrameOnly: true)).bitmap
        let dominant = try fullSize.dominantColor()
        #expect(object["dominantColor"] as? String == dominant.hex)
        #expect(object["backgroundColor"] as? String == dominant.backgroundColor.hex)
        #expect(object["palette"] as? [String] == (try fullSize.palette(count: 6)).map(\.hex))
        // 4 × 3 components: 4 + 2 × 4 × 3 characters.
        #expect((object["blurhash"] as? String)?.count == 28)

        let path = try #require(object["path"] as? String)
        #expect(path == folder.path("out") + "/photo.jpg")
        let written = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path)), options: DecodingOptions())
        #expect(written.metadata.format == .jpeg)
        #expect(written.bitmap.width == 128 && written.bitmap.height == 96)
    }

    @Test func fastColorsThumbhashAndFormatConversion() async throws {
        let run = try await LoupeRun.run(
            ["fetch", "--json", "--fast-colors", "--placeholder", "thumbhash", "--format", "webp", "--out", folder.path("webp"),
             server.url("logo.png").absoluteString] + cacheArguments, home: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        let object = try #require(try run.objects().first)
        #expect(object["format"] as? String == "png")
        // A 200 × 100 PNG cannot shrink while decoding: fast mode samples it as exact mode does.
        let pixels = try ImageDecoder().decode(TestFiles.pngWithAlpha(width: 200, height: 100), options: DecodingOptions()).bitmap
        #expect(object["dominantColor"] as? String == (try pixels.dominantColor()).hex)
        let thumbhash = try #require((object["thumbhash"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect([UInt8](thumbhash) == (try ThumbHash.encode(pixels)))
        let path = try #require(object["path"] as? String)
        #expect(path.hasSuffix("/logo.webp"))
        let written = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path)), options: DecodingOptions())
        #expect(written.metadata.format == .webp && written.bitmap.width == 200)
    }

    /// An animated GIF written to --out as GIF (its own format) and as WebP keeps every frame,
    /// each frame's delay and the loop count, every frame at the thumbnail size; as JPEG, the
    /// first frame.
    @Test func animationsStayAnimatedInAnimatingFormats() async throws {
        let source = try Corpus.data("gdk-pixbuf/aero.gif")
        let original = try ImageDecoder().decode(source, options: DecodingOptions())
        let file = folder.path("aero.gif")
        try source.write(to: URL(fileURLWithPath: file))
        for (format, expectedFormat, frames) in [(nil, ImageFormat.gif, 56), ("webp", .webp, 56), ("jpeg", .jpeg, 1)] as [(String?, ImageFormat, Int)] {
            let out = folder.path("animated-\(format ?? "own")")
            let run = try await LoupeRun.run(
                ["fetch", "--json", "--no-cache", "--thumbnail", "100", "--out", out] + (format.map { ["--format", $0] } ?? []) + [file],
                home: folder.url)
            #expect(run.status == 0, "\(run.standardError)")
            let path = try #require(try run.objects().first?["path"] as? String)
            let written = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path)), options: DecodingOptions())
            #expect(written.metadata.format == expectedFormat)
            #expect(written.frames.count == frames, "\(expectedFormat)")
            #expect(written.frames.allSatisfy { $0.bitmap.width == 100 && $0.bitmap.height == 54 }, "\(expectedFormat)")
            guard frames > 1 else { continue }
            #expect(written.metadata.loopCount == original.metadata.loopCount)
            // WebP's timestamps must grow: a frame of no delay is written as 1 ms.
            let durations = original.frames.map { expectedFormat == .webp && $0.duration == .zero ? .milliseconds(1) : $0.duration }
            #expect(written.frames.map(\.duration) == durations, "\(expectedFormat)")
        }
    }

    @Test func everyErrorKindIsReportedAndTheOthersStillSucceed() async throws {
        let refused = "http://127.0.0.1:\(try freeLoopbackPort())/nobody-listens.jpg"
        let sources = [
            ("ftp://example.com/a.jpg", "invalidSource"),
            ("http:///no-host.jpg", "invalidSource"),
            (server.url("photo.jpg").absoluteString, nil),
            (refused, "network"),
            (server.url("missing.jpg").absoluteString, "http"),
            (server.url("slow/medium.bin").absoluteString, "timeout"),
            (server.url("big.bin").absoluteString, "tooLarge"),
            (server.url("page.jpg").absoluteString, "unsupportedFormat"),
            (server.url("broken.png").absoluteString, "corrupt"),
            (server.url("bomb.png").absoluteString, "limitExceeded"),
            (folder.path("no-such-file.jpg"), "io"),
            (folder.url.path, "io"),
        ]
        let run = try await LoupeRun.run(
            ["fetch", "--json", "--timeout", "2", "--retries", "0", "--max-size", "1"] + sources.map(\.0) + cacheArguments,
            home: folder.url)
        #expect(run.status == 1, "some failed: exit 1")
        let objects = try run.objects()
        try #require(objects.count == sources.count, "\(run.standardOutput)")
        for (object, (source, kind)) in zip(objects, sources) {
            #expect(object["source"] as? String == source)
            #expect(object["ok"] as? Bool == (kind == nil))
            if let kind {
                let error = try #require(object["error"] as? [String: Any])
                #expect(error["kind"] as? String == kind, "\(source): \(error)")
                #expect((error["message"] as? String)?.isEmpty == false)
                #expect((error["status"] as? Int) == (kind == "http" ? 404 : nil))
            }
        }
        // Nothing failed is cached: a second run asks nginx again for the non-image.
        _ = try await LoupeRun.run(["fetch", "--json", server.url("page.jpg").absoluteString] + cacheArguments, home: folder.url)
        #expect(server.requestCount(for: "/page.jpg") == 2)
    }

    @Test func outputKeepsInputOrderAndDuplicatesLoadOnce() async throws {
        // The first source is slow (paced at 4 KB/s by nginx), the others fast: each is still
        // reported in input order, and the three copies of one URL make one request.
        let slow = server.url("slow/logo.png").absoluteString
        let fast = server.url("a/photo.jpg").absoluteString
        let sources = [slow, fast, server.url("b/photo.jpg").absoluteString, fast, slow, fast]
        let run = try await LoupeRun.run(["fetch", "--json", "--no-cache"] + sources, home: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        let objects = try run.objects()
        #expect(objects.map { $0["source"] as? String } == sources)
        #expect(objects.allSatisfy { $0["ok"] as? Bool == true })
        #expect(server.requestCount(for: "/a/photo.jpg") == 1)
        #expect(server.requestCount(for: "/slow/logo.png") == 1)
    }

    @Test func theSecondRunIsServedByTheDiskCacheAndCacheCommandsSeeIt() async throws {
        let cache = ["--cache-dir", folder.path("second-run")]
        let url = server.url("b/photo.jpg").absoluteString
        let first = try await LoupeRun.run(["fetch", "--json", url] + cache, home: folder.url)
        let second = try await LoupeRun.run(["fetch", "--json", url] + cache, home: folder.url)
        #expect(try first.objects().first?["origin"] as? String == "network")
        #expect(try second.objects().first?["origin"] as? String == "disk")
        #expect(server.requestCount(for: "/b/photo.jpg") == 1)

        let stats = try await LoupeRun.run(["cache", "stats", "--json"] + cache, home: folder.url)
        let summary = try #require(try stats.objects().first)
        #expect(summary["entries"] as? Int == 1)
        #expect(summary["bytes"] as? Int == (try TestImage.jpeg(width: 200, height: 320, seed: 2)).count)
        #expect(summary["limit"] as? Int == 256 << 20)
        #expect(summary["expiredEntries"] as? Int == 0)
        #expect(summary["oldestEntry"] is String)

        let trim = try await LoupeRun.run(["cache", "trim", "--to", "0"] + cache, home: folder.url)
        #expect(trim.status == 0)
        #expect(trim.standardOutput.hasPrefix("removed 1 entries"))
        let after = try await LoupeRun.run(["cache", "stats", "--json"] + cache, home: folder.url)
        #expect(try after.objects().first?["entries"] as? Int == 0)

        _ = try await LoupeRun.run(["fetch", url, "--quiet"] + cache, home: folder.url)
        let clear = try await LoupeRun.run(["cache", "clear"] + cache, home: folder.url)
        #expect(clear.standardOutput.hasPrefix("removed 1 entries"))
    }

    @Test func theDefaultCacheIsUnderXDGCacheHome() async throws {
        let home = folder.url.appendingPathComponent("xdg")
        _ = try await LoupeRun.run(["fetch", "--quiet", server.url("a/photo.jpg").absoluteString], home: home)
        let stats = try await LoupeRun.run(["cache", "stats", "--json"], home: home)
        let summary = try #require(try stats.objects().first)
        #expect(summary["directory"] as? String == home.appendingPathComponent("loupe").path)
        #expect(summary["entries"] as? Int == 1)
    }

    @Test func sourcesFromStandardInput() async throws {
        let input = "\(server.url("a/photo.jpg").absoluteString)\n\n  \(server.url("b/photo.jpg").absoluteString)  \n"
        let run = try await LoupeRun.run(["fetch", "--json", "--no-cache", "-"], input: input, home: folder.url)
        #expect(run.status == 0)
        #expect(try run.objects().map { $0["source"] as? String } == [server.url("a/photo.jpg").absoluteString, server.url("b/photo.jpg").absoluteString])
    }

    @Test func outputFileNamesNeverCollide() async throws {
        let out = folder.path("collisions")
        let run = try await LoupeRun.run(
            ["fetch", "--json", "--no-cache", "--out", out, server.url("a/photo.jpg").absoluteString, server.url("b/photo.jpg").absoluteString],
            home: folder.url)
        let paths = try run.objects().compactMap { $0["path"] as? String }
        #expect(paths == [out + "/photo.jpg", out + "/photo-2.jpg"])
        let sizes = try paths.map { try ImageDecoder().metadata(of: Data(contentsOf: URL(fileURLWithPath: $0))) }.map { [$0.width, $0.height] }
        #expect(sizes == [[320, 200], [200, 320]])
    }

    @Test func textOutputHasALinePerSourceAndNoProgressBarWhenNotATerminal() async throws {
        let run = try await LoupeRun.run(
            ["fetch", "--no-cache", "--thumbnail", "64", server.url("photo.jpg").absoluteString, server.url("missing.jpg").absoluteString],
            home: folder.url)
        #expect(run.status == 1)
        #expect(run.lines.count == 2)
        #expect(run.lines.first?.hasPrefix(server.url("photo.jpg").absoluteString + ": jpeg 640x480 -> 64x48") == true)
        #expect(run.lines.last?.contains("failed (http 404)") == true)
        #expect(run.standardError.isEmpty, "nothing on standard error when it is not a terminal: \(run.standardError)")
    }

    @Test func aProgressBarOnATerminalUnlessQuiet() async throws {
        let url = server.url("photo.jpg").absoluteString
        let shown = try await LoupeRun.runOnTerminal(["fetch", "--no-cache", url, url + "?copy"], home: folder.url)
        #expect(shown.status == 0)
        #expect(shown.standardOutput.contains("] 2/2"), "\(shown.standardOutput)")
        let quiet = try await LoupeRun.runOnTerminal(["fetch", "--no-cache", "--quiet", url], home: folder.url)
        #expect(!quiet.standardOutput.contains("] 1/1"))
    }

    @Test(arguments: [
        ["fetch"],
        ["fetch", "--quality", "0", "x.jpg"],
        ["fetch", "--format", "tga", "x.jpg"],
        ["fetch", "--concurrency", "0", "x.jpg"],
        ["fetch", "--thumbnail", "-5", "x.jpg"],
        ["fetch", "--no-such-option", "x.jpg"],
        ["fetch", "--no-cache", "--cache-dir", "/tmp/x", "x.jpg"],
        ["no-such-command"],
    ])
    func usageErrorsExitWithTwoAndOneLine(arguments: [String]) async throws {
        let run = try await LoupeRun.run(arguments, home: folder.url)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("loupe: "))
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
    }
}
