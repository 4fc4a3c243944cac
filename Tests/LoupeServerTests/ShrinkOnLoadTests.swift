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
/// One case at a time: each decodes a 2000×1500 photo in full as its reference, on the worker
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

    /// One URL's options on a 2000×1500 photo: the decode's size the pipeline logs, the result's
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
        Case("rs:fill:300:300/g:ce", decoded: "500x375", result: "300x300",
             "fill scales by the larger share (300/1500 = 0.2): 2/8 is the smallest eighth not below it"),
        Case("rs:fill:150:150/dpr:2", decoded: "500x375", result: "300x300", "dpr multiplies the scale before the decode is chosen"),
        Case("c:1000:1000/rs:fit:250:250", decoded: "500x375", result: "250x250",
             "a crop is cut in the source's pixels: the scale is 250/1000, of the crop"),
        Case("c:800:600:nowe:100:50/rs:fill:200:200", decoded: "750x563", result: "200x200",
             "a crop's gravity offsets are the source's pixels, mapped onto the decode (200/600 needs 3/8)"),
        Case("c:0.5:0.5:fp:0.2:0.7/rs:fill:300:200", decoded: "750x563", result: "300x200",
             "a relative crop at a focus point: 300/1000 = 0.3 needs 3/8"),
        Case("rs:fit:400:400/ex:1", decoded: "500x375", result: "400x400", "extend adds canvas, not detail"),
        Case("rs:fit:400:400/pd:10", decoded: "500x375", result: "420x320", "padding adds canvas, not detail"),
        Case("rs:fit:600:300", decoded: "500x375", result: "400x300",
             "a non-square fit box: the height binds (300/1500), not the longest side (600/2000 would need 3/8)"),
        Case("rot:90/rs:fit:300:300", decoded: "500x375", result: "225x300",
             "rotate: the box applies to the turned image (300/2000 = 0.15 needs 2/8)"),
        Case("rs:fill:300:300/g:sm", decoded: "500x375", result: "300x300", "a smart cut after the scale runs on scaled pixels"),
        Case("h:300/mw:600", decoded: "750x563", result: "600x300", "min-width raises the scale (600/2000 needs 3/8), then the cut to the height"),
        Case("rs:fill:1000:1000", decoded: "1500x1125", result: "1000x1000", "fill by 1000/1500 needs 6/8"),
        Case("c:500:500", decoded: "2000x1500", result: "500x500", "a crop alone needs every pixel"),
        Case("t:10/rs:fit:300:300", decoded: "2000x1500", result: "300x225", "trim reads the source's own pixels: full decode"),
        Case("c:400:400:sm/rs:fit:100:100", decoded: "2000x1500", result: "100x100", "a smart crop reads the source's pixels: full decode"),
    ]

    static let photo: Result<Data, any Error> = Result {
        let decoded = try ImageDecoder().decode(Corpus.data("skimage/chelsea.png"))
        let bitmap = try ImageProcessors.Resize(width: 2000, height: 1500, mode: .exact, allowsUpscaling: true).process(decoded.bitmap)
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
        Case("fit-in/400x400", decoded: "500x375", result: "400x300", "fit-in by 400/2000 = 0.2: 2/8"),
        Case("300x200", decoded: "500x375", result: "300x200", "the cut to 3:2 (2000x1333) resized by 200/1333: 2/8"),
        Case("100x100:1100x900/fit-in/250x250", decoded: "500x375", result: "250x200", "a manual crop of 1000x800, fit by 250/1000: 2/8"),
        Case("-300x200/filters:grayscale()", decoded: "500x375", result: "300x200", "a flip and a filter after the resize add no detail"),
        Case("0x750", decoded: "1000x750", result: "1000x750", "half the height: 4/8"),
        Case("trim/300x200", decoded: "2000x1500", result: "300x200", "trim reads the source's own pixels: full decode"),
        Case("300x200/smart", decoded: "2000x1500", result: "300x200", "smart detects on the source's pixels: full decode"),
        Case("100x100:300x300", decoded: "2000x1500", result: "200x200", "a crop alone needs every pixel"),
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
        // libjpeg's DCT scaling is itself a good filter: these cases measured 0.2 to 1.6 levels
        // of mean difference (0 where the decode is full size; the most for the detailed
        // 428×640 photo at 2/8); a misplaced cut or a wrong scale moves whole edges and costs
        // far more.
        let difference = PixelDifference(image, full)
        #expect(difference.mean <= 2, "\(item): mean \(difference.mean), max \(difference.maximum)")
    }

    /// The geometry, hiding that it could run on a smaller decode.
    struct FullDecode: ImageProcessing {
        let geometry: any ImageProcessing
        var identifier: String { "test.full(\(geometry.identifier))" }
        func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap { try geometry.process(bitmap) }
    }
}
