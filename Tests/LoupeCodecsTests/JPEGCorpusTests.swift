import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

@Suite struct JPEGCorpusTests {
    static let goJPEGs = (try? Corpus.files(in: "go-image", suffixes: [".jpeg"])) ?? []

    /// Go's reference PNG for a JPEG: the same name as .png when Go ships one, otherwise the
    /// lossless original the encodings were made from.
    private func reference(for path: String) -> String {
        let sibling = path.replacingOccurrences(of: ".jpeg", with: ".png")
        if FileManager.default.fileExists(atPath: Corpus.url(sibling).path) { return sibling }
        return path.contains("video-005") ? "go-image/video-005.gray.png" : "go-image/video-001.png"
    }

    /// Every subsampling (4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, 4:1:0), baseline and progressive,
    /// grayscale, RGB, CMYK, truncated. Go's decoder made the references; libjpeg-turbo's
    /// IDCT and upsampling differ slightly. Full-quality files are held to a mean error of 1.5
    /// levels (Go's own test allows 8 per channel); q50 files are compared with the original,
    /// which adds their compression error, so 8 levels mean.
    @Test(arguments: goJPEGs)
    func matchesGoReference(path: String) throws {
        let image = try decodeCorpus(path)
        let reference = try decodeCorpus(reference(for: path))
        #expect(image.metadata.format == .jpeg)
        #expect(image.metadata.isProgressive == path.contains("progress"))
        #expect(image.bitmap.width == reference.bitmap.width && image.bitmap.height == reference.bitmap.height)
        let difference = PixelDifference(image.bitmap, reference.bitmap)
        // video-001.rgb.jpeg (RGB without the YCbCr transform) differs from Go's PNG by 3.1 in
        // this measure; djpeg's output differs from it by the same amount, so that is
        // libjpeg-turbo's reading of the file (djpegAgreesExactly checks we match djpeg).
        let bound = path.contains("q50") ? 8.0 : path.contains(".rgb.") ? 3.5 : 1.5
        #expect(difference.mean <= bound, "\(path): mean \(difference.mean) max \(difference.maximum)")
    }

    /// Our decode, full size and DCT-scaled, equals libjpeg-turbo's own djpeg byte for byte:
    /// the shim adds no colour or scaling error of its own. Pixels as stored: djpeg ignores
    /// ICC profiles (rocket.jpg has Adobe RGB's).
    @Test(arguments: ["go-image/video-001.jpeg", "go-image/video-001.q50.420.progressive.jpeg",
                      "go-image/video-001.q50.411.jpeg", "go-image/video-005.gray.q50.2x2.jpeg",
                      "skimage/rocket.jpg", "gdk-pixbuf/bug725582-testrotate.jpg"])
    func djpegAgreesExactly(path: String) throws {
        let metadata = try ImageDecoder().metadata(of: Corpus.data(path))
        let longest = max(metadata.width, metadata.height)
        for eighths in 1...8 {
            // The largest target this scale still covers: libjpeg's ceil(longest * N / 8).
            let target = (longest * eighths + 7) / 8
            #expect(JPEGDecoder.scaleEighths(width: metadata.width, height: metadata.height, maxPixelSize: target) == eighths)
            let image = try decodeCorpus(path, options: DecodingOptions(maxPixelSize: target, colorManagement: .keepSourcePixels))
            #expect(max(image.bitmap.width, image.bitmap.height) == target, "\(path) at \(eighths)/8")
            let ppm = try runDjpeg(["-pnm", "-rgb", "-dct", "int", "-scale", "\(eighths)/8", Corpus.url(path).path])
            let rgb = image.bitmap.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            let same = ppm.suffix(rgb.count).elementsEqual(rgb)
            #expect(same, "\(path) at \(eighths)/8")
            #expect(ppm.count > rgb.count && ppm.count < rgb.count + 32, "\(path): PPM header")
        }
    }

    private func runDjpeg(_ arguments: [String]) throws -> [UInt8] {
        let outcome = try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/djpeg"), arguments)
        #expect(outcome.status == 0)
        return [UInt8](outcome.output)
    }

