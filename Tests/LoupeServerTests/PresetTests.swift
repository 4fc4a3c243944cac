import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's presets: from settings (`--presets`, `--presets-file`), in URLs (`preset`/`pr`),
/// the `default` preset, and only-presets mode; through the service's routes where a server is involved.
@Suite struct PresetTests {
    static let definitions = [
        "thumb=rs:fill:50:50/q:60", "small=w:40", "sharp=sh:1.5", "both=pr:thumb:sharp",
        "loop1=w:30/pr:loop2", "loop2=h:20/pr:loop1", "self=pr:self/w:25",
    ]

    static func url(_ path: String, _ definitions: [String] = definitions, onlyPresets: Bool = false) throws -> ImgproxyURL {
        try ImgproxyURL(path: path, presets: Presets(definitions: definitions), onlyPresets: onlyPresets)
    }

    /// imgproxy: a preset's options apply where `preset`/`pr` appears, so options after it
    /// override it and it overrides those before; several names apply in order. The result key
    /// is made of what the presets expand to.
    @Test func presetsExpandInPlaceIntoTheResultKey() throws {
        let source = "/plain/http://a.com/x.jpg"
        let thumb = try Self.url("/sig/pr:thumb" + source)
        #expect(thumb.options.resizingType == .fill && thumb.options.width == 50 && thumb.options.quality == 60)
        #expect(thumb.signedPath == "/pr:thumb" + source)
        #expect(thumb.options.resultKey == (try Self.url("/sig/rs:fill:50:50/q:60" + source)).options.resultKey)
        #expect(try Self.url("/sig/preset:thumb/q:70" + source).options.quality == 70)
        #expect(try Self.url("/sig/q:70/pr:thumb" + source).options.quality == 60)
        let both = try Self.url("/sig/pr:small:sharp" + source).options
        #expect(both.width == 40 && both.sharpen == 1.5)
        #expect(both == (try Self.url("/sig/pr:sharp/pr:small" + source)).options)
        #expect(try Self.url("/sig/pr:both" + source).options == (try Self.url("/sig/rs:fill:50:50/q:60/sh:1.5" + source)).options)
    }

    /// A `POST /batch` item's options expand presets as a URL's do, the `default` one first; in
    /// only-presets mode they are preset names.
    @Test func batchItemOptionsExpandPresets() throws {
        let presets = try Presets(definitions: Self.definitions + ["default=q:45"])
        let item = try ImgproxyURL.options("pr:thumb/w:40", presets: presets, onlyPresets: false)
        #expect(item == (try ImgproxyURL.options("q:45/rs:fill:50:50/q:60/w:40")))
        #expect(try ImgproxyURL.options("", presets: presets, onlyPresets: false).quality == 45)
        let named = try ImgproxyURL.options("small:sharp", presets: presets, onlyPresets: true)
        #expect(named == (try ImgproxyURL.options("q:45/w:40/sh:1.5")))
        #expect(throws: ServiceError.badOption("unknown preset 'w'")) { try ImgproxyURL.options("w:40", presets: presets, onlyPresets: true) }
    }

    /// imgproxy: a preset met again within its own expansion is skipped (with a warning there),
    /// so a preset that names itself, directly or through another, cannot loop.
    @Test func selfReferencesAreSkipped() throws {
        let source = "/plain/http://a.com/x.jpg"
        let loop = try Self.url("/sig/pr:loop1" + source).options
        #expect(loop.width == 30 && loop.height == 20)
        #expect(try Self.url("/sig/pr:self" + source).options.width == 25)
        // A table that multiplies (each preset naming the next twice) is refused, not expanded.
        let doubling = (0..<20).map { "p\($0)=pr:p\($0 + 1):p\($0 + 1)" } + ["p20=w:1"]
        #expect(throws: SettingsError.self) { try Presets(definitions: doubling) }
    }

