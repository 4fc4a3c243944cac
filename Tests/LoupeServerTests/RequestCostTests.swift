import Foundation
import Loupe
import LoupeCodecs
import LoupeProcessing
import Testing
@testable import LoupeServer

/// The cost estimate against the default `--max-request-cost`: every ordinary imgproxy URL on a
/// photo at the source-pixel limit passes; the URLs that made the service unresponsive are
/// refused, each naming the option that makes it costly.
@Suite struct RequestCostTests {
    /// A 50-megapixel 3:2 photo: the largest source the defaults accept.
    static let largestPhoto = ImageMetadata(format: .jpeg, width: 8660, height: 5773)
    /// The 640×480 photo the URLs that took the service down were tried on.
    static let smallPhoto = ImageMetadata(format: .jpeg, width: 640, height: 480)

    /// The estimate for `path`'s options (an output format from its extension, else WebP as
    /// negotiated) on `source`, checked against `settings`' limit.
    static func check(_ path: String, on source: ImageMetadata, settings: ServerSettings = ServerSettings()) throws(CostLimitExceeded)
        -> RequestCost {
        guard let parsed = try? ImgproxyURL(path: "/insecure/" + path + (path.contains("/plain/") ? "" : "/plain/local:///a.jpg")) else {
            Issue.record("\(path) does not parse")
            return RequestCost()
        }
        var options = parsed.options
        options.maxAnimationFrames = min(options.maxAnimationFrames ?? settings.maximumAnimationFrames, settings.maximumAnimationFrames)
        let format = options.format ?? .webp
        let cost = RequestCostCheck(options: options, format: format, watermark: nil, maximumFrames: options.maxAnimationFrames ?? 1,
                                    settings: settings)
        let geometry = ImgproxyGeometry(options: options, filters: options.filters, resultLimit: settings.maximumResultDimension, cost: cost)
        let estimate = cost.estimate(geometry, source: source, maximumFrames: cost.maximumFrames)
        try cost.limit.check(estimate)
        return estimate
    }

    @Test(arguments: [
        "rs:fit:300:300", "rs:fill:300:300", "rs:fill:1200:630/g:sm", "w:1920", "rs:fit:3840:2160", "rs:fit:8192:8192",
        "q:90/rs:fill:800:600/sh:1", "bl:10/rs:fill:400:400", "rs:fill:1024:1024/pix:10", "c:2000:2000/rs:fit:1000:1000",
        "t:10/rs:fit:1000:1000", "dpr:2/rs:fit:960:540", "rs:fit:1000:1000/mb:100000", "rs:fit:2000:2000/f:avif",
        "rs:fit:1000:1000/f:png", "ex:1/rs:fit:1000:1000", "pd:20/rs:fill:500:500", "rs:fill:600:400/bl:2/sh:0.5",
        "rot:90/rs:fit:2000:2000", "mw:600/rs:fit:300:300", "rs:fit:8192:8192/f:jpg", "f:jpg", "f:webp", "rs:fit:0:0/q:95/f:jpg",
    ])
    func ordinaryURLsPassOnTheLargestPhoto(_ path: String) throws {
        let cost = try Self.check(path, on: Self.largestPhoto)
        #expect(cost.operations > 0)
    }

    @Test(arguments: [
        ("rs:fit:8192:8192:1/bl:100/f:jpg", "blur"), ("rs:fit:8192:8192:1/bl:99/f:jpg", "blur"), ("rs:fit:8192:8192:1/sh:100/f:jpg", "sharpen"),
        ("rs:fit:8192:8192:1/f:png", "enlarge"), ("rs:fit:8192:8192:1/f:avif", "enlarge"), ("rs:fit:8192:8192/ex:1/f:png", "extend"),
        ("rs:fit:8192:8192:1/mb:1000/f:webp", "max_bytes"), ("rs:fill:8192:8192:1/sh:30/f:jpg", "sharpen"),
    ])
    func theURLsThatTookTheServiceDownAreRefused(_ path: String, option: String) {
        #expect(throws: CostLimitExceeded.self) { _ = try Self.check(path, on: Self.smallPhoto) }
        do {
            _ = try Self.check(path, on: Self.smallPhoto)
        } catch {
            #expect(error.option == option, "\(path): \(error)")
            #expect(error.description.contains("--max-request-cost") || error.description.contains("MB"))
        }
    }

    @Test func aBlurredFiftyMegapixelResultIsRefusedForItsMemory() {
        do {
            _ = try Self.check("bl:1/f:jpg", on: Self.largestPhoto)
            Issue.record("a blurred 50-megapixel result was let through")
        } catch {
            #expect(error.option == "blur")
            #expect(error.cost.bytes > 8 * 50_000_000)
        }
    }

