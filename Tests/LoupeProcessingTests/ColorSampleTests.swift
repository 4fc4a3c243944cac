import Foundation
import LoupeCodecs
import LoupeProcessing
import Testing

/// `DominantColorExtractor.sample(of:thumbnail:)`: the one place that chooses the pixels and
/// the sampling step, for the extractor and for `loupe fetch --colors` / `--fast-colors`.
struct ColorSampleTests {
    /// A 640×480 JPEG of a gradient, and its header.
    static func photo() throws -> (data: Data, metadata: ImageMetadata) {
        let bitmap = try makeBitmap(width: 640, height: 480) { x, y in (UInt8(x % 256), UInt8(y % 256), 90, 255) }
        let data = try ImageEncoder().encode(bitmap, as: .jpeg(quality: 90))
        return (data, try ImageDecoder().metadata(of: data))
    }

    @Test func exactReadsEveryTenthStoredPixel() throws {
        let (data, _) = try Self.photo()
        let sample = try DominantColorExtractor(mode: .exact).sample(of: data)
        #expect(sample.bitmap.width == 640 && sample.bitmap.height == 480)
        #expect(sample.quality == 10)
        #expect(try sample.dominantColor() == DominantColorExtractor(mode: .exact).dominantColor(of: data))
    }

    @Test func fastShrinksAndReadsEveryPixel() throws {
        let (data, _) = try Self.photo()
        let sample = try DominantColorExtractor(mode: .fastDefault).sample(of: data)
        // JPEG DCT scaling: the smallest eighth-multiple at least 256 px on the longest side.
        #expect(sample.bitmap.width == 320 && sample.bitmap.height == 240)
        #expect(sample.quality == 1)
        #expect(try sample.palette(count: 4) == sample.bitmap.palette(count: 4, quality: 1))
        #expect(try sample.dominantColor() == DominantColorExtractor(mode: .fastDefault).dominantColor(of: data))
    }

    @Test func fastUsesAThumbnailAtLeastItsSizeAndDecodesPastASmallerOne() throws {
        let (data, metadata) = try Self.photo()
        let extractor = DominantColorExtractor(mode: .fastDefault)
        let large = try ImageProcessors.Resize(maxPixelSize: 300).process(ImageDecoder().decode(data, options: DecodingOptions()).bitmap)
        let fromLarge = try extractor.sample(of: data, thumbnail: .init(bitmap: large, maxPixelSize: 300, metadata: metadata))
        #expect(fromLarge.bitmap == large)
        #expect(fromLarge.quality == 1)
        let small = try ImageProcessors.Resize(maxPixelSize: 128).process(large)
        let fromSmall = try extractor.sample(of: data, thumbnail: .init(bitmap: small, maxPixelSize: 128, metadata: metadata))
        #expect(fromSmall.bitmap.width == 320)
        // Exact ignores any thumbnail.
        let exact = try DominantColorExtractor(mode: .exact).sample(of: data, thumbnail: .init(bitmap: large, maxPixelSize: 300, metadata: metadata))
        #expect(exact.bitmap.width == 640 && exact.quality == 10)
    }

    @Test func aFullSizeDecodeIsSampledAsExact() throws {
        // PNG cannot shrink while decoding: the fast mode samples it as the exact one does.
        let bitmap = try makeBitmap(width: 400, height: 300) { x, y in (UInt8(x % 200), UInt8(y % 200), 40, 255) }
        let data = try ImageEncoder().encode(bitmap, as: .png)
        let sample = try DominantColorExtractor(mode: .fastDefault).sample(of: data)
        #expect(sample.bitmap == bitmap)
        #expect(sample.quality == 10)
    }
}
