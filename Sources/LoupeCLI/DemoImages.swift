import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeServer

/// What `loupe demo`'s origin serves: JPEGs generated on first request (each path its own
/// colours), with every seventh poster of the feed missing and every eleventh an HTML page
/// served as `image/jpeg`, the failures the poster feed must drop.
actor DemoImages {
    private var encoded: [String: Data] = [:]

    static func posterPath(_ index: Int) -> String { "/feed/poster-\(index).jpg" }

    func response(for path: String, latency: Duration) async -> OriginResponse {
        if path.hasPrefix("/feed/poster-"), let index = Int(path.dropFirst("/feed/poster-".count).dropLast(".jpg".count)) {
            if index % 7 == 6 { return OriginResponse(status: 404, body: Data("not found".utf8), delay: latency) }
            if index % 11 == 10 {
                return OriginResponse.ok(Data("<html><body>Service temporarily unavailable</body></html>".utf8), delay: latency)
            }
        }
        guard path.hasSuffix(".jpg") else { return OriginResponse(status: 404, delay: latency) }
        if let data = encoded[path] { return .ok(data, delay: latency) }
        let data = (try? Self.jpeg(seed: path.hashValueStable)) ?? Data()
        encoded[path] = data
        return .ok(data, delay: latency)
    }

    /// A 480×320 photo-like JPEG: a diagonal gradient between two colours chosen by `seed`.
    private static func jpeg(seed: UInt64) throws -> Data {
        let width = 480, height = 320
        let a = (UInt8(truncatingIfNeeded: seed), UInt8(truncatingIfNeeded: seed >> 8), UInt8(truncatingIfNeeded: seed >> 16))
        let b = (UInt8(truncatingIfNeeded: seed >> 24), UInt8(truncatingIfNeeded: seed >> 32), UInt8(truncatingIfNeeded: seed >> 40))
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let t = Double(x + y) / Double(width + height)
                let i = (y * width + x) * 4
                pixels[i] = UInt8(Double(a.0) * (1 - t) + Double(b.0) * t)
                pixels[i + 1] = UInt8(Double(a.1) * (1 - t) + Double(b.1) * t)
                pixels[i + 2] = UInt8(Double(a.2) * (1 - t) + Double(b.2) * t)
            }
        }
        return try ImageEncoder().encode(Bitmap(width: width, height: height, pixels: pixels), as: .jpeg(quality: 85))
    }
}

private extension String {
    /// FNV-1a: the same colours for a path in every run (`hashValue` is seeded per process).
    var hashValueStable: UInt64 {
        utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}

extension DemoImages {
    /// The playground's samples on the development origin: photos, a feed of twelve posters (two
    /// failing: the seventh missing, the eleventh a web page) and a menu whose soup answers at
    /// once, whose side dishes fail after a second, and whose mains take three.
    static func playgroundSamples(origin: OriginServer) -> PlaygroundSamples {
        let dishes: [(String, [String])] = [("main", ["bibimbap", "bulgogi", "japchae"]), ("soup", ["doenjang-jjigae", "miyeok-guk"]),
                                            ("side", ["kimchi", "kongnamul", "gyeran-mari"])]
        let timing: [String: (Duration, Bool)] = ["main": (.seconds(3), false), "soup": (.zero, false), "side": (.seconds(1), true)]
        return PlaygroundSamples(
            photos: ["sunset", "harbour", "forest", "market"].map { origin.url("/photos/\($0).jpg").absoluteString },
            feed: (0..<12).map { origin.url(posterPath($0)).absoluteString },
            menu: dishes.map { name, items in
                let (latency, fails) = timing[name] ?? (.zero, false)
                return .init(name: name, items: items.map { origin.url("/shop/\(name)/\($0).jpg").absoluteString }, latency: latency, fails: fails)
            })
    }
}