    @Test func theGoFilesAreThere() { #expect(Self.goJPEGs.count == 25) }

    @Test func truncatedFilesDecodeWithAWarning() throws {
        // (Go's "progressive.truncated" file ends cleanly after a scan, so libjpeg, like djpeg,
        // sees a complete if coarse image there; gdk-pixbuf's is cut mid-scan.)
        for path in ["gdk-pixbuf/premature-end.jpg"] {
            let warning = try decodeCorpus(path).warning
            #expect(warning?.contains("Premature end") == true, "\(path): \(warning ?? "no warning")")
        }
        #expect(try decodeCorpus("go-image/video-001.jpeg").warning == nil)
    }

    @Test func dctScalingPicksTheSmallestSufficientScale() {
        #expect(JPEGDecoder.scaleEighths(width: 4208, height: 3120, maxPixelSize: 256) == 1)
        #expect(JPEGDecoder.scaleEighths(width: 4208, height: 3120, maxPixelSize: 600) == 2)
        // 3/8 of 1000 is 375, where 1/2 would have made 500.
        #expect(JPEGDecoder.scaleEighths(width: 1000, height: 600, maxPixelSize: 256) == 3)
        // 4/8 makes exactly 500, one short: 5/8 (625).
        #expect(JPEGDecoder.scaleEighths(width: 1000, height: 600, maxPixelSize: 501) == 5)
        #expect(JPEGDecoder.scaleEighths(width: 1000, height: 600, maxPixelSize: 876) == 8)
        #expect(JPEGDecoder.scaleEighths(width: 1000, height: 600, maxPixelSize: 875) == 7)
        #expect(JPEGDecoder.scaleEighths(width: 1000, height: 600, maxPixelSize: nil) == 8)
        #expect(JPEGDecoder.scaleEighths(width: 1000, height: 600, maxPixelSize: 0) == 8)
        // The benchmark's photos fit to 512: 3/8, ceil(1732 * 3 / 8) = 650.
        #expect(JPEGDecoder.scaleEighths(width: 1732, height: 1155, maxPixelSize: 512) == 3)
        // ceil(1001 / 8) = 126 still covers 126.
        #expect(JPEGDecoder.scaleEighths(width: 1001, height: 10, maxPixelSize: 126) == 1)
        #expect(JPEGDecoder.scaleEighths(width: 1001, height: 10, maxPixelSize: 127) == 2)
    }

    /// A minimum scale (a processor's own scale factor) takes the smallest eighth not below it;
    /// with a thumbnail too, the larger of the two; nonsense reads as full size.
    @Test func dctScalingMeetsAMinimumScale() throws {
        #expect(JPEGDecoder.scaleEighths(width: 2000, height: 1500, maxPixelSize: nil, minimumScale: 0.2) == 2)
        #expect(JPEGDecoder.scaleEighths(width: 2000, height: 1500, maxPixelSize: nil, minimumScale: 0.25) == 2)
        #expect(JPEGDecoder.scaleEighths(width: 2000, height: 1500, maxPixelSize: nil, minimumScale: 0.2501) == 3)
        #expect(JPEGDecoder.scaleEighths(width: 2000, height: 1500, maxPixelSize: nil, minimumScale: 0.01) == 1)
        #expect(JPEGDecoder.scaleEighths(width: 2000, height: 1500, maxPixelSize: 1000, minimumScale: 0.2) == 4)
        #expect(JPEGDecoder.scaleEighths(width: 2000, height: 1500, maxPixelSize: 100, minimumScale: 0.6) == 5)
        for nonsense in [0, -1, .nan, 2, .infinity] {
            #expect(JPEGDecoder.scaleEighths(width: 2000, height: 1500, maxPixelSize: nil, minimumScale: nonsense) == 8)
        }
        // The decoder makes ceil(side * 2 / 8) pixels on both sides.
        let photo = try TestImage.jpeg(width: 2001, height: 1003)
        let image = try JPEGDecoder().decode(photo, options: DecodingOptions(minimumScale: 0.2))
        #expect(image.bitmap.width == 501 && image.bitmap.height == 251)
    }

    @Test func scaledDecodeOfARealPhotoHasTheScaledSizeAndContent() throws {
        let data = try Corpus.data("gdk-pixbuf/issue70.jpg")
        let full = try ImageDecoder().decode(data)
        #expect(full.bitmap.width == 3120 && full.bitmap.height == 4208)
        let thumbnail = try ImageDecoder().decode(data, options: DecodingOptions(maxPixelSize: 256))
        #expect(thumbnail.bitmap.width == 390 && thumbnail.bitmap.height == 526)
        #expect(thumbnail.metadata.width == 3120)
        // Each 1/8-scale pixel is libjpeg's estimate of the mean of an 8x8 block.
        var total = 0, count = 0
        for y in stride(from: 0, to: 526, by: 7) {
            for x in stride(from: 0, to: 390, by: 7) {
                for c in 0..<3 {
                    var sum = 0
                    for dy in 0..<8 { for dx in 0..<8 { sum += Int(full.bitmap.pixels[(y * 8 + dy) * full.bitmap.bytesPerRow + (x * 8 + dx) * 4 + c]) } }
                    total += abs(sum / 64 - Int(thumbnail.bitmap.pixels[y * thumbnail.bitmap.bytesPerRow + x * 4 + c]))
                    count += 1
                }
            }
        }
        #expect(Double(total) / Double(count) < 3)
        let half = try ImageDecoder().decode(data, options: DecodingOptions(maxPixelSize: 2000))
        #expect(half.bitmap.width == 1560 && half.bitmap.height == 2104)
    }

    @Test func realPhotographsDecodeAtTheirSize() throws {
        let sizes: [String: (Int, Int)] = [
            "skimage/hubble_deep_field.jpg": (1000, 872), "skimage/retina.jpg": (1411, 1411), "skimage/rocket.jpg": (640, 427),
            "gdk-pixbuf/bug143608-comment.jpg": (640, 428), "gdk-pixbuf/issue70.jpg": (3120, 4208),
            "go-image/video-005.gray.jpeg": (150, 103),
        ]
        for (path, (width, height)) in sizes {
            let image = try decodeCorpus(path)
            #expect(image.bitmap.width == width && image.bitmap.height == height, "\(path)")
        }
    }

    @Test func grayscaleComesOutAsGrayRGBA() throws {
        let bitmap = try decodeCorpus("go-image/video-005.gray.jpeg").bitmap
        for (x, y) in [(0, 0), (75, 50), (149, 102)] {
            let p = bitmap.pixel(x: x, y: y)
            #expect(p.r == p.g && p.g == p.b && p.a == 255)
        }
    }
}