    /// imgproxy: an unknown preset is an error naming it; here a 400.
    @Test func unknownPresetsAreNamed() throws {
        #expect(throws: ServiceError.badOption("unknown preset 'nope'")) {
            try Self.url("/sig/pr:thumb:nope/plain/http://a.com/x.jpg")
        }
        #expect(throws: ServiceError.badOption("unknown preset 'any'")) {
            try ImgproxyURL(path: "/sig/pr:any/plain/http://a.com/x.jpg", presets: Presets(), onlyPresets: false)
        }
        // At start-up, a preset naming an unknown one, or holding a bad option, names itself.
        for (definitions, message) in [
            (["a=pr:b"], "preset 'a': unknown preset 'b'"), (["a=w:-1"], "preset 'a': '-1' in 'w' is not a size in pixels"),
            (["a"], "preset 'a' is not name=options"), (["=w:1"], "preset '=w:1' has an empty name"),
            (["a=w:1=2"], "preset 'a=w:1=2' is not name=options"), (["a=plain"], "preset 'a': 'plain' is not an option (name:arguments)"),
        ] {
            #expect(throws: SettingsError(message)) { try Presets(definitions: definitions) }
        }
    }

    /// imgproxy: the preset named `default` applies to every URL, before its options.
    /// Only-presets mode: the options part is `:`-separated preset names, nothing else.
    @Test func defaultPresetAndOnlyPresetsOverHTTP() async throws {
        let photo = try TestImage.jpeg(width: 200, height: 100, seed: 6)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            let source = origin.url("/p.jpg").absoluteString
            let reference = try await RoutedServer.with(testSettings()) { server in
                var bodies: [String] = []
                for options in ["rs:fill:50:50/q:60", "rs:fill:50:50/q:60/w:40", "q:45", "q:45/w:40", "q:70/w:40"] {
                    let answer = try await server.request(insecurePath(options, source, extension: "jpg"))
                    #expect(answer.status == 200)
                    bodies.append(answer.body.base64EncodedString())
                }
                return bodies
            }
            var settings = testSettings()
            settings.presets = try Presets(definitions: Self.definitions)
            try await RoutedServer.with(settings) { server in
                let thumb = try await server.request(insecurePath("pr:thumb", source, extension: "jpg"))
                #expect(thumb.body.base64EncodedString() == reference[0])
                let then = try await server.request(insecurePath("preset:thumb/w:40", source, extension: "jpg"))
                #expect(then.body.base64EncodedString() == reference[1])
                let unknown = try await server.request(insecurePath("pr:thumbnail", source))
                #expect(unknown.status == 400)
                #expect(unknown.json["message"] as? String == "unknown preset 'thumbnail'")
            }
            settings.presets = try Presets(definitions: Self.definitions + ["default=q:45"])
            try await RoutedServer.with(settings) { server in
                for (options, index) in [("", 2), ("pr:small", 3), ("q:70/w:40", 4)] {
                    let answer = try await server.request(insecurePath(options, source, extension: "jpg"))
                    #expect(answer.body.base64EncodedString() == reference[index], "\(options)")
                }
            }
            settings.onlyPresets = true
            try await RoutedServer.with(settings) { server in
                let onlyThumb = try await server.request("/insecure/thumb/plain/\(source)@jpg")
                #expect(onlyThumb.status == 200)
                #expect(onlyThumb.body.base64EncodedString() == reference[0])
                let two = try await server.request("/insecure/small:thumb/plain/\(source)@jpg")
                #expect(try Self.dimensions(two.body) == (50, 50))
                // Options are not presets in this mode.
                let options = try await server.request("/insecure/w:40/plain/\(source)@jpg")
                #expect(options.status == 400)
                #expect(options.json["message"] as? String == "unknown preset 'w'")
                let extra = try await server.request("/insecure/thumb/w:40/plain/\(source)@jpg")
                #expect(extra.status == 400)
                #expect(extra.json["kind"] as? String == "badURL")
            }
        }
    }

    static func dimensions(_ data: Data) throws -> (Int, Int) {
        let metadata = try ImageDecoder().metadata(of: data)
        return (metadata.width, metadata.height)
    }

    /// The settings: `--presets` (comma-separated), `--presets-file` (one per line, `#`
    /// comments, blank lines), `--only-presets`, `--format-quality`; bad ones name themselves.
    @Test func presetSettings() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-presets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("presets.txt")
        try "# thumbnails\n\nthumb=rs:fill:50:50\r\n  avatar = rs:fill:32:32/q:90  \n#old=w:1\n".write(to: file, atomically: true, encoding: .utf8)
        let settings = try ServerSettings(flags: ["presets": "small=w:40, big=w:400", "presets-file": file.path, "only-presets": "true",
                                                  "format-quality": "jpeg=70,webp=60,png=10,avif=50"], environment: [:])
        #expect(settings.presets.table == ["small": ["w:40"], "big": ["w:400"], "thumb": ["rs:fill:50:50"], "avatar": ["rs:fill:32:32", "q:90"]])
        #expect(settings.onlyPresets)
        // Over imgproxy's defaults: JPEG XL keeps its 77.
        #expect(settings.formatQuality == [.jpeg: 70, .webp: 60, .avif: 50, .jxl: 77])
        let fromEnvironment = try ServerSettings(flags: [:], environment: ["LOUPE_PRESETS": "x=w:1", "LOUPE_FORMAT_QUALITY": "jpg=33"])
        #expect(fromEnvironment.presets.table == ["x": ["w:1"]] && fromEnvironment.formatQuality == [.jpeg: 33, .webp: 79, .avif: 63, .jxl: 77])
        let cases: [([String: String], String)] = [
            (["presets": "a=w:x"], "preset 'a': 'x' in 'w' is not a size in pixels"),
            (["presets-file": folder.appendingPathComponent("missing").path], "--presets-file '\(folder.appendingPathComponent("missing").path)' cannot be read"),
            (["only-presets": "true"], "--only-presets needs presets (--presets or --presets-file)"),
            (["format-quality": "jpeg=0"], "--format-quality 'jpeg=0': the quality is not a whole number in 1...100"),
            (["format-quality": "gif"], "--format-quality 'gif' is not format=quality with an image format (jpeg, webp, avif, ...)"),
            (["format-quality": "bmpx=5"], "--format-quality 'bmpx=5' is not format=quality with an image format (jpeg, webp, avif, ...)"),
        ]
        for (flags, message) in cases {
            #expect(throws: SettingsError(message)) { try ServerSettings(flags: flags, environment: [:]) }
        }
    }
}
