import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

@Suite struct LimitTests {
    @Test func pixelLimitRefusesBeforeDecoding() throws {
        let data = try ImageEncoder().encode(try gradientBitmap(width: 100, height: 60), as: .png)
        let options = DecodingOptions(limits: DecodingLimits(maxPixelCount: 5_999))
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 100, height: 60, limit: 5_999)) {
            try ImageDecoder().decode(data, options: options)
        }
        // The limit is inclusive.
        let fits = DecodingOptions(limits: DecodingLimits(maxPixelCount: 6_000))
        #expect(try ImageDecoder().decode(data, options: fits).bitmap.width == 100)
    }

    @Test(arguments: [ImageEncoder.Format.jpeg(quality: 80), .webp(quality: 80)])
    func pixelLimitAppliesToEveryFormat(format: ImageEncoder.Format) throws {
        let data = try ImageEncoder().encode(try gradientBitmap(width: 50, height: 50), as: format)
        let options = DecodingOptions(limits: DecodingLimits(maxPixelCount: 2_000))
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 50, height: 50, limit: 2_000)) {
            try ImageDecoder().decode(data, options: options)
        }
    }

    /// gdk-pixbuf's bomb: a 1.4 KB JPEG declaring 64250 x 64250 (4.1 gigapixels).
    @Test func refusesTheJPEGBomb() throws {
        let data = try Corpus.data("gdk-pixbuf/issue205.jpg")
        #expect(data.count < 1_500)
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 64_250, height: 64_250, limit: 100_000_000)) {
            try ImageDecoder().decode(data)
        }
    }

    /// gdk-pixbuf's bomb: a 95-byte PNG declaring 935,820 x 854,554.
    @Test func refusesThePNGBomb() throws {
        let data = try Corpus.data("gdk-pixbuf/fail/bug793470-crasher.png")
        #expect(data.count == 95)
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 935_820, height: 854_554, limit: 100_000_000)) {
            try ImageDecoder().decode(data)
        }
    }

    @Test func refusesHugeButValidFilesFromTheHeader() throws {
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 22_500, height: 33_300, limit: 100_000_000)) {
            try decodeCorpus("gdk-pixbuf/large.jpg")
        }
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 25_200, height: 33_300, limit: 100_000_000)) {
            try decodeCorpus("gdk-pixbuf/large.png")
        }
        #expect(try ImageDecoder().metadata(of: Corpus.data("gdk-pixbuf/large.png")).width == 25_200)
    }

    @Test func frameLimitRefusesLongAnimations() throws {
        // aero.gif has 56 frames.
        let limited = DecodingOptions(limits: DecodingLimits(maxFrameCount: 10))
        #expect(throws: ImageCodecError.frameLimitExceeded(frames: 11, limit: 10)) {
            try decodeCorpus("gdk-pixbuf/aero.gif", options: limited)
        }
        // First-frame-only decoding needs just one frame within the limit.
        let first = DecodingOptions(firstFrameOnly: true, limits: DecodingLimits(maxFrameCount: 10))
        #expect(try decodeCorpus("gdk-pixbuf/aero.gif", options: first).frames.count == 1)
    }

    @Test func totalPixelLimitCoversAllFrames() throws {
        // 56 frames of 350 x 189 = 3,704,400 pixels in all.
        let options = DecodingOptions(limits: DecodingLimits(maxTotalPixelCount: 3_000_000))
        #expect(throws: ImageCodecError.totalPixelLimitExceeded(frames: 56, pixelsPerFrame: 66_150, limit: 3_000_000)) {
            try decodeCorpus("gdk-pixbuf/aero.gif", options: options)
        }
    }
}
