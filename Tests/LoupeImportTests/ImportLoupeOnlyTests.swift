import Foundation
import Loupe
import Testing

// This file imports `Loupe` and nothing else of the project (its target depends on `Loupe`
// alone): it compiles only while `Loupe` re-exports every module its public API uses. Each test
// names types from a different layer, as an app's code would.

/// `import Loupe` is all ordinary use needs.
struct ImportLoupeOnlyTests {
    /// A solid 40×30 PNG of `color` in a fresh temporary file (`Bitmap` and `ImageEncoder` are
    /// LoupeCodecs').
    func solidPNG(_ color: RGBColor) throws -> (url: URL, bitmap: Bitmap) {
        let pixel: [UInt8] = [color.red, color.green, color.blue, 255]
        let pixels = [[UInt8]](repeating: pixel, count: 40 * 30).flatMap { $0 }
        let bitmap = try Bitmap(width: 40, height: 30, pixels: pixels)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-import-\(UUID().uuidString).png")
        try ImageEncoder().encode(bitmap, as: .png).write(to: url)
        return (url, bitmap)
    }

    @Test func aPipelineWithADiskCacheLoadsProcessesAndExtractsColours() async throws {
        let red = RGBColor(red: 200, green: 30, blue: 40)
        let (file, source) = try solidPNG(red)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-import-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: folder)
        }
        // DiskCache (LoupeCaching), Logger (swift-log), Crop (LoupeProcessing).
        var configuration = ImagePipeline.Configuration(dataCache: try DiskCache(directory: folder))
        configuration.logger = Logger(label: "import-test")
        let pipeline = ImagePipeline(configuration: configuration)
        let response = try await pipeline.image(for: ImageRequest(url: file, thumbnail: 20, processors: [ImageProcessors.Crop(x: 0, y: 0, width: 10, height: 10)]))
        let bitmap: Bitmap = response.bitmap
        #expect(bitmap.width == 10 && bitmap.height == 10)
        #expect(response.origin == .file)
        // A crop of one colour has the source's dominant colour (colorthief's, quantised).
        #expect(try bitmap.dominantColor() == source.dominantColor())
        #expect(bitmap.pixel(x: 5, y: 5) == (r: red.red, g: red.green, b: red.blue, a: 255))
        #expect(pipeline.memoryCacheUsage == (count: 1, cost: 10 * 10 * Bitmap.bytesPerPixel))
        await pipeline.shutdown()
    }

    /// A loader of the app's own (`DataLoading`, `DataRequest` and `DataResponse` are
    /// LoupeLoading's) serving `http` URLs from bytes it holds.
    struct BundledLoader: DataLoading {
        let images: [URL: Data]

        func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
            guard let data = images[request.url] else { throw DataLoadingError.httpStatus(404, url: request.url.absoluteString, retryAfter: nil) }
            return DataResponse(data: data, statusCode: 200, headers: [:], url: request.url)
        }
    }

    @Test func anAppsOwnDataLoaderPlugsIn() async throws {
        let blue = RGBColor(red: 20, green: 40, blue: 210)
        let (file, source) = try solidPNG(blue)
        defer { try? FileManager.default.removeItem(at: file) }
        let url = try #require(URL(string: "http://127.0.0.1:9/poster.png"))
        let loader = BundledLoader(images: [url: try Data(contentsOf: file)])
        let pipeline = ImagePipeline(configuration: .init(dataLoader: loader))
        let response = try await pipeline.image(for: url)
        #expect(response.origin == .network)
        #expect(response.bitmap == source)
        #expect(try response.bitmap.dominantColor() == source.dominantColor())
        await #expect(throws: ImagePipelineError.self) {
            try await pipeline.image(for: try #require(URL(string: "http://127.0.0.1:9/missing.png")))
        }
    }
}