    @Test func theLimitIsTheSetting() throws {
        var settings = ServerSettings()
        settings.maximumRequestCost = 10
        #expect(throws: CostLimitExceeded.self) { _ = try Self.check("rs:fit:1000:1000/f:jpg", on: Self.largestPhoto, settings: settings) }
        let parsed = try ServerSettings(flags: [:], environment: ["LOUPE_MAX_REQUEST_COST": "123"])
        #expect(parsed.maximumRequestCost == 123)
        #expect(throws: SettingsError.self) { try ServerSettings(flags: ["max-request-cost": "0"], environment: [:]) }
    }

    /// A plain fit keeps its thumbnail decode (no check at the header) when no accepted source
    /// can take it over the limit, and goes through the geometry's check when one could.
    @Test func onlyRequestsThatCouldBeTooCostlyAreCheckedAtTheHeader() throws {
        let settings = ServerSettings()
        func request(_ path: String) throws -> Loupe.ImageRequest {
            let options = try ImgproxyURL(path: "/insecure/\(path)/plain/local:///a.jpg").options
            let cost = RequestCostCheck(options: options, format: options.format, watermark: nil, maximumFrames: 1, settings: settings)
            return ImageService.imageRequest(url: URL(fileURLWithPath: "/a.jpg"), options: options, cost: cost)
        }
        #expect(try request("rs:fit:300:300/f:jpg").thumbnail == 300)
        #expect(try request("rs:fit:300:300/f:jpg").processors.isEmpty)
        let large = try request("rs:fit:8192:8192/bl:30/f:jpg")
        #expect(large.thumbnail == nil)
        #expect(large.processors.first?.identifier.contains(";cost=") == true)
    }

    /// The estimate for a thumbor path's options on `source`, through the request the service
    /// builds (JPEG out), checked against the default limit.
    static func checkThumbor(_ path: String, on source: ImageMetadata) throws -> RequestCost {
        let options = try ThumborURL(path: "/unsafe/\(path)/a.jpg").options
        let cost = RequestCostCheck(options: options, format: .jpeg, watermark: nil, maximumFrames: 1, settings: ServerSettings())
        let request = ImageService.imageRequest(url: URL(fileURLWithPath: "/a.jpg"), options: options, cost: cost)
        let step = try #require(request.processors.first as? ThumborGeometryStep)
        let estimate = cost.estimate(step, source: source, maximumFrames: 1)
        try cost.limit.check(estimate)
        return estimate
    }

    /// thumbor's URLs are weighed as imgproxy's are: what a thumbor site asks for passes on the
    /// largest photo.
    @Test(arguments: [
        "fit-in/512x512", "300x200", "300x300/smart", "40x40:840x640/300x200", "fit-in/1920x1080/filters:blur(4)",
        "fit-in/800x800/filters:fill(blur)", "fit-in/1024x1024/filters:round_corner(20,255,255,255):quality(90)",
        "-300x-200/filters:brightness(20):contrast(30)", "full-fit-in/1200x1200/filters:sharpen(2,1,true)",
    ])
    func ordinaryThumborURLsPassOnTheLargestPhoto(_ path: String) throws {
        let cost = try Self.checkThumbor(path, on: Self.largestPhoto)
        #expect(cost.operations > 0)
    }

    /// An enlarged result blurred at thumbor's largest radius is refused before any pixel,
    /// naming the filter; a small fit-in is never checked at the header (no accepted source can
    /// take it over), a large one is.
    @Test func aThumborBombIsRefusedNamingItsFilter() throws {
        do {
            _ = try Self.checkThumbor("8000x8000/filters:blur(150)", on: Self.smallPhoto)
            Issue.record("an enlarged 64-megapixel blur was let through")
        } catch let error as CostLimitExceeded {
            #expect(error.option == "blur", "\(error)")
        }
        func identifier(_ path: String) throws -> String {
            let options = try ThumborURL(path: "/unsafe/\(path)/a.jpg").options
            let cost = RequestCostCheck(options: options, format: .jpeg, watermark: nil, maximumFrames: 1, settings: ServerSettings())
            let request = ImageService.imageRequest(url: URL(fileURLWithPath: "/a.jpg"), options: options, cost: cost)
            return try #require(request.processors.first).identifier
        }
        #expect(try !identifier("fit-in/300x300").contains(";cost="))
        #expect(try identifier("8000x8000/filters:blur(150)").contains(";cost="))
    }
}
