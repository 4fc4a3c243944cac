import Foundation
import Logging
import Loupe
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
@testable import LoupeServer
import Testing

/// Shrink on load: a JPEG decodes at the smallest N/8 scale that still gives the result its
/// pixels, for every geometry option (imgproxy's scale-on-load, with libjpeg-turbo's finer
/// steps), and the result is the same size as from the full decode and close to it in pixels.
///
/// One case at a time: each decodes a 1000×750 photo in full as its reference, on the worker
/// threads the whole test process shares. Run in parallel (tried under ThreadSanitizer), the
/// cases held those threads long enough for the other suites' requests to reach their deadlines
/// (504s across the service group).
@Suite(.serialized) struct ShrinkOnLoadTests {
    /// imgproxy's geometry cases again, on a JPEG: most of them now decode it smaller (a 200×100
    /// source fit to 50×50 decodes at 2/8), and every result size must still be imgproxy's.
    @Test func conformanceCasesOnAJPEGSource() async throws {
        let jpeg = try TestImage.jpeg(width: 200, height: 100, seed: 7)
        try await ImgproxyGeometryConformanceTests.check(
            ResizeCases.resizeToFit + ResizeCases.resizeToFitEnlarge + ResizeCases.resizeToFitExtend + ResizeCases.resizeToFitExtendAR
                + ResizeCases.resizeToFill + ResizeCases.resizeToFillEnlarge + ResizeCases.resizeToFillExtend
                + ResizeCases.resizeToFillExtendAR + ResizeCases.resizeToFillDown + ResizeCases.resizeToFillDownEnlarge
                + ResizeCases.resizeToFillDownExtend + ResizeCases.resizeToFillDownExtendAR + FrameCases.resultSizeLimit
                + FrameCases.cropExtendPadding + ImgproxyGeometryConformanceTests.documented,
            source: jpeg)
    }

    /// One URL's options on a 1000×750 photo: the decode's size the pipeline logs, the result's
    /// size, and the result against the same geometry on the full decode.
    struct Case: CustomStringConvertible, Sendable {
        let options: String
        let decoded: String
        let result: String
        let rule: String
        init(_ options: String, decoded: String, result: String, _ rule: String) {
            (self.options, self.decoded, self.result, self.rule) = (options, decoded, result, rule)
        }
        var description: String { options }
    }

    static let cases: [Case] = [
        Case("rs:fill:150:150/g:ce", decoded: "250x188", result: "150x150",
             "fill scales by the larger share (150/750 = 0.2): 2/8 is the smallest eighth not below it"),
        Case("rs:fill:75:75/dpr:2", decoded: "250x188", result: "150x150", "dpr multiplies the scale before the decode is chosen"),
        Case("c:500:500/rs:fit:125:125", decoded: "250x188", result: "125x125",
             "a crop is cut in the source's pixels: the scale is 125/500, of the crop"),
        Case("c:400:300:nowe:50:25/rs:fill:100:100", decoded: "375x282", result: "100x100",
             "a crop's gravity offsets are the source's pixels, mapped onto the decode (100/300 needs 3/8)"),
        Case("c:0.5:0.5:fp:0.2:0.7/rs:fill:150:100", decoded: "375x282", result: "150x100",
             "a relative crop at a focus point: 150/500 = 0.3 needs 3/8"),
        Case("rs:fit:200:200/ex:1", decoded: "250x188", result: "200x200", "extend adds canvas, not detail"),
        Case("rs:fit:200:200/pd:5", decoded: "250x188", result: "210x160", "padding adds canvas, not detail"),
        Case("rs:fit:300:150", decoded: "250x188", result: "200x150",
             "a non-square fit box: the height binds (150/750), not the longest side (300/1000 would need 3/8)"),
        Case("rot:90/rs:fit:150:150", decoded: "250x188", result: "113x150",
             "rotate: the box applies to the turned image (150/1000 = 0.15 needs 2/8)"),
        Case("rs:fill:150:150/g:sm", decoded: "250x188", result: "150x150", "a smart cut after the scale runs on scaled pixels"),
        Case("h:150/mw:300", decoded: "375x282", result: "300x150", "min-width raises the scale (300/1000 needs 3/8), then the cut to the height"),
        Case("rs:fill:500:500", decoded: "750x563", result: "500x500", "fill by 500/750 needs 6/8"),
        Case("c:250:250", decoded: "1000x750", result: "250x250", "a crop alone needs every pixel"),
        Case("t:10/rs:fit:150:150", decoded: "1000x750", result: "150x113", "trim reads the source's own pixels: full decode"),
        Case("c:200:200:sm/rs:fit:50:50", decoded: "1000x750", result: "50x50", "a smart crop reads the source's pixels: full decode"),
    ]

    static let photo: Result<Data, any Error> = Result {
        let decoded = try ImageDecoder().decode(Corpus.data("skimage/chelsea.png"))
        let bitmap = try ImageProcessors.Resize(width: 1000, height: 750, mode: .exact, allowsUpscaling: true).process(decoded.bitmap)
        return try ImageEncoder().encode(bitmap, as: .jpeg(quality: 90))
    }

