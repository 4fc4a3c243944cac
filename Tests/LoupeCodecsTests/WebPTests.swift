import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

@Suite struct WebPTests {
    /// golang.org/x/image's lossless files are exact encodings of the PNGs beside them.
    @Test(arguments: [
        ("blue-purple-pink.lossless.webp", "blue-purple-pink.png"),
        ("blue-purple-pink-large.lossless.webp", "blue-purple-pink-large.png"),
        ("gopher-doc.1bpp.lossless.webp", "gopher-doc.1bpp.png"), ("gopher-doc.2bpp.lossless.webp", "gopher-doc.2bpp.png"),
        ("gopher-doc.4bpp.lossless.webp", "gopher-doc.4bpp.png"), ("gopher-doc.8bpp.lossless.webp", "gopher-doc.8bpp.png"),
        ("tux.lossless.webp", "tux.png"),
    ])
    func losslessMatchesReferenceExactly(webp: String, png: String) throws {
        let decoded = try decodeCorpus("x-image/\(webp)")
        let reference = try decodeCorpus("x-image/\(png)")
        #expect(decoded.metadata.format == .webp && decoded.metadata.frameCount == 1)
        #expect(decoded.bitmap.width == reference.bitmap.width && decoded.bitmap.height == reference.bitmap.height)
        // Fully transparent pixels may carry any colour; compare colour where alpha > 0.
        var mismatches = 0
        for y in 0..<decoded.bitmap.height {
            for x in 0..<decoded.bitmap.width {
                let a = decoded.bitmap.pixel(x: x, y: y), b = reference.bitmap.pixel(x: x, y: y)
                if a.a != b.a || (a.a > 0 && (a.r != b.r || a.g != b.g || a.b != b.b)) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(webp): \(mismatches) pixels differ")
    }

    /// Lossy files against the originals they were encoded from (their compression error).
    @Test(arguments: [
        ("x-image/blue-purple-pink.lossy.webp", "x-image/blue-purple-pink.png", 3.0),
        ("x-image/blue-purple-pink-large.no-filter.lossy.webp", "x-image/blue-purple-pink-large.png", 3.0),
        ("x-image/blue-purple-pink-large.simple-filter.lossy.webp", "x-image/blue-purple-pink-large.png", 3.0),
        ("x-image/blue-purple-pink-large.normal-filter.lossy.webp", "x-image/blue-purple-pink-large.png", 3.0),
        ("x-image/video-001.lossy.webp", "go-image/video-001.png", 6.0),
    ])
    func lossyStaysCloseToTheOriginal(webp: String, png: String, bound: Double) throws {
        let decoded = try decodeCorpus(webp), reference = try decodeCorpus(png)
        #expect(decoded.bitmap.width == reference.bitmap.width && decoded.bitmap.height == reference.bitmap.height)
        let difference = PixelDifference(decoded.bitmap, reference.bitmap)
        #expect(difference.mean < bound, "\(webp): mean \(difference.mean)")
    }

    @Test func alphaIsDecodedStraight() throws {
        let withAlpha = try decodeCorpus("x-image/yellow_rose.lossy-with-alpha.webp").bitmap
        let opaque = try decodeCorpus("x-image/yellow_rose.lossy.webp").bitmap
        #expect(withAlpha.hasTransparency)
        #expect(!opaque.hasTransparency)
        #expect(withAlpha.width == 400 && withAlpha.height == 301)
    }

    @Test func scaledDecodeFitsTheRequestedSize() throws {
        let image = try decodeCorpus("x-image/blue-purple-pink-large.lossless.webp", options: DecodingOptions(maxPixelSize: 150))
        #expect(image.bitmap.width == 150 && image.bitmap.height == 100)
        #expect(image.metadata.width == 600)
    }

    /// A processor that needs a share of the source (a fill's scale) gets at least that share,
    /// decoded scaled by libwebp, and its pixels are the full decode's, downscaled.
    @Test func scaledDecodeKeepsTheNeededShare() throws {
        let name = "x-image/blue-purple-pink-large.lossless.webp"
        let scaled = try decodeCorpus(name, options: DecodingOptions(minimumScale: 0.3)).bitmap
        #expect(scaled.width == 180 && scaled.height == 120)
        // 600×400 at 0.301 is 180.6×120.4: rounded up, never below the share.
        let roundedUp = try decodeCorpus(name, options: DecodingOptions(minimumScale: 0.301)).bitmap
        #expect(roundedUp.width == 181 && roundedUp.height == 121)
        // The box asks for more than the share: the larger wins, as for JPEG.
        let boxed = try decodeCorpus(name, options: DecodingOptions(maxPixelSize: 300, minimumScale: 0.3)).bitmap
        #expect(boxed.width == 300 && boxed.height == 200)
        #expect(try decodeCorpus(name, options: DecodingOptions(minimumScale: 1)).bitmap.width == 600)
        #expect(try decodeCorpus(name, options: DecodingOptions(minimumScale: .nan)).bitmap.width == 600)
        // A quarter: each pixel the mean of a 4×4 block of the full decode (libwebp's rescaler
        // averages areas), within rounding.
        let quarter = try decodeCorpus(name, options: DecodingOptions(minimumScale: 0.25)).bitmap
        let full = try decodeCorpus(name).bitmap
        #expect(quarter.width == 150 && quarter.height == 100)
        var difference = 0
        for y in 0..<quarter.height {
            for x in 0..<quarter.width {
                for channel in 0..<3 {
                    var sum = 0
                    for dy in 0..<4 {
                        for dx in 0..<4 { sum += Int(full.pixels[(y * 4 + dy) * full.bytesPerRow + (x * 4 + dx) * 4 + channel]) }
                    }
                    difference += abs(sum / 16 - Int(quarter.pixels[y * quarter.bytesPerRow + x * 4 + channel]))
                }
            }
        }
        #expect(Double(difference) / Double(quarter.width * quarter.height * 3) < 2)
    }

    /// The corpus has no animated WebP, so this builds one from two lossless frames the
    /// encoder makes, in the container layout of the WebP specification (VP8X, ANIM, ANMF).
    @Test func animatedFramesCompositeWithDurations() throws {
        let red = try Bitmap(width: 4, height: 4, pixels: Array(repeating: [255, 0, 0, 255], count: 16).flatMap { $0 })
        let green = try Bitmap(width: 2, height: 2, pixels: Array(repeating: [0, 255, 0, 255], count: 4).flatMap { $0 })
        let data = try animatedWebP(canvas: (4, 4), loops: 3, frames: [(red, 0, 0, 70), (green, 2, 2, 120)])
        let image = try ImageDecoder().decode(data)
        #expect(image.metadata.frameCount == 2 && image.metadata.loopCount == 3)
        #expect(image.frames.map(\.duration) == [.milliseconds(70), .milliseconds(120)])
        let second = image.frames[1].bitmap
        #expect(second.pixel(x: 0, y: 0) == (255, 0, 0, 255))  // kept from frame 1
        #expect(second.pixel(x: 3, y: 3) == (0, 255, 0, 255))  // drawn at offset (2, 2)
        let first = try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        #expect(throws: ImageCodecError.frameLimitExceeded(frames: 2, limit: 1)) {
            try ImageDecoder().decode(data, options: DecodingOptions(limits: DecodingLimits(maxFrameCount: 1)))
        }
    }

    /// A thumbnail of an animation (first frame only) decodes scaled like a still image when
    /// the first frame covers the canvas, to what the full composite shrinks to; otherwise
    /// (a frame offset within the canvas) it is composited at full size.
    @Test func animationThumbnailsDecodeScaled() throws {
        let photo = try decodeCorpus("skimage/coffee.png").bitmap
        let small = try Bitmap(width: 2, height: 2, pixels: Array(repeating: [0, 255, 0, 255], count: 4).flatMap { $0 })
        let data = try animatedWebP(canvas: (600, 400), loops: 0, frames: [(photo, 0, 0, 100), (small, 2, 2, 100)])
        let options = DecodingOptions(maxPixelSize: 150, firstFrameOnly: true)
        let thumbnail = try ImageDecoder().decode(data, options: options)
        #expect(thumbnail.bitmap.width == 150 && thumbnail.bitmap.height == 100)
        #expect(thumbnail.metadata.width == 600 && thumbnail.metadata.frameCount == 2)
        let full = try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true))
        #expect(full.bitmap.width == 600 && full.bitmap == photo)
        // libwebp's scaler against the full frame shrunk 4x by averaging: close, not equal.
        #expect(PixelDifference(thumbnail.bitmap, try areaAverage(full.bitmap, factor: 4)).mean < 3)
        let offset = try animatedWebP(canvas: (600, 400), loops: 0, frames: [(small, 2, 2, 100), (photo, 0, 0, 100)])
        #expect(try ImageDecoder().decode(offset, options: options).bitmap.width == 600)
    }

    private func areaAverage(_ bitmap: Bitmap, factor: Int) throws -> Bitmap {
        let width = bitmap.width / factor, height = bitmap.height / factor
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                var sums = [0, 0, 0, 0]
                for dy in 0..<factor {
                    for dx in 0..<factor {
                        let p = bitmap.pixel(x: x * factor + dx, y: y * factor + dy)
                        sums[0] += Int(p.0); sums[1] += Int(p.1); sums[2] += Int(p.2); sums[3] += Int(p.3)
                    }
                }
                for c in 0..<4 { pixels[(y * width + x) * 4 + c] = UInt8(sums[c] / (factor * factor)) }
            }
        }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }

    @Test func aOneFrameAnimationIsCompositedNotStretched() throws {
        let green = try Bitmap(width: 2, height: 2, pixels: Array(repeating: [0, 255, 0, 255], count: 4).flatMap { $0 })
        let image = try ImageDecoder().decode(try animatedWebP(canvas: (4, 4), loops: 0, frames: [(green, 2, 2, 40)]))
        #expect(image.frames.count == 1 && image.bitmap.width == 4)
        #expect(image.bitmap.pixel(x: 0, y: 0) == (0, 0, 0, 0))
        #expect(image.bitmap.pixel(x: 3, y: 3) == (0, 255, 0, 255))
        #expect(image.frames[0].duration == .milliseconds(40))
    }

    private func animatedWebP(canvas: (Int, Int), loops: Int, frames: [(Bitmap, Int, Int, Int)]) throws -> Data {
        func le(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
            Array(tag.utf8) + le(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        var body = chunk("VP8X", [0x02] + [0, 0, 0] + le(canvas.0 - 1, 3) + le(canvas.1 - 1, 3))
        body += chunk("ANIM", [0, 0, 0, 0] + le(loops, 2))
        for (bitmap, x, y, duration) in frames {
            let encoded = [UInt8](try ImageEncoder().encode(bitmap, as: .webpLossless))
            let bitstream = Array(encoded[12...])  // drop "RIFF" size "WEBP": keep the VP8L chunk
            let header = le(x / 2, 3) + le(y / 2, 3) + le(bitmap.width - 1, 3) + le(bitmap.height - 1, 3) + le(duration, 3) + [0x02]
            body += chunk("ANMF", header + bitstream)
        }
        return Data(Array("RIFF".utf8) + le(body.count + 4, 4) + Array("WEBP".utf8) + body)
    }
}
