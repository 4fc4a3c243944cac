import Foundation
import LoupeCodecs
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// The download name of `Content-Disposition` without a `filename` option: the source's last
/// path component, percent-decoded, without its extension, reduced to ASCII letters, digits,
/// `-`, `_` and `.` (at most 100), with the result's extension; `image` when nothing is left.
@Suite struct DownloadNameTests {
    @Test(arguments: [
        ("http://127.0.0.1/p/cat.jpg", ImageFormat.jpeg, "cat.jpg"),
        ("http://127.0.0.1/p/cat.jpg", .webp, "cat.webp"),
        ("http://127.0.0.1/p/my%20photo%C3%A9.final.png", .png, "myphoto.final.png"),
        ("http://127.0.0.1/p/.hidden", .jpeg, ".hidden.jpg"),
        ("http://127.0.0.1/p/no-extension_here", .jpeg, "no-extension_here.jpg"),
        ("http://127.0.0.1/", .jpeg, "image.jpg"),
        ("http://127.0.0.1/p/%E2%98%83.gif", .jpeg, "image.jpg"),
        ("http://127.0.0.1/p/%22quoted%22%0D%0Aheader.jpg", .jpeg, "quotedheader.jpg"),
        ("http://127.0.0.1/p/photo.jpg?size=large#top", .avif, "photo.avif"),
        ("local:///dir/sub/tree.jpeg", .jpeg, "tree.jpg"),
    ])
    func aSourcesNameBecomesItsDownloadName(source: String, format: ImageFormat, expected: String) throws {
        let url = try #require(URL(string: source))
        #expect(ServiceEndpoints.fileName(for: url, format: format) == expected)
    }

    @Test func aLongNameKeepsItsFirstHundredSafeCharacters() throws {
        let stem = String(repeating: "ab%C3%A9", count: 80)
        let url = try #require(URL(string: "http://127.0.0.1/p/\(stem).jpg"))
        #expect(ServiceEndpoints.fileName(for: url, format: .png) == String(repeating: "ab", count: 50) + ".png")
    }

    /// Random names of ASCII, Latin and other scalars, percent-encoded into a URL: each comes
    /// out as the rule says, read off the URL's decoded path scalar by scalar.
    @Test func randomNamesFollowTheRule() throws {
        var random = SplitMix64(seed: 0x10ad)
        let alphabet = Array("aZ09-_. é☃\"/%+~".unicodeScalars)
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for _ in 0..<500 {
            let length = Int(random.next() % 140)
            var name = String.UnicodeScalarView()
            for _ in 0..<length { name.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
            let decoded = String(name)
            let encoded = try #require(decoded.addingPercentEncoding(withAllowedCharacters: unreserved))
            let url = try #require(URL(string: "http://127.0.0.1/p/" + encoded))
            #expect(ServiceEndpoints.fileName(for: url, format: .jpeg) == Self.expectedName(decodedPath: url.path), "\(decoded)")
        }
    }

    /// The rule, on Unicode scalars: what follows the last `/`, without what follows its last
    /// `.` (unless that is its first character), its safe scalars, at most 100.
    private static func expectedName(decodedPath: String) -> String {
        var stem = Array(decodedPath.unicodeScalars)
        if let slash = stem.lastIndex(of: "/") { stem = Array(stem[(slash + 1)...]) }
        if let dot = stem.lastIndex(of: "."), dot != 0 { stem = Array(stem[..<dot]) }
        let safe = stem.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }
        return (safe.isEmpty ? "image" : String(String.UnicodeScalarView(safe.prefix(100)))) + ".jpg"
    }
}
