import Foundation
import LoupeCodecs
import LoupeLoading
import LoupeProcessing
import LoupeTestSupport
import Testing
@testable import Loupe

/// The poster feed (an exhibition app's): every entry's poster loaded concurrently from a real nginx, its
/// dominant colour turned into a background colour, the feed's order kept, entries whose poster
/// failed (404, an HTML page served as a JPEG) dropped. The example of docs/lists.md is this test.
@Suite struct FeedBatchTests {
    struct Exhibition: Sendable, Equatable {
        let title: String
        let posterURL: URL
    }

    struct ExhibitionCell: Sendable, Equatable {
        let exhibition: Exhibition
        let backgroundColor: RGBColor
    }

    @Test func theFeedComesBackInOrderWithBackgroundColoursAndFailedPostersDropped() async throws {
        var files: [String: Data] = ["posters/broken.jpg": Data("<html><body>502 Bad Gateway</body></html>".utf8)]
        var expected: [String: RGBColor] = [:]
        for index in 0..<12 {
            let poster = try TestImage.jpeg(width: 60 + index, height: 90, seed: index)
            files["posters/\(index).jpg"] = poster
            let pixels = try ImageDecoder().decode(poster).firstFrame.bitmap
            expected["Exhibition \(index)"] = try pixels.dominantColor().backgroundColor
        }
        let server = try NginxServer.start(files: files)
        defer { server.stop() }
        var feed = (0..<12).map { Exhibition(title: "Exhibition \($0)", posterURL: server.url("posters/\($0).jpg")) }
        feed.insert(Exhibition(title: "Missing poster", posterURL: server.url("posters/missing.jpg")), at: 3)
        feed.insert(Exhibition(title: "Not an image", posterURL: server.url("posters/broken.jpg")), at: 8)
        let pipeline = ImagePipeline(configuration: .init(dataLoader: AsyncHTTPClientDataLoader()))

        // The example of docs/lists.md.
        var progress: [OrderedBatchProgress] = []
        let cells = try await pipeline.imageBatch(for: feed, maximumConcurrency: 8) { ImageRequest(url: $0.posterURL) }
            .map { exhibition, poster in
                ExhibitionCell(exhibition: exhibition, backgroundColor: try poster.bitmap.dominantColor().backgroundColor)
            }
            .run(failurePolicy: .dropFailed) { progress.append($0) }

        #expect(cells.map(\.exhibition) == feed.filter { $0.title.hasPrefix("Exhibition") }, "feed order, failed entries dropped")
        for cell in cells {
            #expect(cell.backgroundColor == expected[cell.exhibition.title], "\(cell.exhibition.title)")
        }
        #expect(Set(cells.map(\.backgroundColor)).count > 1, "the posters' colours differ, so order mistakes would show")
        #expect(progress.last == OrderedBatchProgress(completed: 14, failed: 2, total: 14))
        #expect(server.requestCount(for: "/posters/missing.jpg") == 1 && server.requestCount(for: "/posters/0.jpg") == 1)

        // The same feed streamed: every entry in order, the failures with their typed errors.
        var outcomes: [String] = []
        let streamed = pipeline.imageBatch(for: feed) { ImageRequest(url: $0.posterURL) }
        for try await item in streamed.results() {
            switch item.result {
            case .success: outcomes.append("ok")
            case .failure(let error): outcomes.append((error as? ImagePipelineError)?.reason.rawValue ?? "\(error)")
            }
        }
        #expect(outcomes == Array(repeating: "ok", count: 3) + ["httpStatus"] + Array(repeating: "ok", count: 4)
            + ["unsupportedFormat"] + Array(repeating: "ok", count: 5))
    }
}
