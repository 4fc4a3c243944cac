import Foundation
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
import Testing

/// What decoding a JPEG at N/8 scale (any N, `DecodingOptions.maxPixelSize`) does to the
/// thumbnail made from it: the same Lanczos-3 fit from the full-size decode is the reference.
/// Each photo's target makes the decoder pick 3/8, where before only 1/2, 1/4 and 1/8 were
/// used and it picked 1/2; both are held to the reference.
@Suite struct ScaledDecodeThumbnailTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let path: String, target: Int
        /// Longest side of the 3/8 and of the 1/2 decode.
        let scaled: Int, half: Int
        var testDescription: String { "\(path) → \(target)" }
    }

    static let cases = [
        Case(path: "skimage/rocket.jpg", target: 200, scaled: 240, half: 320),
        Case(path: "skimage/hubble_deep_field.jpg", target: 300, scaled: 375, half: 500),
        Case(path: "skimage/retina.jpg", target: 512, scaled: 530, half: 706),
    ]

    @Test(arguments: cases)
    func thumbnailOfTheScaledDecodeMatchesTheFullSizeOne(_ test: Case) async throws {
        let data = try Corpus.data(test.path)
        let (scaled, half, full, scaledSide, halfSide) = try await offCooperativePool {
            func thumbnail(decodedAt maxPixelSize: Int?) throws -> (Bitmap, Int) {
                let options = DecodingOptions(maxPixelSize: maxPixelSize, colorManagement: .keepSourcePixels)
                let decoded = try ImageDecoder().decode(data, options: options).bitmap
                return (try ImageProcessors.Resize(maxPixelSize: test.target).process(decoded), max(decoded.width, decoded.height))
            }
            let scaled = try thumbnail(decodedAt: test.target)
            // The old choice: the half-size decode, asked for by its own size.
            let half = try thumbnail(decodedAt: test.half)
            return (scaled.0, half.0, try thumbnail(decodedAt: nil).0, scaled.1, half.1)
        }
        #expect(scaledSide == test.scaled && halfSide == test.half)
        // libjpeg rounds each scaled side up, so the decode's aspect ratio is a little off and
        // the fitted short side may round to one more pixel (rocket: 134 rows, 133 from the
        // full size, at 1/2 as at 3/8); the difference is over the rows both have.
        #expect(abs(scaled.width - full.width) <= 1 && abs(scaled.height - full.height) <= 1)
        let fromScaled = PixelDifference(scaled, full)
        let fromHalf = PixelDifference(half, full)
        print("\(test.path) → \(test.target): 3/8 mean \(fromScaled.mean) max \(fromScaled.maximum); 1/2 mean \(fromHalf.mean) max \(fromHalf.maximum)")
        // Measured: 3/8 mean 0.85, 0.63, 1.10 (max 58, 20, 132: sharp edges, a fraction of a
        // pixel apart); 1/2 mean 1.52, 0.48, 0.50 (max 124, 13, 61).
        #expect(fromScaled.mean < 1.5)
    }
}
