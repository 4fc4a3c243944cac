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

    /// An uncompressed little-endian TIFF of `samplesPerPixel` 16-bit samples a pixel (1: grey,
    /// 3: RGB), one strip: the layout libtiff writes and cameras' 16-bit TIFFs use.
    static func tiff16(width: Int, height: Int, samplesPerPixel: Int, _ samples: [UInt16]) -> Data {
        var data = Data([0x49, 0x49, 42, 0])
        func u16(_ v: Int) { data.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]) }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16) }
        let entries = 9, ifd = 8, bitsAt = ifd + 2 + entries * 12 + 4, pixelsAt = bitsAt + 8
        u32(ifd)
        u16(entries)
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) {
            u16(tag); u16(type); u32(count)
            if type == 3, count == 1 { u16(value); u16(0) } else { u32(value) }
        }
        entry(256, 4, 1, width)
        entry(257, 4, 1, height)
        // BitsPerSample: inline for one sample, else at `bitsAt`.
        entry(258, 3, samplesPerPixel, samplesPerPixel == 1 ? 16 : bitsAt)
        entry(259, 3, 1, 1)
        entry(262, 3, 1, samplesPerPixel == 1 ? 1 : 2)
        entry(273, 4, 1, pixelsAt)
        entry(277, 3, 1, samplesPerPixel)
        entry(278, 4, 1, height)
        entry(279, 4, 1, samples.count * 2)
        u32(0)
        for _ in 0..<4 { u16(16) }
        for sample in samples { u16(Int(sample)) }
        return data
    }

    @Test func sixteenBitTIFFKeepsItsSamples() throws {
        let rgb = Self.ramp(width: 9, height: 5)
        let packed = stride(from: 0, to: rgb.count, by: 4).flatMap { rgb[$0..<$0 + 3] }
        let colour = try TIFFDecoder().decode(Self.tiff16(width: 9, height: 5, samplesPerPixel: 3, packed), options: Self.keeping)
        #expect(colour.metadata.hasDeepSamples && !colour.metadata.isGrey)
        #expect(colour.bitmap.deepSamples == rgb)
        let grey = Self.ramp(width: 9, height: 5, grey: true)
        let greyTIFF = Self.tiff16(width: 9, height: 5, samplesPerPixel: 1, stride(from: 0, to: grey.count, by: 4).map { grey[$0] })
        let decoded = try TIFFDecoder().decode(greyTIFF, options: Self.keeping)
        #expect(decoded.metadata.isGrey && decoded.bitmap.deepSamples == grey)
        #expect(decoded.bitmap.isDeepGrey)
        // Without the option: libtiff's 8-bit reading, as before.
        let plain = try TIFFDecoder().decode(greyTIFF, options: DecodingOptions())
        #expect(plain.bitmap.deepSamples == nil)
        #expect(abs(Int(plain.bitmap.pixels[4]) - Int(decoded.bitmap.pixels[4])) <= 1)
    }

    /// A 16-bit PNG with gAMA 1.0 (linear light) is converted to sRGB at 16 bits: the samples
    /// stay 16-bit, agree with the 8-bit conversion to a unit, and keep values between its steps.
    @Test func gammaIsConvertedAtSixteenBits() throws {
        let linear = Self.ramp()
        var png = [UInt8](try ImageEncoder(embedsSRGBProfile: false, keepsDeepSamples: true)
            .encode(try Bitmap(width: 40, height: 12, deepSamples: linear), as: .png))
        // After the signature and IHDR (8 + 25 bytes).
        png.insert(contentsOf: PNGFixture.chunk("gAMA", PNGFixture.bigEndian(100_000)), at: 33)
        let deep = try PNGDecoder().decode(Data(png), options: Self.keeping).bitmap
        let eight = try PNGDecoder().decode(Data(png), options: DecodingOptions()).bitmap
        let samples = try #require(deep.deepSamples)
        #expect(samples != linear, "converted")
        // IEC 61966-2-1's curve of each linear colour sample, to within lcms2's interpolation.
        func srgb(_ value: UInt16) -> Double {
            let v = Double(value) / 65535
            return 65535 * (v <= 0.003_130_8 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
        }
        let errors = samples.indices.filter { $0 % 4 != 3 }.map { abs(Double(samples[$0]) - srgb(linear[$0])) }
        #expect(errors.max() ?? .infinity < 100, "\(errors.max() ?? 0)")
        #expect(zip(deep.pixels, eight.pixels).filter { abs(Int($0) - Int($1)) > 1 }.count < deep.pixels.count / 10)
        #expect(samples.contains { $0 % 257 != 0 })
        // Linear 1608 / 65535 is sRGB's steep toe: far above it once converted.
        #expect(samples[4] > 1608 * 5)
    }
}
