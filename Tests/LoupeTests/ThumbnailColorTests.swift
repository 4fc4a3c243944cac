import Foundation
import Loupe
import LoupeTestSupport
import Testing

/// The decode stage converts a thumbnail's colours after resizing it, so a 256 px thumbnail of
/// a wide-gamut photo converts its own pixels, not the DCT-scaled decode's (up to 4x more).
@Suite struct ThumbnailColorTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus/color")

    /// Against converting first and resizing after (what the stage did before): the two orders
    /// differ by resizing in the file's encoding instead of sRGB's, measured here at 96 px:
    /// mean 0.22–0.32 and maximum 4–7 per channel for P3, Adobe RGB and the grey L* profile,
    /// mean 0.56–0.82 and maximum 23 for ProPhoto (gamma 1.8, a gamut far wider than sRGB's:
    /// lanczos3's overshoot at an edge is clipped after the conversion instead of before), 0
    /// for WebP, which libwebp scales to the exact size. The unconverted thumbnail is many times
    /// further away, so the conversion did happen.
    @Test(arguments: ["p3.jpg", "adobergb.jpg", "prophoto.jpg", "grey-lstar.jpg", "adobergb.png", "prophoto-alpha.png", "p3.webp"])
    func thumbnailsAreConvertedAfterResizing(file: String) throws {
        let url = Self.corpus.appendingPathComponent(file)
        try #require(FileManager.default.fileExists(atPath: url.path), "run Scripts/fetch-corpus.sh first")
        let data = try Data(contentsOf: url)
        let size = 96
        let thumbnail = try DecodeStage.decodeWork(data, thumbnail: size, decoder: ImageDecoder(), limits: DecodingLimits()).bitmap
        func resized(_ management: ColorManagement) throws -> Bitmap {
            let options = DecodingOptions(maxPixelSize: size, appliesOrientation: true, colorManagement: management)
            return try ImageProcessors.Resize(maxPixelSize: size).process(ImageDecoder().decode(data, options: options).bitmap)
        }
        let convertedFirst = try resized(.convertToSRGB)
        let unconverted = try resized(.keepSourcePixels)
        #expect(max(thumbnail.width, thumbnail.height) == size)
        let order = PixelDifference(thumbnail, convertedFirst)
        let none = PixelDifference(thumbnail, unconverted)
        let wideGamut = file.hasPrefix("prophoto")
        #expect(order.mean < (wideGamut ? 1.0 : 0.4), "\(file): mean \(order.mean)")
        #expect(order.maximum <= (wideGamut ? 32 : 8), "\(file): maximum \(order.maximum)")
        #expect(none.mean > 4 * order.mean + 0.5, "\(file): unconverted mean \(none.mean) vs \(order.mean)")
    }
}
