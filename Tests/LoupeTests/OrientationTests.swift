import Foundation
import LoupeCodecs
import LoupeTestSupport
import Testing
@testable import Loupe

/// ``ImageRequest/appliesOrientation``: an image turned upright by its EXIF orientation (the
/// default) or kept as stored, each its own entry in the caches.
@Suite struct OrientationTests {
    /// gdk-pixbuf's test photo: stored 640×428, EXIF orientation 6 (upright 428×640).
    static let photo = Result { try Corpus.data("gdk-pixbuf/bug725582-testrotate.jpg") }

    @Test func storedOrientationKeepsThePixelsAsStored() async throws {
        let pipeline = ImagePipeline(configuration: .init(dataCache: nil, dataLoader: LocalDataLoader()))
        let upright = ImageRequest(id: "turned", data: try Self.photo.get(), thumbnail: 100)
        var stored = upright
        stored.appliesOrientation = false
        #expect(upright.imageKey != stored.imageKey)
        #expect(upright.imageKey.diskKey != stored.imageKey.diskKey)

        let turned = try await pipeline.image(for: upright).container
        #expect((turned.bitmap.width, turned.bitmap.height) == (67, 100))
        #expect(turned.metadata.orientation == .right)
        let kept = try await pipeline.image(for: stored).container
        #expect((kept.bitmap.width, kept.bitmap.height) == (100, 67))
        #expect(kept.metadata.orientation == .up, "nothing left to turn")
        #expect((kept.metadata.width, kept.metadata.height) == (640, 428))
        // Each from its own memory cache entry.
        #expect(try await pipeline.image(for: upright).container.bitmap.width == 67)
    }
}
