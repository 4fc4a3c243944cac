import Foundation
import LoupeCodecs
import Testing

/// 16-bit PNG through the codecs: `ImageEncoder.keepsDeepSamples` writes a bitmap's
/// `deepSamples` as a 16-bit file (RGB16, RGBA16, Grey16 with `keepsGrey`), libpng reads it back
/// with `DecodingOptions.keepsDeepSamples` to the same samples — values an 8-bit path cannot
/// hold (not multiples of 257) — and its 8-bit pixels are their rounding; without the option a
/// 16-bit file decodes to 8 bits as before, and an 8-bit one never gains deep samples.
@Suite struct DeepSampleCodingTests {
    /// A `width`×`height` RGBA16 ramp: every sample distinct along a row, most not multiples of 257.
    static func ramp(width: Int = 40, height: Int = 12, grey: Bool = false, alpha: (Int) -> UInt16 = { _ in 65535 }) -> [UInt16] {
        (0..<width * height).flatMap { index -> [UInt16] in
            let x = index % width, y = index / width
            let red = UInt16(x * 1601 + y * 13 + 7)
            return grey ? [red, red, red, alpha(index)] : [red, UInt16(65535 - x * 997 - y), UInt16(x * y * 31 + 3), alpha(index)]
        }
    }

    static let keeping: DecodingOptions = {
        var options = DecodingOptions()
        options.keepsDeepSamples = true
        return options
    }()

    /// IHDR's bit depth and colour type.
    static func header(_ png: Data) -> [Int] { [Int(png[png.startIndex + 24]), Int(png[png.startIndex + 25])] }

    @Test func sixteenBitPNGRoundTripsItsSamples() throws {
        let cases: [(samples: [UInt16], grey: Bool, header: [Int])] = [
            (Self.ramp(), false, [16, 2]),
            (Self.ramp(alpha: { UInt16(($0 * 4099) % 65536) }), false, [16, 6]),
            (Self.ramp(grey: true), true, [16, 0]),
            (Self.ramp(grey: true, alpha: { UInt16(($0 * 523) % 65536) }), true, [16, 4]),
        ]
        for (samples, grey, header) in cases {
            let bitmap = try Bitmap(width: 40, height: 12, deepSamples: samples)
            #expect(bitmap.pixels.count == samples.count)
            #expect(bitmap.pixel(x: 3, y: 2).r == Bitmap.eightBit(samples[(2 * 40 + 3) * 4]))
            let png = try ImageEncoder(embedsSRGBProfile: false, keepsGrey: grey, keepsDeepSamples: true).encode(bitmap, as: .png)
            #expect(Self.header(png) == header)
            let decoded = try PNGDecoder().decode(png, options: Self.keeping)
            #expect(decoded.metadata.hasDeepSamples)
            #expect(decoded.bitmap.deepSamples == samples, "\(header): the same 16-bit samples")
            #expect(decoded.bitmap.pixels == bitmap.pixels, "\(header): the 8-bit pixels are their rounding")
            // Values no 8-bit path produces: (x * 1601 + 7) at x = 1 is 1608, not a multiple of 257.
            #expect(decoded.bitmap.deepSamples?[4] == 1608)
            #expect(decoded.bitmap.deepSamples.map { $0.contains { $0 % 257 != 0 } } == true)
            // Without the option: 8 bits as always, rounded the same way.
            let plain = try PNGDecoder().decode(png, options: DecodingOptions())
            #expect(plain.bitmap.deepSamples == nil)
            #expect(plain.bitmap.pixels == bitmap.pixels)
        }
    }

    @Test func eightBitFilesAndEncodersStayEightBit() throws {
        let bitmap = try Bitmap(width: 40, height: 12, deepSamples: Self.ramp())
        // The switch off: the 8-bit pixels are written.
        let eight = try ImageEncoder().encode(bitmap, as: .png)
        #expect(Self.header(eight) == [8, 2])
        let decoded = try PNGDecoder().decode(eight, options: Self.keeping)
        #expect(!decoded.metadata.hasDeepSamples)
        #expect(decoded.bitmap.deepSamples == nil)
        #expect(decoded.bitmap.pixels == bitmap.pixels)
        // Other formats write 8 bits whatever the switch says.
        let jpeg = try ImageEncoder(embedsSRGBProfile: false, keepsDeepSamples: true).encode(bitmap, as: .jpeg(quality: 90))
        #expect(try ImageDecoder().decode(jpeg, options: Self.keeping).bitmap.deepSamples == nil)
        // A bitmap made from 8-bit pixels has no deep samples; a rewrite of the pixels drops them.
        #expect(try Bitmap(width: 1, height: 1, pixels: [1, 2, 3, 4]).deepSamples == nil)
    }

    @Test func deepSamplesDecideGreyAndTransparency() throws {
        // 8-bit pixels that round to grey and opaque, over 16-bit samples that are neither.
        let bitmap = try Bitmap(width: 1, height: 1, deepSamples: [1000, 1001, 1000, 65534])
        #expect(bitmap.isGrey && !bitmap.hasTransparency)
        #expect(!bitmap.isDeepGrey && bitmap.hasDeepTransparency)
        let png = try ImageEncoder(embedsSRGBProfile: false, keepsGrey: true, keepsDeepSamples: true).encode(bitmap, as: .png)
        #expect(Self.header(png) == [16, 6])
        #expect(try PNGDecoder().decode(png, options: Self.keeping).bitmap.deepSamples == [1000, 1001, 1000, 65534])
        #expect(bitmap.byteCount == 4 + 8)
    }

    @Test func deepSampleCountMustMatchTheSize() {
        #expect(throws: ImageCodecError.self) { try Bitmap(width: 2, height: 2, deepSamples: [0, 0, 0, 0]) }
        #expect(throws: ImageCodecError.self) { try Bitmap(width: 0, height: 2, deepSamples: []) }
    }
}
