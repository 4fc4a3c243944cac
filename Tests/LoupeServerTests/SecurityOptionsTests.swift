import Foundation
import LoupeCodecs
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's security options in URLs: `max_src_resolution`, `max_src_file_size` and
/// `max_animation_frame_resolution` lower the server's limits for one URL (a source over them is
/// a 422, as in imgproxy); `IMGPROXY_ALLOW_SECURITY_OPTIONS=false` refuses every security option
/// with a 403, as imgproxy does.
@Suite struct SecurityOptionsTests {
    /// A local root with gdk-pixbuf's 640×428 JPEG (0.27 megapixels) and a six-frame GIF; `body` gets the JPEG's size.
    static func server(allowing: Bool = true, _ body: @Sendable (RoutedServer, Int) async throws -> Void) async throws {
        let folder = try AnimationTests.folder()
        defer { folder.remove() }
        let photo = try Corpus.data("gdk-pixbuf/bug725582-testrotate.jpg")
        try photo.write(to: URL(fileURLWithPath: folder.path("photo.jpg")))
        try await AnimationTests.make("a.gif", in: folder, frames: 6, width: 60, height: 40, loop: 0)
        var settings = try AnimationTests.settings(root: folder, maximumAnimationFrames: 100)
        settings.urlParsing.allowsSecurityOptions = allowing
        try await RoutedServer.with(settings) { server in try await body(server, photo.count) }
    }

    @Test func aSourceOverTheURLsResolutionIsRefusedFromItsHeader() async throws {
        try await Self.server { server, _ in
            for options in ["msr:0.2", "max_src_resolution:0.2/rs:fit:100:100", "msr:0.2/w:50/bl:2"] {
                let refused = try await server.request("/insecure/\(options)/plain/local:///photo.jpg@png")
                #expect(refused.status == 422, "\(options)")
                #expect(refused.json["kind"] as? String == "tooManyPixels", "\(options)")
                #expect((refused.json["message"] as? String)?.contains("max_src_resolution") == true, "\(options)")
            }
            try await server.expectImage("/insecure/msr:0.3/rs:fit:100:100/plain/local:///photo.jpg@png", format: .png, width: 67, height: 100)
            let bad = try await server.request("/insecure/msr:0/plain/local:///photo.jpg")
            #expect(bad.status == 400)
        }
    }

    @Test func aSourceOverTheURLsFileSizeIsRefused() async throws {
        try await Self.server { server, bytes in
            let refused = try await server.request("/insecure/msfs:\(bytes - 1)/w:50/plain/local:///photo.jpg@png")
            #expect(refused.status == 422)
            #expect(refused.json["kind"] as? String == "sourceFileTooLarge")
            try await server.expectImage("/insecure/msfs:\(bytes)/w:50/plain/local:///photo.jpg@png", format: .png, width: 50, height: 75)
            try await server.expectImage("/insecure/msfs:0/w:50/plain/local:///photo.jpg@png", format: .png, width: 50, height: 75)
        }
    }

    /// Six 60×40 frames: 14,400 pixels in all, 2,400 a frame. For an animation, the frame
    /// resolution takes the place of the source resolution.
    @Test func anAnimationIsCheckedByItsFramesOrByEachFrame() async throws {
        try await Self.server { server, _ in
            let whole = try await server.request("/insecure/msr:0.01/plain/local:///a.gif")
            #expect(whole.status == 422)
            #expect((whole.json["message"] as? String)?.contains("6 frames") == true, "\(String(decoding: whole.body, as: UTF8.self))")
            let perFrame = try await server.request("/insecure/msr:0.01/mafr:0.003/plain/local:///a.gif")
            #expect(perFrame.status == 200)
            let frameTooLarge = try await server.request("/insecure/mafr:0.002/plain/local:///a.gif")
            #expect(frameTooLarge.status == 422)
            #expect((frameTooLarge.json["message"] as? String)?.contains("max_animation_frame_resolution") == true)
            // One frame decoded: a still image, checked by the source resolution alone.
            let firstFrame = try await server.request("/insecure/maf:1/mafr:0.002/plain/local:///a.gif")
            #expect(firstFrame.status == 200)
        }
    }

    @Test func switchedOffEverySecurityOptionIsA403() async throws {
        try await Self.server(allowing: false) { server, _ in
            for options in ["msr:50", "msfs:1000000", "mafr:1", "maf:2", "mrd:500", "max_result_dimension:500"] {
                let refused = try await server.request("/insecure/\(options)/w:50/plain/local:///photo.jpg@png")
                #expect(refused.status == 403, "\(options)")
                #expect(refused.json["kind"] as? String == "forbiddenOption", "\(options)")
            }
            try await server.expectImage("/insecure/w:50/plain/local:///photo.jpg@png", format: .png, width: 50, height: 75)
        }
        let settings = try ServerSettings(flags: [:], environment: ["IMGPROXY_ALLOW_SECURITY_OPTIONS": "false"])
        #expect(settings.urlParsing.allowsSecurityOptions == false)
        #expect(try ServerSettings(flags: [:], environment: [:]).urlParsing.allowsSecurityOptions)
    }
}
