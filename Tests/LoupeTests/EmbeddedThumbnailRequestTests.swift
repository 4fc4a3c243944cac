import Foundation
import LoupeCodecs
import LoupeTestSupport
import Testing
@testable import Loupe

/// ``ImageRequest/usesEmbeddedThumbnail``: a HEIF file's thumbnail item decoded as the image,
/// its own entry in the caches.
@Suite struct EmbeddedThumbnailRequestTests {
    @Test func theThumbnailItemIsTheImageAndItsOwnEntry() async throws {
        // The corpus's coffee photo, 600×400, with a 320×212 thumbnail item.
        let data = try Corpus.data("formats/coffee-thumbnail.heic")
        let pipeline = ImagePipeline(configuration: .init(dataCache: nil, dataLoader: LocalDataLoader()))
        let image = ImageRequest(id: "coffee", data: data, thumbnail: 500)
        var embedded = image
        embedded.usesEmbeddedThumbnail = true
        #expect(image.imageKey != embedded.imageKey)
        #expect(image.imageKey.diskKey != embedded.imageKey.diskKey)
        #expect(image.imageKey.diskKey == ImageRequest(id: "coffee", data: data, thumbnail: 500).imageKey.diskKey)

        let full = try await pipeline.image(for: image).container
        #expect((full.bitmap.width, full.bitmap.height) == (500, 333))
        #expect((full.metadata.width, full.metadata.height) == (600, 400))
        let thumbnail = try await pipeline.image(for: embedded).container
        #expect((thumbnail.bitmap.width, thumbnail.bitmap.height) == (320, 212), "never enlarged to the 500 asked")
        #expect((thumbnail.metadata.width, thumbnail.metadata.height) == (320, 212))
        #expect(try await pipeline.image(for: image).container.bitmap.width == 500, "each from its own entry")
    }
}
