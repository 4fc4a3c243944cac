import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

@Suite struct CorruptFileTests {
    static let failing = ((try? Corpus.files(in: "gdk-pixbuf/fail", suffixes: [".jpg", ".jpeg", ".png", ".gif", ".webp"])) ?? [])
    static let modified = (try? Corpus.files(in: "gdk-pixbuf/randomly-modified", suffixes: [".jpg", ".jpeg", ".png", ".gif", ".webp"])) ?? []

    /// gdk-pixbuf's fail/ folder: files its loaders must refuse. Each gives a typed error,
    /// except hang_114.gif (a hang in gdk-pixbuf), whose first frame is intact and followed by
    /// garbage: like browsers we show that frame, and the point is that it returns at all.
    @Test(arguments: failing)
    func refusesKnownBadFiles(path: String) throws {
        if path.hasSuffix("hang_114.gif") {
            #expect(try decodeCorpus(path).frames.count == 1)
        } else {
            #expect(throws: ImageCodecError.self, "\(path)") { try decodeCorpus(path) }
        }
    }

    /// Randomly modified files must never crash, hang or leak: either a typed error or an image.
    @Test(arguments: modified)
    func survivesRandomlyModifiedFiles(path: String) throws {
        do {
            // An image that decodes stays within the limits checked from its header.
            let image = try decodeCorpus(path)
            let limits = DecodingLimits()
            #expect(image.bitmap.width * image.bitmap.height <= limits.maxPixelCount, "\(path)")
            #expect(image.frames.count <= limits.maxFrameCount, "\(path)")
        } catch is ImageCodecError {
            // Refusal is a valid outcome.
        }
    }

    @Test func foldersAreThere() {
        #expect(Self.failing.count >= 15)
        #expect(Self.modified.count >= 5)
    }

    /// Every prefix of a valid file of each format: a typed error or an image, never a crash.
    @Test func everyTruncationOfEachFormatIsHandled() throws {
        let bitmap = try gradientBitmap(width: 24, height: 16, alpha: true)
        var sources: [Data] = try [ImageEncoder.Format.jpeg(quality: 80, progressive: true), .png, .webp(quality: 80), .webpLossless]
            .map { try ImageEncoder().encode(bitmap, as: $0) }
        sources.append(try Corpus.data("gdk-pixbuf/test-animation.gif"))
        for data in sources {
            for length in stride(from: 0, to: data.count, by: max(1, data.count / 97)) {
                do { _ = try ImageDecoder().decode(data.prefix(length)) } catch is ImageCodecError {}
            }
        }
    }

    @Test func wrongFormatBehindASignatureIsAnError() {
        var bytes = [UInt8]([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        bytes += Array("not a chunk at all".utf8)
        #expect(throws: ImageCodecError.self) { try ImageDecoder().decode(Data(bytes)) }
        #expect(throws: ImageCodecError.self) { try ImageDecoder().decode(Data([0xFF, 0xD8, 0xFF, 0xD9])) }
        #expect(throws: ImageCodecError.self) { try ImageDecoder().decode(Data(Array("GIF89a".utf8))) }
        #expect(throws: ImageCodecError.self) { try ImageDecoder().decode(Data(Array("RIFF\u{4}\u{0}\u{0}\u{0}WEBP".utf8))) }
    }
}
