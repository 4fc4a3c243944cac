import Foundation
import LoupeCodecs
import LoupeLoading
import LoupeServer
import LoupeTestSupport
import Testing

/// Animated sources through the service's routes: every frame through imgproxy's geometry, written as animated
/// GIF or WebP with each frame's delay and the loop count (read back with Pillow), the first
/// frame where the format cannot animate, `max_animation_frames`, and the frames × pixels limit
/// checked from the header before a frame is decoded.
@Suite struct AnimationTests {
    /// What Pillow reads from an image (Scripts/conformance/animation_reference.py `describe`).
    struct Description: Decodable {
        let format: String
        let frames: Int
        let loop: Int?
        let durations: [Int?]
        let sizes: [[Int]]
        let centres: [[Int]]
    }

    /// The colours `animation_reference.py make` gives its frames, in order (its `colour`).
    static let frameColours: [[Int]] = [
        [230, 25, 75], [60, 180, 75], [255, 225, 25], [0, 130, 200], [245, 130, 48],
        [145, 30, 180], [70, 240, 240], [240, 50, 230], [250, 190, 212], [0, 128, 128],
    ]

    /// A local root holding what a test made; removed by the caller.
    static func folder() throws -> TemporaryFolder { try TemporaryFolder.created() }

    static func make(_ name: String, in folder: TemporaryFolder, frames: Int, width: Int, height: Int, loop: Int) async throws {
        _ = try await PythonReference.run("animation_reference.py",
                                          arguments: ["make", folder.path(name), "\(frames)", "\(width)", "\(height)", "\(loop)"])
    }

    static func describe(_ data: Data, in folder: TemporaryFolder) async throws -> Description {
        let path = folder.path("result-\(UUID().uuidString)")
        try data.write(to: URL(fileURLWithPath: path))
        let output = try await PythonReference.run("animation_reference.py", arguments: ["describe", path])
        return try JSONDecoder().decode(Description.self, from: output)
    }

    static func settings(root: TemporaryFolder, maximumAnimationFrames: Int) throws -> ServerSettings {
        var settings = testSettings()
        settings.localRoot = try RootedFileSystem(root: root.url.path)
        settings.maximumAnimationFrames = maximumAnimationFrames
        return settings
    }

    /// Whether `pixel` (RGBA) is within `tolerance` of `colour` (RGB) in every channel and opaque.
    static func matches(_ pixel: [Int], _ colour: [Int], tolerance: Int = 24) -> Bool {
        pixel.count == 4 && pixel[3] == 255 && zip(pixel, colour).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test(arguments: ["gif", "webp"])
    func resizedAnimationKeepsFramesDelaysAndLoops(_ format: String) async throws {
        let root = try Self.folder()
        defer { root.remove() }
        try await Self.make("a.\(format)", in: root, frames: 6, width: 240, height: 160, loop: 3)
        try await RoutedServer.with(try Self.settings(root: root, maximumAnimationFrames: 100)) { server in
            let answer = try await server.request("/insecure/rs:fill:100:100/plain/local:///a.\(format)")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "image/\(format)")
            let result = try await Self.describe(answer.body, in: root)
            #expect(result.format == format.uppercased())
            #expect(result.frames == 6)
            #expect(result.loop == 3)
            #expect(result.durations == (0..<6).map { 40 + 10 * $0 })
            #expect(result.sizes.allSatisfy { $0 == [100, 100] })
            for (index, centre) in result.centres.enumerated() {
                #expect(Self.matches(centre, Self.frameColours[index]), "frame \(index): \(centre)")
            }
        }
    }

