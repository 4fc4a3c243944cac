import Foundation
import Testing
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport

/// BlurHash and ThumbHash against the reference packages (PyPI `blurhash` 1.1.5 and
/// `thumbhash-python` 1.0.1, run by Scripts/conformance/placeholder_reference.py) on the same
/// pixels: small versions of corpus images, opaque and with alpha.
@Suite struct PlaceholderTests {
    @Test func sameHashesAsTheReferences() async throws {
        let cases: [(file: String, box: Int, x: Int, y: Int)] = [
            ("Corpus/skimage/chelsea.png", 32, 4, 3), ("Corpus/skimage/astronaut.png", 100, 4, 3),
            ("Corpus/skimage/coffee.png", 64, 9, 9), ("Corpus/skimage/rocket.jpg", 48, 1, 1),
            ("Corpus/skimage/camera.png", 40, 5, 2), ("Corpus/x-image/tux.png", 60, 4, 3),
            ("Corpus/x-image/yellow_rose.lossy-with-alpha.webp", 90, 3, 4), ("Corpus/go-png/pngsuite/basn6a08.png", 32, 4, 3),
            ("Corpus/skimage/motorcycle_left.png", 100, 4, 3), ("Corpus/skimage/text.png", 70, 6, 2),
        ]
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var bitmaps: [Bitmap] = [], arguments: [String] = []
        for (n, item) in cases.enumerated() {
            let data = try Data(contentsOf: Repository.root.appendingPathComponent(item.file))
            let decoded = try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true)).bitmap
            let small = try ImageProcessors.Resize(maxPixelSize: item.box).process(decoded)
            let path = directory.appendingPathComponent("\(n).rgba").path
            try Data(tightBytes(small)).write(to: URL(fileURLWithPath: path))
            bitmaps.append(small)
            arguments.append("\(path):\(small.width):\(small.height):\(item.x):\(item.y)")
        }
        let references = try JSONDecoder().decode([Reference].self,
                                                  from: await PythonReference.run("placeholder_reference.py", arguments: arguments))
        try #require(references.count == cases.count)
        var sawAlpha = false
        for (n, item) in cases.enumerated() {
            #expect(try BlurHash.encode(bitmaps[n], xComponents: item.x, yComponents: item.y) == references[n].blurhash, "\(item.file)")
            let thumb = try ThumbHash.encode(bitmaps[n])
            #expect(thumb == references[n].thumbhash, "\(item.file)")
            if thumb[2] & 0x80 != 0 { sawAlpha = true }
        }
        #expect(sawAlpha, "no case exercised ThumbHash's alpha channel")
    }

    @Test func blurHashShapeAndErrors() throws {
        let bitmap = try makeBitmap(width: 20, height: 10) { x, y in (UInt8(x * 12), UInt8(y * 25), 90, 255) }
        let hash = try BlurHash.encode(bitmap)
        #expect(hash.count == 4 + 2 * 4 * 3)
        #expect(hash.first == "L")  // (4 - 1) + (3 - 1) * 9 = 21 -> "L"
        #expect(throws: ProcessingError.self) { try BlurHash.encode(bitmap, xComponents: 0) }
        #expect(throws: ProcessingError.self) { try BlurHash.encode(bitmap, yComponents: 10) }
        // Pure red, DC only: size digit 0, maximum 0, DC 0xff0000 = "TI:j" in base 83. The
        // reference samples cosines at pixel corners (x, not x + 0.5), so even a flat image has
        // AC energy with two components. Both strings are what PyPI blurhash 1.1.5 returns.
        let flat = try makeBitmap(width: 8, height: 8) { _, _ in (255, 0, 0, 255) }
        #expect(try BlurHash.encode(flat, xComponents: 1, yComponents: 1) == "00TI:j")
        #expect(try BlurHash.encode(flat, xComponents: 2, yComponents: 1) == "1fTI:j|c")
    }

    @Test func thumbHashResizesLargeImagesAndKeepsAspect() throws {
        let wide = try makeBitmap(width: 400, height: 100) { x, y in (UInt8(x % 256), UInt8(y * 2), 40, 255) }
        let hash = try ThumbHash.encode(wide)
        // Landscape flag set, no alpha flag; the stored L count is the short side's (7 * 25 / 100 -> 2).
        #expect(hash[4] & 0x80 != 0 && hash[2] & 0x80 == 0)
        #expect(hash[3] & 7 == 2)
        #expect(try ThumbHash.encode(ImageProcessors.Resize(maxPixelSize: 100).process(wide)) == hash)
    }
}

private struct Reference: Decodable {
    let blurhash: String
    let thumbhash: [UInt8]?
}