    @Test(arguments: cases)
    func decodesAtTheSmallestScaleTheResultNeeds(_ item: Case) async throws {
        try await Self.check(item, photo: Self.photo.get())
    }

    /// A 640×428 JPEG whose EXIF orientation (6) turns it to 428×640: the scale is chosen for
    /// the upright image, and the crop's gravity placed on it.
    @Test(arguments: [
        Case("rs:fill:100:100/g:ce", decoded: "107x160", result: "100x100", "fill by 100/428 needs 2/8 of the upright image"),
        Case("c:300:300:nowe:20:40/rs:fit:120:120", decoded: "214x320", result: "120x120",
             "a crop of the upright image, offsets from its top left, fit by 120/300: 4/8"),
    ])
    func anOrientedJPEGScalesInItsUprightFrame(_ item: Case) async throws {
        try await Self.check(item, photo: Corpus.data("gdk-pixbuf/bug725582-testrotate.jpg"))
    }

    /// thumbor's geometry decodes smaller too, as thumbor's own PIL engine drafts a JPEG to its
    /// resize: the crops are the source's pixels, mapped onto the decode.
    @Test(arguments: [
        Case("fit-in/200x200", decoded: "250x188", result: "200x150", "fit-in by 200/1000 = 0.2: 2/8"),
        Case("150x100", decoded: "250x188", result: "150x100", "the cut to 3:2 (1000x667) resized by 100/667: 2/8"),
        Case("50x50:550x450/fit-in/125x125", decoded: "250x188", result: "125x100", "a manual crop of 500x400, fit by 125/500: 2/8"),
        Case("-150x100/filters:grayscale()", decoded: "250x188", result: "150x100", "a flip and a filter after the resize add no detail"),
        Case("0x375", decoded: "500x375", result: "500x375", "half the height: 4/8"),
        Case("trim/150x100", decoded: "1000x750", result: "150x100", "trim reads the source's own pixels: full decode"),
        Case("150x100/smart", decoded: "1000x750", result: "150x100", "smart detects on the source's pixels: full decode"),
        Case("50x50:150x150", decoded: "1000x750", result: "100x100", "a crop alone needs every pixel"),
    ])
    func thumborGeometryDecodesAtTheScaleItsResizeNeeds(_ item: Case) async throws {
        let options = try ThumborURL(path: "/unsafe/\(item.options)/photo.jpg").options
        try await Self.check(item, photo: Self.photo.get()) { ImageService.imageRequest(url: $0, options: options) }
    }

    /// Loads `item`'s options for `photo` through a pipeline, checks the decode's size and the
    /// result's, and compares the result with the same geometry on the full decode.
    static func check(_ item: Case, photo: Data) async throws {
        let options = try ImgproxyURL(path: "/insecure/\(item.options)/plain/local:///photo.jpg").options
        try await check(item, photo: photo) { ImageService.imageRequest(url: $0, options: options) }
    }

    /// `check` for the request `makeRequest` builds for the photo's file.
    static func check(_ item: Case, photo: Data, request makeRequest: (URL) -> ImageRequest) async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let file = folder.url.appendingPathComponent("photo.jpg")
        try photo.write(to: file)

        let decodedSizes = Recorder<String>()
        var configuration = ImagePipeline.Configuration(dataLoader: LocalDataLoader())
        configuration.logger = Logger(label: "shrink") { label in
            var handler = RecordingLogHandler(label: label) { record in
                if record.message == "decoded", let size = record.metadata["size"] { decodedSizes.record("\(size)") }
            }
            handler.logLevel = .debug
            return handler
        }
        let pipeline = ImagePipeline(configuration: configuration)
        let request = makeRequest(file)
        let image = try await pipeline.image(for: request).container.bitmap
        #expect(decodedSizes.all == [item.decoded], "\(item): \(item.rule)")
        #expect("\(image.width)x\(image.height)" == item.result, "\(item)")

        // The same geometry on the full decode (a processor the pipeline cannot scale for).
        let geometry = try #require(request.processors.first)
        let full = try await pipeline.image(for: ImageRequest(url: file, processors: [FullDecode(geometry: geometry)])).container.bitmap
        #expect(full.width == image.width && full.height == image.height, "\(item)")
        // libjpeg's DCT scaling is itself a good filter: these cases measured 0.2 to 2.9 levels
        // of mean difference (0 where the decode is full size; the most where a crop's edge falls
        // between two pixels of a 2/8 decode). A cut one pixel of the decode off, or a wrong
        // scale, moves whole edges: a 500x500 crop 4 or 5 source pixels off measured 6.3 to 8.4.
        let difference = PixelDifference(image, full)
        #expect(difference.mean <= 4, "\(item): mean \(difference.mean), max \(difference.maximum)")
    }

    /// The geometry, hiding that it could run on a smaller decode.
    struct FullDecode: ImageProcessing {
        let geometry: any ImageProcessing
        var identifier: String { "test.full(\(geometry.identifier))" }
        func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap { try geometry.process(bitmap) }
    }
}
