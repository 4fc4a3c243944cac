import Foundation
import Loupe
import LoupeOrigin
import LoupeTestSupport
import Synchronization

/// The web site the documentation's examples load from: a loopback origin with a photo under
/// every `.jpg` path, and a few paths that behave as the examples expect.
///
/// - `/private/…` answers only `Authorization: Bearer fresh` (401 otherwise);
/// - `/stale/…` is served with `Cache-Control: max-age=0` and an `ETag` naming its version,
///   answers `If-None-Match` with 304 while the version is unchanged, and serves a portrait photo
///   once ``publishNewVersion()`` was called;
/// - `/large/…` is served as a file (ranges, `If-Range`) and cut off at 80 % the first time;
/// - `/progressive/…` is a progressive photo sent at 50 KB/s;
/// - `/missing/…` answers 404.
///
/// Everything it received is in ``received``.
struct DocumentationSite: Sendable {
    /// What the origin received for one request.
    struct Received: Sendable, Equatable {
        var path: String
        var authorization: String?
        var accept: String?
        var range: String?
    }

    let origin: OriginServer
    let received: Recorder<Received>
    let state: DocumentationSiteState

    /// The landscape photo every `.jpg` path serves: 640×480.
    static let landscape = Result { try TestImage.jpeg(width: 640, height: 480, seed: 1) }
    /// The photo a new version of a `/stale/` path serves: 480×640.
    static let portrait = Result { try TestImage.jpeg(width: 480, height: 640, seed: 2) }
    /// A progressive photo (skimage's rocket, 640×427).
    static let progressive = Result { try TestImage.photoJPEG(progressive: true) }

    /// Runs `body` with the site, stopping it afterwards whatever `body` does.
    static func run<Value>(_ body: (DocumentationSite) async throws -> Value) async throws -> Value {
        let received = Recorder<Received>(), state = DocumentationSiteState()
        let landscape = try landscape.get(), portrait = try portrait.get(), progressive = try progressive.get()
        return try await OriginServer.run(handler: { request in
            received.record(Received(path: request.path, authorization: request.header("Authorization"),
                                     accept: request.header("Accept"), range: request.header("Range")))
            return answer(request, state: state, landscape: landscape, portrait: portrait, progressive: progressive)
        }) { origin in
            try await body(DocumentationSite(origin: origin, received: received, state: state))
        }
    }

    /// The URL of `path` on this site.
    func url(_ path: String) -> URL { origin.url(path) }

    /// A pipeline over a disk cache in `folder` that an earlier visit (another pipeline, shut
    /// down since) left holding `url`'s image: stale at once for a `/stale/` path (max-age=0).
    /// Its memory cache is empty, so a request for `url` meets the stale disk copy.
    func pipelineWithStaleCopy(of url: URL, thumbnail: Int, in folder: TemporaryFolder) async throws -> ImagePipeline {
        let earlier = ImagePipeline(configuration: .init(dataCache: try DiskCache(directory: folder.url)))
        _ = try await earlier.image(for: ImageRequest(url: url, thumbnail: thumbnail))
        await earlier.shutdown()
        return ImagePipeline(configuration: .init(dataCache: try DiskCache(directory: folder.url)))
    }

    /// Makes every `/stale/` path serve its next version (a portrait photo, another ETag).
    func publishNewVersion() { state.version.withLock { $0 += 1 } }

    private static func answer(
        _ request: OriginRequest, state: DocumentationSiteState, landscape: Data, portrait: Data, progressive: Data
    ) -> OriginResponse {
        let path = request.path
        if path.hasPrefix("/missing/") { return .status(404) }
        if path.hasPrefix("/private/"), request.header("Authorization") != "Bearer fresh" { return .status(401) }
        if path.hasPrefix("/progressive/") {
            return OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg")], body: progressive,
                                  fault: .drip(chunkBytes: 5_000, interval: .milliseconds(100)))
        }
        if path.hasPrefix("/large/") {
            let file = OriginResponse.file(landscape, for: request, etag: "\"large-1\"")
            let first = state.largeLoads.withLock { count in
                count += 1
                return count == 1
            }
            return first ? file.cut(atFraction: 0.8) : file
        }
        if path.hasPrefix("/stale/") {
            let version = state.version.withLock { $0 }
            let etag = "\"v\(version)\""
            let headers = [("Cache-Control", "max-age=0"), ("ETag", etag), ("Content-Type", "image/jpeg")]
            if request.header("If-None-Match") == etag { return OriginResponse(status: 304, headers: headers) }
            return OriginResponse(status: 200, headers: headers, body: version == 1 ? landscape : portrait)
        }
        return .ok(landscape)
    }
}

/// What the site remembers between requests.
final class DocumentationSiteState: Sendable {
    /// The version every `/stale/` path serves, from 1.
    let version = Mutex(1)
    /// How many times a `/large/` path was asked for.
    let largeLoads = Mutex(0)
}
