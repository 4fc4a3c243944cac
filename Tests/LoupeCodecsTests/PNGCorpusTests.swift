import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

@Suite struct PNGCorpusTests {
    static let pngSuite = (try? Corpus.files(in: "go-png/pngsuite", suffixes: [".png"])) ?? []

    /// Every PngSuite file (all colour types, bit depths 1...16, palettes with tRNS, grey+alpha,
    /// interlacing) against Go's reference pixels. 8-bit data must match exactly; 16-bit within
    /// 1 (rounding when scaling to 8 bits). The stored values: the PngSuite's gAMA 1.0 chunks
    /// would otherwise be converted to sRGB (ColorManagementTests covers that).
    @Test(arguments: pngSuite)
    func matchesReferencePixels(path: String) throws {
        let decoded = try decodeCorpus(path, options: DecodingOptions(colorManagement: .keepSourcePixels))
        let sng = try String(contentsOf: Corpus.url(path.replacingOccurrences(of: ".png", with: ".sng")), encoding: .utf8)
        let reference = try SNGReference(sng).bitmap
        #expect(decoded.bitmap.width == reference.width && decoded.bitmap.height == reference.height)
        let difference = PixelDifference(decoded.bitmap, reference)
        #expect(difference.maximum <= (sng.contains("bitdepth: 16") ? 1 : 0), "\(path): max difference \(difference.maximum)")
    }

    @Test func thePngSuiteIsThere() { #expect(Self.pngSuite.count == 35) }

    @Test func interlacedDecodesLikeNonInterlaced() throws {
        for (interlaced, plain) in [("go-png/benchRGB-interlace.png", "go-png/benchRGB.png"),
                                    ("go-png/gray-gradient.interlaced.png", "go-png/gray-gradient.png")] {
            // Stored values: only the interlaced gradient carries a gAMA chunk.
            let stored = DecodingOptions(colorManagement: .keepSourcePixels)
            let a = try decodeCorpus(interlaced, options: stored), b = try decodeCorpus(plain, options: stored)
            #expect(a.metadata.isProgressive && !b.metadata.isProgressive)
            #expect(a.bitmap == b.bitmap, "\(interlaced)")
        }
    }

    @Test func invalidPNGsGiveTheLibraryMessage() throws {
        for (path, fragment) in [("go-png/invalid-crc32.png", "CRC"), ("go-png/invalid-zlib.png", "incorrect data check")] {
            do {
                _ = try decodeCorpus(path)
                Issue.record("\(path) decoded without an error")
            } catch let ImageCodecError.corrupt(format, message) {
                #expect(format == .png)
                #expect(message.contains(fragment), "\(path): \(message)")
            } catch {
                Issue.record("\(path): \(error)")
            }
        }
    }

    /// Go's files with complete image data but a cut or missing IEND: the pixels are all
    /// there, so they decode (as in libvips and browsers), to the same pixels.
    @Test func brokenTrailerAfterCompleteDataStillDecodes() throws {
        let cut = try decodeCorpus("go-png/invalid-trunc.png")
        let missing = try decodeCorpus("go-png/invalid-noend.png")
        #expect(cut.bitmap.width == cut.metadata.width && cut.bitmap.height == cut.metadata.height)
        #expect(cut.bitmap == missing.bitmap)
    }

    @Test func realPhotographsDecodeAtTheirSize() throws {
        let sizes: [String: (Int, Int)] = [
            "astronaut.png": (512, 512), "chelsea.png": (451, 300), "coffee.png": (600, 400),
            "motorcycle_left.png": (741, 500), "camera.png": (512, 512), "cell.png": (550, 660),
        ]
        for (name, (width, height)) in sizes {
            let image = try decodeCorpus("skimage/\(name)")
            #expect(image.metadata.width == width && image.metadata.height == height, "\(name)")
            #expect(image.bitmap.width == width && image.bitmap.height == height)
        }
    }
}