    /// A real animation (gdk-pixbuf's test corpus): 56 frames of 350x189, delays of 4 s then 0.
    @Test func corpusAnimatedGIFKeepsItsFrames() async throws {
        let root = try Self.folder()
        defer { root.remove() }
        let source = try Corpus.data("gdk-pixbuf/aero.gif")
        try source.write(to: URL(fileURLWithPath: root.path("aero.gif")))
        let original = try await Self.describe(source, in: root)
        try await RoutedServer.with(try Self.settings(root: root, maximumAnimationFrames: 1_000)) { server in
            let answer = try await server.request("/insecure/rs:fill:100:100/plain/local:///aero.gif")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "image/gif")
            let result = try await Self.describe(answer.body, in: root)
            #expect(result.frames == original.frames)
            #expect(result.frames == 56)
            #expect(result.loop == original.loop)
            #expect(result.durations == original.durations)
            #expect(result.sizes.allSatisfy { $0 == [100, 100] })
        }
    }

    /// `max_animation_frames`: the setting keeps that many frames and drops the rest; a URL may
    /// lower it, never raise it; 1 (imgproxy's default) answers the first frame.
    @Test func maxAnimationFramesTruncates() async throws {
        let root = try Self.folder()
        defer { root.remove() }
        try await Self.make("a.gif", in: root, frames: 6, width: 60, height: 40, loop: 0)
        try await RoutedServer.with(try Self.settings(root: root, maximumAnimationFrames: 4)) { server in
            for (options, frames) in [("rs:fit:30:30", 4), ("rs:fit:30:30/maf:2", 2), ("rs:fit:30:30/max_animation_frames:50", 4),
                                      ("rs:fit:30:30/maf:1", 1)] {
                let answer = try await server.request("/insecure/\(options)/plain/local:///a.gif")
                #expect(answer.status == 200, "\(options)")
                let result = try await Self.describe(answer.body, in: root)
                #expect(result.frames == frames, "\(options)")
                #expect(result.sizes.allSatisfy { $0 == [30, 20] }, "\(options)")
                #expect(result.centres.enumerated().allSatisfy { Self.matches($1, Self.frameColours[$0]) }, "\(options)")
            }
            // Enlarged, the frames scaled before the fill's crop pass the side limit: refused by
            // that limit (planned once from the header, before the decode), not by cost.
            let enlarged = try await server.request("/insecure/rs:fill:8000:8000/el:1/plain/local:///a.gif")
            #expect(enlarged.status == 422 && enlarged.json["kind"] as? String == "processingFailed")
            #expect(enlarged.json["message"] as? String
                == "processing failed: the image scaled to 12000x8000 (before its cut to 8000x8000) would exceed 8192 pixels per side",
                "\(enlarged.json)")
            let bad = try await server.request("/insecure/maf:0/plain/local:///a.gif")
            #expect(bad.status == 400 && bad.json["kind"] as? String == "badOption")
            // /info reports every frame of the source, whatever the limit keeps.
            let info = try await server.request("/info/insecure/plain/local:///a.gif")
            #expect(info.status == 200)
            #expect(info.json["frames"] as? Int == 6)
        }
        // Loupe's default keeps an animation animated (imgproxy's default, 1, is a setting away).
        try await RoutedServer.with(try Self.settings(root: root, maximumAnimationFrames: ServerSettings().maximumAnimationFrames)) { server in
            let answer = try await server.request("/insecure/rs:fit:30:30/plain/local:///a.gif")
            #expect(answer.status == 200)
            let result = try await Self.describe(answer.body, in: root)
            #expect(result.frames == 6)
            #expect(result.format == "GIF")
        }
        try await RoutedServer.with(try Self.settings(root: root, maximumAnimationFrames: 1)) { server in
            let answer = try await server.request("/insecure/rs:fit:30:30/plain/local:///a.gif")
            #expect(answer.status == 200)
            let result = try await Self.describe(answer.body, in: root)
            #expect(result.frames == 1)
            #expect(result.format == "GIF")
        }
    }

    /// Formats: `@gif` of a still; `@jpg`, `@png` and `@avif` of an animation are its first frame;
    /// WebP negotiated from `Accept` keeps the animation, and so does a negotiated AVIF, as WebP.
    @Test func formatsOfStillsAndAnimations() async throws {
        let root = try Self.folder()
        defer { root.remove() }
        try await Self.make("a.gif", in: root, frames: 3, width: 60, height: 40, loop: 0)
        try TestImage.png(width: 64, height: 48, seed: 2).write(to: URL(fileURLWithPath: root.path("still.png")))
        var settings = try Self.settings(root: root, maximumAnimationFrames: 10)
        settings.negotiatesAVIF = true
        try await RoutedServer.with(settings) { server in
            let still = try await server.request("/insecure/rs:fit:32:32/plain/local:///still.png@gif")
            #expect(still.status == 200 && still.header("Content-Type") == "image/gif")
            let stillResult = try await Self.describe(still.body, in: root)
            #expect(stillResult.format == "GIF" && stillResult.frames == 1 && stillResult.sizes == [[32, 24]])

            for (format, pillow) in [("jpg", "JPEG"), ("png", "PNG")] {
                let answer = try await server.request("/insecure/plain/local:///a.gif@\(format)")
                #expect(answer.status == 200, "\(format)")
                let result = try await Self.describe(answer.body, in: root)
                #expect(result.format == pillow && result.frames == 1, "\(format)")
                #expect(Self.matches(result.centres.first ?? [], Self.frameColours[0]), "\(format)")
            }

            let negotiated = try await server.request("/insecure/plain/local:///a.gif", headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(negotiated.status == 200 && negotiated.header("Content-Type") == "image/webp")
            let webp = try await Self.describe(negotiated.body, in: root)
            #expect(webp.frames == 3)
            let gifOnly = try await server.request("/insecure/plain/local:///a.gif", headers: [("Accept", "image/avif,*/*")])
            #expect(gifOnly.status == 200 && gifOnly.header("Content-Type") == "image/gif")
            #expect(try await Self.describe(gifOnly.body, in: root).frames == 3)
        }
    }

    /// A GIF of `frames` frames of `width`x`height` whose image data is garbage: the header and
    /// every frame's descriptor are valid, so a walk of the file counts the frames, but no
    /// frame decodes.
    static func corruptGIF(frames: Int, width: Int, height: Int) -> Data {
        var bytes = Array("GIF89a".utf8)
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        bytes += le16(width) + le16(height) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]  // 2-colour global table
        for _ in 0..<frames {
            bytes += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0]
            // LZW minimum code size 2, then a block of codes that are not a valid stream.
            bytes += [2, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0]
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    /// 2,000 frames of 100x100 (20 megapixels in all) against a 1-megapixel limit: refused
    /// with 422 from the header walk. The frames are garbage, so the refusal cannot have come
    /// from decoding one: decoding the first frame alone (within the limit) fails as corrupt.
    @Test func framesTimesPixelsOverTheLimitAreRefusedBeforeDecoding() async throws {
        let root = try Self.folder()
        defer { root.remove() }
        try Self.corruptGIF(frames: 2_000, width: 100, height: 100).write(to: URL(fileURLWithPath: root.path("many.gif")))
        var settings = try Self.settings(root: root, maximumAnimationFrames: 2_000)
        settings.maximumSourcePixels = 1_000_000
        try await RoutedServer.with(settings) { server in
            let refused = try await server.request("/insecure/rs:fit:50:50/plain/local:///many.gif")
            #expect(refused.status == 422)
            #expect(refused.json["kind"] as? String == "tooManyPixels")
            #expect((refused.json["message"] as? String)?.contains("2000 frames") == true)
            let firstFrame = try await server.request("/insecure/rs:fit:50:50/maf:1/plain/local:///many.gif")
            #expect(firstFrame.status == 422)
            #expect(firstFrame.json["kind"] as? String == "corruptImage")
        }
    }

    /// Animations cut short anywhere answer 200 (the frames that arrived, as browsers show a
    /// truncated GIF) or a 4xx, never a 5xx; cut inside the header, always a 4xx.
    @Test func truncatedAnimationsNeverFailTheServer() async throws {
        let root = try Self.folder()
        defer { root.remove() }
        try await Self.make("a.gif", in: root, frames: 4, width: 64, height: 48, loop: 0)
        try await Self.make("a.webp", in: root, frames: 4, width: 64, height: 48, loop: 0)
        try await RoutedServer.with(try Self.settings(root: root, maximumAnimationFrames: 10)) { server in
            for format in ["gif", "webp"] {
                let whole = try Data(contentsOf: URL(fileURLWithPath: root.path("a.\(format)")))
                let cuts = [8, 13, 30, whole.count / 3, whole.count / 2, whole.count - 20, whole.count - 1]
                for cut in cuts where cut > 0 && cut < whole.count {
                    let name = "cut-\(cut).\(format)"
                    try whole.prefix(cut).write(to: URL(fileURLWithPath: root.path(name)))
                    for options in ["rs:fill:32:32", "rs:fill:32:32/f:webp", "rs:fill:32:32/f:gif"] {
                        let answer = try await server.request("/insecure/\(options)/plain/local:///\(name)")
                        #expect(answer.status == 200 || (400..<500).contains(answer.status), "\(name) \(options): \(answer.status)")
                        if cut <= 13 { #expect((400..<500).contains(answer.status), "\(name) \(options)") }
                    }
                }
            }
        }
    }
}
