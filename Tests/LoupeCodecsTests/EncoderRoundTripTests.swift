import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

@Suite struct EncoderRoundTripTests {
    @Test func pngRoundTripIsExactWithAlpha() throws {
        let bitmap = try gradientBitmap(width: 37, height: 23, alpha: true)
        let data = try ImageEncoder().encode(bitmap, as: .png)
        let decoded = try ImageDecoder().decode(data)
        #expect(decoded.metadata == ImageMetadata(format: .png, width: 37, height: 23))
        #expect(decoded.bitmap == bitmap)
    }

    @Test func pngWithoutTransparencyIsWrittenAsRGBAndStaysExact() throws {
        let bitmap = try gradientBitmap(width: 16, height: 9)
        let data = try ImageEncoder().encode(bitmap, as: .png)
        // IHDR colour type byte (offset 25): 2 = RGB.
        #expect(data[25] == 2)
        #expect(try ImageDecoder().decode(data).bitmap == bitmap)
    }

    @Test func webpLosslessRoundTripIsExact() throws {
        let bitmap = try gradientBitmap(width: 40, height: 30, alpha: true)
        let data = try ImageEncoder().encode(bitmap, as: .webpLossless)
        let decoded = try ImageDecoder().decode(data)
        #expect(decoded.metadata.format == .webp)
        #expect(decoded.bitmap == bitmap)
    }

    @Test func jpegRoundTripStaysClose() throws {
        let bitmap = try gradientBitmap(width: 64, height: 48)
        for progressive in [false, true] {
            let data = try ImageEncoder().encode(bitmap, as: .jpeg(quality: 95, progressive: progressive))
            let decoded = try ImageDecoder().decode(data)
            #expect(decoded.metadata.isProgressive == progressive)
            #expect(decoded.metadata.width == 64 && decoded.metadata.height == 48)
            let difference = PixelDifference(decoded.bitmap, bitmap)
            #expect(difference.mean < 2, "mean error \(difference.mean)")
            #expect(difference.maximum < 16, "max error \(difference.maximum)")
        }
    }

    /// Noise compresses badly, so both encoders' output outgrows its first 64 KiB buffer several
    /// times (the doubling in CLoupeCodecs/encoder_setup.c) and must still come back whole.
    @Test func outputLargerThanTheFirstBufferComesBackWhole() throws {
        var random = SplitMix64(seed: 18)
        let side = 320
        // Grey noise: JPEG's halved chroma then costs nothing, so the decoded pixels stay close.
        var pixels: [UInt8] = []
        for _ in 0..<side * side {
            let grey = UInt8.random(in: 0...255, using: &random)
            pixels += [grey, grey, grey, 255]
        }
        let bitmap = try Bitmap(width: side, height: side, pixels: pixels)
        let png = try ImageEncoder().encode(bitmap, as: .png)
        #expect(png.count > 2 * 64 * 1024, "\(png.count) bytes")
        #expect(try ImageDecoder().decode(png).bitmap == bitmap)
        let jpeg = try ImageEncoder().encode(bitmap, as: .jpeg(quality: 100))
        #expect(jpeg.count > 2 * 64 * 1024, "\(jpeg.count) bytes")
        let decoded = try ImageDecoder().decode(jpeg)
        #expect(decoded.metadata.width == side && decoded.metadata.height == side)
        // The JPEG must end with its EOI marker: a lost tail would end elsewhere.
        #expect(jpeg.suffix(2) == Data([0xFF, 0xD9]))
        #expect(PixelDifference(decoded.bitmap, bitmap).mean < 8)
    }

    @Test func jpegQualityTradesSizeForError() throws {
        let bitmap = try gradientBitmap(width: 128, height: 128)
        let low = try ImageEncoder().encode(bitmap, as: .jpeg(quality: 20))
        let high = try ImageEncoder().encode(bitmap, as: .jpeg(quality: 95))
        #expect(low.count < high.count)
        let lowError = PixelDifference(try ImageDecoder().decode(low).bitmap, bitmap).mean
        let highError = PixelDifference(try ImageDecoder().decode(high).bitmap, bitmap).mean
        #expect(lowError > highError)
    }

    @Test func webpLossyKeepsAlphaAndStaysClose() throws {
        let bitmap = try gradientBitmap(width: 64, height: 64, alpha: true)
        let data = try ImageEncoder().encode(bitmap, as: .webp(quality: 90))
        let decoded = try ImageDecoder().decode(data).bitmap
        #expect(decoded.hasTransparency)
        // Alpha is compressed losslessly by default; colour is lossy (and libwebp may alter
        // colour under low alpha), so compare colour only where the pixel is nearly opaque.
        #expect(decoded.pixel(x: 0, y: 10).a == 255)
        #expect(decoded.pixel(x: 63, y: 10).a == bitmap.pixel(x: 63, y: 10).a)
        var total = 0, count = 0
        for y in 0..<64 { for x in 0..<16 { for c in 0..<3 {
            total += abs(Int(decoded.pixels[y * 256 + x * 4 + c]) - Int(bitmap.pixels[y * 256 + x * 4 + c])); count += 1
        } } }
        #expect(Double(total) / Double(count) < 4)
    }

    @Test func encoderRefusesImpossibleRequests() throws {
        let bitmap = try gradientBitmap(width: 4, height: 4)
        #expect(throws: ImageCodecError.invalidBitmap("JPEG quality 0 is outside 1...100")) {
            try ImageEncoder().encode(bitmap, as: .jpeg(quality: 0))
        }
        let wide = try Bitmap(width: 20_000, height: 1, pixels: [UInt8](repeating: 0, count: 80_000))
        #expect(throws: ImageCodecError.self) { try ImageEncoder().encode(wide, as: .webpLossless) }
    }

    @Test func bitmapRejectsGeometryItsBytesCannotHold() {
        #expect(throws: ImageCodecError.invalidDimensions(width: 0, height: 3)) {
            try Bitmap(width: 0, height: 3, pixels: [])
        }
        #expect(throws: ImageCodecError.self) { try Bitmap(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 15)) }
        #expect(throws: ImageCodecError.self) { try Bitmap(width: 2, height: 2, bytesPerRow: 7, pixels: [UInt8](repeating: 0, count: 64)) }
    }

    @Test func encodesFromAPaddedStride() throws {
        // 3x2 pixels with 4 bytes of padding per row: the padding must not leak into the image.
        var pixels = [UInt8](repeating: 0xEE, count: 16 * 2)
        for y in 0..<2 { for x in 0..<3 { for c in 0..<4 { pixels[y * 16 + x * 4 + c] = UInt8(y * 100 + x * 30 + c) } } }
        let padded = try Bitmap(width: 3, height: 2, bytesPerRow: 16, pixels: pixels)
        let decoded = try ImageDecoder().decode(try ImageEncoder().encode(padded, as: .png)).bitmap
        #expect(decoded.bytesPerRow == 12)
        for y in 0..<2 { for x in 0..<3 { #expect(decoded.pixel(x: x, y: y) == padded.pixel(x: x, y: y)) } }
    }
}
