import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `loupe serve`'s watermark as a real child process: a watermark that cannot be loaded stops
/// start-up with one line naming the setting, and SIGHUP re-reads a changed file.
@Suite struct ServeWatermarkTests {
    static func png(width: Int, height: Int, _ rgb: (UInt8, UInt8, UInt8)) throws -> Data {
        try ImageEncoder().encode(try Bitmap(width: width, height: height,
                                             pixels: (0..<width * height).flatMap { _ in [rgb.0, rgb.1, rgb.2, 255] }), as: .png)
    }

    @Test func anUnloadableWatermarkStopsStartUpWithStatus2() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let missing = home.appendingPathComponent("absent.png").path
        let run = try await LoupeRun.run(["serve", "--port", "0", "--watermark-path", missing], home: home, timeout: .seconds(30))
        #expect(run.status == 2)
        #expect(run.standardError == "loupe serve: --watermark-path '\(missing)' cannot be read\n")
        #expect(!run.standardOutput.contains("listening"))
    }

    /// The centre pixel is the red mark's; after the file turns blue and SIGHUP, once the server
    /// has logged the reload, the same URL gives blue (the mark is part of the result key); after
    /// a broken file and SIGHUP, once it has logged the failed reload, still blue and the server
    /// still running.
    @Test func sighupReloadsAChangedWatermarkFile() async throws {
        let folder = try TemporaryFolder.created()
        let markPath = folder.path("mark.png")
        try Self.png(width: 10, height: 10, (255, 0, 0)).write(to: URL(fileURLWithPath: markPath))
        let source = try Self.png(width: 100, height: 80, (255, 255, 255))
        try await OriginServer.run(handler: { _ in .ok(source, contentType: "image/png") }) { origin in
            let child = try ServeProcess([
                "--port", "0", "--allow-unsigned", "--permit-addresses", "127.0.0.1", "--quiet", "--watermark-path", markPath,
            ])
            defer { child.kill() }
            let port = try await child.port()
            let path = "/insecure/wm:1:ce/plain/\(origin.url("/white.png").absoluteString)@png"
            func centre() async throws -> [UInt8] {
                let answer = try await httpGet(port: port, path: path)
                let pixel = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true)).bitmap.pixel(x: 50, y: 40)
                return [pixel.r, pixel.g, pixel.b]
            }
            #expect(try await centre() == [255, 0, 0])
            try Self.png(width: 10, height: 10, (0, 0, 255)).write(to: URL(fileURLWithPath: markPath))
            child.signal(SIGHUP)
            try await child.waitForLog("\"watermark reloaded\"")
            #expect(try await centre() == [0, 0, 255])
            try Data("not an image".utf8).write(to: URL(fileURLWithPath: markPath))
            child.signal(SIGHUP)
            try await child.waitForLog("watermark reload failed")
            #expect(try await centre() == [0, 0, 255])
            // The reload that worked was the only one.
            #expect(child.child.text(.standardError).components(separatedBy: "\"watermark reloaded\"").count == 2)
            child.signal(SIGTERM)
            #expect(try await child.waitForExit(timeout: .seconds(30)) == 0)
        }
    }
}
