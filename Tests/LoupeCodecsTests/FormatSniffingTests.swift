import Foundation
import Testing
@testable import LoupeCodecs

@Suite struct FormatSniffingTests {
    @Test func recognisesEachSignature() {
        #expect(ImageFormat(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat(sniffing: Array("GIF87a".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
    }

    @Test func rejectsLookalikes() {
        #expect(ImageFormat(sniffing: [UInt8]()) == nil)
        #expect(ImageFormat(sniffing: [0xFF, 0xD8]) == nil)
        #expect(ImageFormat(sniffing: Array("GIF88a".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("<svg xmlns=".utf8)) == nil)
    }

    @Test func decoderRefusesUnknownBytesWithATypedError() {
        #expect(throws: ImageCodecError.unrecognizedFormat) { try ImageDecoder().decode(Data("hello".utf8)) }
        #expect(throws: ImageCodecError.unrecognizedFormat) { try ImageDecoder().metadata(of: Data()) }
    }

    @Test func sniffsEncodedOutputOfEveryEncoder() throws {
        let bitmap = try gradientBitmap(width: 8, height: 8)
        let formats: [ImageEncoder.Format] = [.jpeg(quality: 80), .png, .webp(quality: 80), .webpLossless]
        for format in formats {
            let data = try ImageEncoder().encode(bitmap, as: format)
            #expect(ImageFormat(sniffing: data) == format.imageFormat)
        }
    }
}
