import Foundation
import LoupeLoading
import LoupeProcessing
import Testing
@testable import Loupe

@Suite struct ImageRequestTests {
    let url = URL(fileURLWithPath: "/tmp/photo.jpg")
    let other = URL(fileURLWithPath: "/tmp/other.jpg")

    @Test func prioritiesMapToIncreasingTaskPriorities() {
        let task = ImageRequest.Priority.allCases.map(\.taskPriority.rawValue)
        #expect(task == task.sorted())
        #expect(Set(task).count == ImageRequest.Priority.allCases.count)
    }

    /// The keys are computed once and cached in the request: each field that is part of them
    /// must update them when set.
    @Test func settingAFieldUpdatesTheCachedKeys() {
        var request = ImageRequest(url: url)
        #expect(request.dataKey == url.absoluteString)
        #expect(request.imageKey == ImagePipeline.ImageKey(dataKey: url.absoluteString, thumbnail: nil, processorIdentifiers: []))

        request.source = .url(DataRequest(url: other))
        #expect(request.dataKey == other.absoluteString)
        #expect(request.imageKey.dataKey == other.absoluteString)

        request.thumbnail = 128
        #expect(request.imageKey.thumbnail == 128)
        #expect(request.dataKey == other.absoluteString, "the thumbnail is not part of the data's identity")

        request.processors = [ImageProcessors.Crop(x: 0, y: 0, width: 8, height: 8)]
        #expect(request.processorIdentifiers == [ImageProcessors.Crop(x: 0, y: 0, width: 8, height: 8).identifier])
        #expect(request.imageKey.processorIdentifiers == request.processorIdentifiers)

        request.cacheKey = "photo-without-signature"
        #expect(request.dataKey == "photo-without-signature")
        #expect(request.imageKey.dataKey == "photo-without-signature")
        request.source = .url(DataRequest(url: url))
        #expect(request.dataKey == "photo-without-signature", "a cache key outranks the URL")
        request.cacheKey = nil
        #expect(request.dataKey == url.absoluteString)

        // Headers change the data's identity, unless declared not to change the response.
        request.source = .url(DataRequest(url: url, headers: ["Accept": "image/webp"]))
        #expect(request.dataKey != url.absoluteString)
        #expect(request.imageKey.dataKey == request.dataKey)
        request.headersIgnoredByCache = ["ACCEPT"]
        #expect(request.dataKey == url.absoluteString)
        // An identifier is apart from URLs, even one that spells a URL.
        request.source = .data(id: url.absoluteString, Data())
        #expect(request.dataKey != url.absoluteString)
        #expect(request.dataKey == ImageRequest(id: url.absoluteString, data: Data()).dataKey)
        request.source = .url(DataRequest(url: url))

        // Priority and cache policy are not part of the image's identity.
        let key = request.imageKey
        request.priority = .high
        request.cachePolicy = .reloadIgnoringCaches
        #expect(request.imageKey == key)
    }

    @Test func stageKeysAreEqualExactlyWhenImageAndCachePolicyAre() {
        let crop = ImageProcessors.Crop(x: 0, y: 0, width: 8, height: 8)
        let a = ImagePipeline.StageKey(ImageRequest(url: url, thumbnail: 64, processors: [crop], priority: .low))
        let b = ImagePipeline.StageKey(ImageRequest(url: url, thumbnail: 64, processors: [crop], priority: .veryHigh))
        #expect(a == b, "priority does not split the work")
        #expect(Set([a, b]).count == 1)
        #expect(a != ImagePipeline.StageKey(ImageRequest(url: url, thumbnail: 64, processors: [crop], cachePolicy: .revalidate)))
        #expect(a != ImagePipeline.StageKey(ImageRequest(url: url, thumbnail: 32, processors: [crop])))
        #expect(a != ImagePipeline.StageKey(ImageRequest(url: other, thumbnail: 64, processors: [crop])))
        // Two signed URLs of one image with one cache key are one piece of work.
        let signedA = ImagePipeline.StageKey(ImageRequest(url: url, cacheKey: "photo"))
        let signedB = ImagePipeline.StageKey(ImageRequest(url: other, cacheKey: "photo"))
        #expect(signedA == signedB && signedA.hashValue == signedB.hashValue)
        // The stages below: processors dropped one by one, then the thumbnail for the data.
        #expect(a.withoutLastProcessor == ImagePipeline.StageKey(ImageRequest(url: url, thumbnail: 64)))
        #expect(a.decoded == ImagePipeline.StageKey(ImageRequest(url: url, thumbnail: 64)))
        #expect(a.data == ImagePipeline.StageKey(ImageRequest(url: url)))
        #expect(a.data.image.thumbnail == nil && a.data.image.processorIdentifiers.isEmpty)
    }
}

/// How a request's stale policy and the server's directives combine (RFC 5861, as browsers do).
@Suite struct StalePolicyTests {
    @Test func theServersWindowBoundsTheRequestsAndItsSilenceLeavesTheRequestsAlone() {
        #expect(ImageRequest.StalePolicy.upTo(60).window(server: 30, forbidden: false) == 30)
        #expect(ImageRequest.StalePolicy.upTo(10).window(server: 30, forbidden: false) == 10)
        #expect(ImageRequest.StalePolicy.upTo(60).window(server: nil, forbidden: false) == 60)
        #expect(ImageRequest.StalePolicy.always.window(server: 30, forbidden: false) == 30)
        #expect(ImageRequest.StalePolicy.always.window(server: nil, forbidden: false) == .infinity)
        #expect(ImageRequest.StalePolicy.whenServerAllows.window(server: 30, forbidden: false) == 30)
        #expect(ImageRequest.StalePolicy.whenServerAllows.window(server: nil, forbidden: false) == nil)
        #expect(ImageRequest.StalePolicy.never.window(server: 30, forbidden: false) == nil)
    }

    @Test func aForbiddingServerOrANonsenseWindowAllowsNoStaleAnswer() {
        for policy in [ImageRequest.StalePolicy.always, .upTo(60), .whenServerAllows] {
            #expect(policy.window(server: 30, forbidden: true) == nil)
        }
        for seconds in [-1, .nan, -.infinity] as [TimeInterval] {
            #expect(ImageRequest.StalePolicy.upTo(seconds).window(server: 30, forbidden: false) == nil, "\(seconds)")
        }
    }

    @Test func requestsWithOtherStalePoliciesDoNotShareStageWork() throws {
        let url = try #require(URL(string: "https://example.com/a.jpg"))
        var stale = ImageRequest(url: url)
        stale.staleWhileRevalidate = .always
        #expect(ImagePipeline.StageKey(stale) != ImagePipeline.StageKey(ImageRequest(url: url)))
        #expect(ImagePipeline.ImageKey(stale) == ImagePipeline.ImageKey(ImageRequest(url: url)), "one image in memory")
    }
}
