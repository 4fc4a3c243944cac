import Foundation
import Loupe
import Testing

/// The one image-info value and the one failure classification that `loupe fetch`, `/info` and
/// `/batch` share.
@Suite struct ImageInfoTests {
    @Test func encodesSortedKeysAndDecodesBack() throws {
        let info = ImageInfo(format: .jpeg, width: 640, height: 480, frames: 1, bytes: 1234, outputWidth: 128, outputHeight: 96,
                             colors: .init(dominant: RGBColor(red: 200, green: 10, blue: 0),
                                           palette: [RGBColor(red: 1, green: 2, blue: 3)]),
                             blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj")
        let text = String(decoding: try info.json(), as: UTF8.self)
        #expect(text == ##"{"backgroundColor":"#f2e0df","blurhash":"LEHV6nWB2yk8pyo0adR*.7kCMdnj","bytes":1234,"##
            + ##""dominantColor":"#c80a00","format":"jpeg","frames":1,"height":480,"outputHeight":96,"outputWidth":128,"##
            + ##""palette":["#010203"],"width":640}"##)
        #expect(try JSONDecoder().decode(ImageInfo.self, from: info.json()) == info)
    }

    @Test func computedColoursWithNoUsablePixelsAreNull() throws {
        let info = ImageInfo(format: .png, width: 2, height: 2, frames: 1, bytes: 70, colors: .init(dominant: nil, palette: []))
        let object = try #require(try JSONSerialization.jsonObject(with: info.json()) as? [String: Any])
        #expect(object["dominantColor"] is NSNull && object["backgroundColor"] is NSNull)
        #expect((object["palette"] as? [Any])?.isEmpty == true)
        #expect(object["outputWidth"] == nil && object["blurhash"] == nil)
        #expect(try JSONDecoder().decode(ImageInfo.self, from: info.json()) == info)
    }

    @Test func aColourThatIsNotHexIsADecodingError() {
        let json = Data(#"{"format":"png","width":1,"height":1,"frames":1,"bytes":1,"dominantColor":"red","palette":[]}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ImageInfo.self, from: json) }
        #expect(RGBColor(hex: "#00FF7f") == RGBColor(red: 0, green: 255, blue: 127))
        #expect(RGBColor(hex: "#12345") == nil && RGBColor(hex: "#12345g") == nil && RGBColor(hex: "+12345") == nil)
    }

    @Test func failuresAreClassifiedByWhatThePipelineWraps() {
        let cases: [(any Error, ImageFailure.Reason)] = [
            (ImagePipelineError.dataLoadingFailed(DataLoadingError.httpStatus(404, url: "http://a/b", retryAfter: nil)), .httpStatus),
            (ImagePipelineError.dataLoadingFailed(DataLoadingError.forbiddenAddress("10.0.0.1")), .forbiddenSource),
            (ImagePipelineError.dataLoadingFailed(DataLoadingError.timedOut(.total)), .timeout),
            (ImagePipelineError.decodingFailed(ImageCodecError.unrecognizedFormat), .unsupportedFormat),
            (ImagePipelineError.decodingFailed(ImageCodecError.frameLimitExceeded(frames: 2_000, limit: 100)), .limitExceeded),
            (ImagePipelineError.decodingFailed(ImageCodecError.corrupt(.gif, message: "short")), .corrupt),
            (ImageCodecError.encodingFailed(.webp, message: "no"), .encodingFailed),
            (ProcessingError.invalidParameter("x"), .processingFailed),
            (CancellationError(), .cancelled),
        ]
        for (error, reason) in cases {
            #expect(ImageFailure(error).reason == reason, "\(error)")
        }
        #expect(ImageFailure(ImagePipelineError.dataLoadingFailed(DataLoadingError.httpStatus(503, url: "u", retryAfter: nil))).httpStatus == 503)
    }

    @Test func shrunkSamplesReadEveryPixelAndFullSizeOnesEveryTenth() throws {
        let bitmap = try Bitmap(width: 4, height: 3, pixels: [UInt8](repeating: 90, count: 48))
        #expect(ColorSample(bitmap: bitmap, ofSourceWidth: 8, height: 6).quality == 1)
        #expect(ColorSample(bitmap: bitmap, ofSourceWidth: 4, height: 3).quality == 10)
        // Turned upright by its orientation: the same area is not shrunk.
        #expect(ColorSample(bitmap: bitmap, ofSourceWidth: 3, height: 4).quality == 10)
    }
}
