import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// The gif-test-suite (shipped in gdk-pixbuf's tests): each case has a .conf naming the
/// expected canvas, loop count, and every frame's exact RGBA and delay.
struct GIFSuiteCase: CustomTestStringConvertible, Sendable {
    let name: String
    let input: String
    let width: Int
    let height: Int
    let loopCount: String
    /// (rgba file, delay in centiseconds)
    let frames: [(String, Int)]

    var testDescription: String { name }

    static let folder = "gdk-pixbuf/gif-test-suite"

    /// The cases the suite's TESTS file enables (gdk-pixbuf runs the same list; lines starting
    /// with '#' are cases whose expectations group several images into one frame, which
    /// neither gdk-pixbuf nor browsers do).
    static func enabled() -> [GIFSuiteCase] {
        guard let list = try? String(contentsOf: Corpus.url("\(folder)/TESTS"), encoding: .utf8) else { return [] }
        let names = Set(list.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { "\($0).conf" })
        return all().filter { names.contains($0.name) }
    }

    static func all() -> [GIFSuiteCase] {
        guard let confs = try? Corpus.files(in: folder, suffixes: [".conf"]) else { return [] }
        return confs.compactMap { path in
            guard let text = try? String(contentsOf: Corpus.url(path), encoding: .utf8) else { return nil }
            var sections: [String: [String: String]] = [:]
            var current = ""
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                if line.hasPrefix("[") { current = String(line.dropFirst().dropLast()); continue }
                let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { sections[current, default: [:]][parts[0]] = parts[1] }
            }
            guard let config = sections["config"], let input = config["input"] else { return nil }
            let names = (config["frames"] ?? "").split(separator: ",").map(String.init)
            let frames = names.map { (sections[$0]?["pixels"] ?? "", Int(sections[$0]?["delay"] ?? "0") ?? 0) }
            return GIFSuiteCase(name: (path as NSString).lastPathComponent, input: "\(folder)/\(input)",
                                width: Int(config["width"] ?? "") ?? 0, height: Int(config["height"] ?? "") ?? 0,
                                loopCount: config["loop-count"] ?? "0", frames: frames.map { ("\(folder)/\($0.0)", $0.1) })
        }
    }
}

/// Where LoupeCodecs knowingly differs from an enabled gif-test-suite case, and why.
let gifSuiteDeviations: [String: String] = [
    // The suite wants the Plain Text Extension rendered (it has no expected frames); like
    // browsers, we ignore the text and show the image that follows it.
    "plain-text.conf": "plain text extension is ignored",
    // giflib refuses this file's image descriptor (the LZW minimum code size byte is outside
    // what it accepts); the refusal is a typed error, not a crash.
    "max-codes.conf": "giflib refuses the image descriptor",
]

@Suite struct GIFTests {
    static let suite = GIFSuiteCase.enabled().filter { gifSuiteDeviations[$0.name] == nil }

    @Test func theSuiteIsThere() { #expect(Self.suite.count >= 60) }

    /// Frames are compared byte for byte with the expected RGBA (transparent = 0,0,0,0);
    /// cases that expect no frames must fail with a typed error.
    @Test(arguments: suite)
    func matchesExpectedFrames(testCase: GIFSuiteCase) throws {
        let data = try Corpus.data(testCase.input)
        guard !testCase.frames.isEmpty else {
            #expect(throws: ImageCodecError.self, "\(testCase.name) should be refused") { try ImageDecoder().decode(data) }
            return
        }
        let image = try ImageDecoder().decode(data)
        #expect(image.metadata.width == testCase.width && image.metadata.height == testCase.height)
        #expect(image.frames.count == testCase.frames.count)
        #expect(image.metadata.frameCount == testCase.frames.count)
        for (frame, (rgba, delay)) in zip(image.frames, testCase.frames) {
            let expected = [UInt8](try Corpus.data(rgba))
            let mismatch = zip(frame.bitmap.pixels, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(frame.bitmap.pixels.count == expected.count, "\(testCase.name): frame \(rgba) size")
            #expect(mismatch == nil, "\(testCase.name): frame \(rgba) differs at byte \(mismatch ?? -1)")
            #expect(frame.duration == .milliseconds(delay * 10), "\(testCase.name): delay")
        }
        if testCase.frames.count > 1 {
            let expectedLoops = testCase.loopCount == "infinite" ? 0 : Int(testCase.loopCount)
            #expect(image.metadata.loopCount == expectedLoops, "\(testCase.name): loops")
        }
    }

    @Test func knownDeviationsBehaveAsDocumented() throws {
        let text = try ImageDecoder().decode(Corpus.data("\(GIFSuiteCase.folder)/plain-text.gif"))
        #expect(text.frames.count == 1 && text.bitmap.width == 40)
        #expect(throws: ImageCodecError.self) { try ImageDecoder().decode(Corpus.data("\(GIFSuiteCase.folder)/max-codes.gif")) }
    }

    /// A case the suite disables only for its frame grouping: a background image without a
    /// graphic control block, then four 1x1 frames with disposal "restore previous". We show
    /// the background as its own frame (as browsers do); the four frames after it must match
    /// the suite's four expected frames exactly, which exercises restore-to-previous.
    @Test func restoreToPreviousDisposal() throws {
        let image = try ImageDecoder().decode(Corpus.data("\(GIFSuiteCase.folder)/dispose-restore-previous.gif"))
        #expect(image.frames.count == 5)
        for (index, frame) in image.laterFrames.enumerated() {
            let expected = [UInt8](try Corpus.data("\(GIFSuiteCase.folder)/animation.\(index).rgba"))
            #expect(frame.bitmap.pixels == expected, "frame \(index + 1)")
            #expect(frame.duration == .milliseconds(500))
        }
    }

    /// Frame counts of real animations, as `vipsheader -f n-pages` reports them.
    @Test(arguments: [("gdk-pixbuf/1_partyanimsm2.gif", 660, 666, 45), ("gdk-pixbuf/aero.gif", 350, 189, 56),
                      ("gdk-pixbuf/circular-table.gif", 640, 360, 9), ("gdk-pixbuf/test-animation.gif", 17, 17, 10),
                      ("skimage/no_time_for_that_tiny.gif", 14, 25, 24)])
    func realAnimationsDecodeEveryFrame(path: String, width: Int, height: Int, frames: Int) throws {
        let image = try decodeCorpus(path)
        #expect(image.metadata.width == width && image.metadata.height == height)
        #expect(image.metadata.frameCount == frames)
        #expect(image.frames.count == frames)
        #expect(image.frames.allSatisfy { $0.bitmap.width == width && $0.bitmap.height == height })
        let first = try decodeCorpus(path, options: DecodingOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        #expect(first.bitmap == image.bitmap)
    }

    @Test func goGIFsMatchTheirPNGReference() throws {
        // Go ships video-001.png as the lossless original; the GIF is its 256-colour version.
        for path in ["go-image/video-001.gif", "go-image/video-001.interlaced.gif", "go-image/video-001.5bpp.gif"] {
            let image = try decodeCorpus(path)
            let reference = try decodeCorpus("go-image/video-001.png")
            #expect(PixelDifference(image.bitmap, reference.bitmap).mean < 8, "\(path)")
        }
        let plain = try decodeCorpus("go-image/video-001.gif"), interlaced = try decodeCorpus("go-image/video-001.interlaced.gif")
        #expect(interlaced.metadata.isProgressive)
        #expect(plain.bitmap == interlaced.bitmap)
    }
}
