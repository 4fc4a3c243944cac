import Foundation
import LoupeCodecs
import Testing

/// `ImageEncoder.keepsGrey`: PNG, JPEG and TIFF write a bitmap whose pixels are all grey as a
/// grey image (with alpha where it has transparency, JPEG never), read back by libpng, libjpeg
/// and libtiff as grey with the same pixels; a bitmap with one coloured pixel, an encoder
/// without the switch, or one embedding the sRGB profile write RGB(A) as before. The headers
/// say which: `ImageMetadata.isGrey`, and PNG's colour type byte.
@Suite struct GreyEncodingTests {
    /// A grey ramp, `alpha` for every pixel.
    static func ramp(alpha: (Int) -> UInt8 = { _ in 255 }) throws -> Bitmap {
        let pixels = (0..<30 * 20).flatMap { index -> [UInt8] in
            let grey = UInt8(index % 256)
            return [grey, grey, grey, alpha(index)]
        }
        return try Bitmap(width: 30, height: 20, pixels: pixels)
    }

    static func pngColorType(_ data: Data) -> Int { Int(data[data.startIndex + 25]) }

    @Test func greyBitmapsAreWrittenGrey() throws {
        let encoder = ImageEncoder(embedsSRGBProfile: false, keepsGrey: true)
        let opaque = try Self.ramp(), translucent = try Self.ramp { UInt8(($0 * 7) % 256) }
        #expect(opaque.isGrey && translucent.isGrey)
        for (bitmap, colorType) in [(opaque, 0), (translucent, 4)] {
            for format in [ImageEncoder.Format.png, .tiff] {
                let data = try encoder.encode(bitmap, as: format)
                let decoded = try ImageDecoder().decode(data)
                #expect(decoded.metadata.isGrey, "\(format)")
                // Lossless; libtiff hands translucent pixels back premultiplied, so only the
                // opaque ramp comes back exactly from TIFF.
                if format == .png || colorType == 0 { #expect(decoded.bitmap == bitmap, "\(format): the same pixels") }
            }
            #expect(Self.pngColorType(try encoder.encode(bitmap, as: .png)) == colorType)
        }
        let jpeg = try ImageDecoder().decode(try encoder.encode(opaque, as: .jpeg(quality: 95)))
        #expect(jpeg.metadata.isGrey && jpeg.bitmap.isGrey)
        #expect(abs(Int(jpeg.bitmap.pixel(x: 10, y: 3).r) - Int(opaque.pixel(x: 10, y: 3).r)) <= 3)
    }

    @Test func colourOrTheSwitchOffOrAProfileWriteRGB() throws {
        var pixels = try Self.ramp().pixels
        pixels[4 * 17 + 1] &+= 1
        let tinted = try Bitmap(width: 30, height: 20, pixels: pixels)
        #expect(!tinted.isGrey)
        let grey = try Self.ramp()
        let cases: [(ImageEncoder, Bitmap)] = [
            (ImageEncoder(embedsSRGBProfile: false, keepsGrey: true), tinted), (ImageEncoder(), grey),
            (ImageEncoder(embedsSRGBProfile: true, keepsGrey: true), grey),
        ]
        for (encoder, bitmap) in cases {
            #expect(Self.pngColorType(try encoder.encode(bitmap, as: .png)) == 2)
            for format in [ImageEncoder.Format.jpeg(quality: 90), .tiff] {
                #expect(try !ImageDecoder().metadata(of: try encoder.encode(bitmap, as: format)).isGrey, "\(format)")
            }
        }
        // Formats without a grey mode here are unchanged by the switch.
        let webp = try ImageEncoder(embedsSRGBProfile: false, keepsGrey: true).encode(grey, as: .webp(quality: 80))
        #expect(webp == (try ImageEncoder().encode(grey, as: .webp(quality: 80))))
    }
}
