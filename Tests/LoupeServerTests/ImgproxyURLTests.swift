import Foundation
import LoupeCodecs
import LoupeLoading
import LoupeProcessing
import LoupeTestSupport
@testable import LoupeServer
import Testing

/// imgproxy's URL format and signatures, without a server.
@Suite struct ImgproxyURLTests {
    @Test func plainSourceWithOptionsAndExtension() throws {
        let url = try ImgproxyURL(path: "/sig/rs:fill:300:200:1/g:soea:5:7/q:70/bg:ff8000/bl:2/cb:x1/plain/https%3A%2F%2Fa.com%2Fcat%20one.jpg@webp")
        #expect(url.signature == "sig")
        #expect(url.signedPath == "/rs:fill:300:200:1/g:soea:5:7/q:70/bg:ff8000/bl:2/cb:x1/plain/https%3A%2F%2Fa.com%2Fcat%20one.jpg@webp")
        #expect(url.source == "https://a.com/cat one.jpg")
        #expect(url.options.resizingType == .fill)
        #expect(url.options.width == 300 && url.options.height == 200 && url.options.enlarge)
        #expect(url.options.gravity == Gravity(.southEast, offsetX: 5, offsetY: 7))
        #expect(url.options.quality == 70)
        #expect(url.options.format == .webp)
        #expect(url.options.background == RGBColor(red: 255, green: 128, blue: 0))
        #expect(url.options.blur == 2)
        #expect(url.options.cacheBuster == "x1")
    }

    /// imgproxy restores what proxies change in a path before it reads and signs it: an empty
    /// options part, `%3A` in options, a source's `scheme:/` merged from `scheme://`.
    @Test func pathsChangedOnTheWayAreRestored() throws {
        let noOptions = try ImgproxyURL(path: "/insecure//plain/local:///orientation-0.png")
        #expect(noOptions.source == "local:///orientation-0.png")
        #expect(noOptions.signedPath == "/plain/local:///orientation-0.png")
        #expect(noOptions.options == ProcessingOptions())
        let escaped = try ImgproxyURL(path: "/sig/rs%3Afit%3A50%3A40/plain/http:/a.com/x.png")
        #expect(escaped.options.width == 50 && escaped.options.height == 40)
        #expect(escaped.source == "http://a.com/x.png")
        #expect(escaped.signedPath == "/rs:fit:50:40/plain/http://a.com/x.png")
        #expect(try ImgproxyURL(path: "/_/plain/local:/x.png").source == "local:///x.png")
        #expect(try ImgproxyURL(path: "/_/w:10/plain/https://a.com/x.png").source == "https://a.com/x.png")
        // Only one empty segment goes: an empty segment between options still ends them.
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/w:10//plain/https://a.com/x.png") }
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/") }
    }

    @Test func plainSourceKeepsItsOwnAtSigns() throws {
        // The last @ separates the extension; an encoded %40 stays part of the source.
        let url = try ImgproxyURL(path: "/_/w:10/plain/https://a.com%40evil.com/x.jpg@png")
        #expect(url.source == "https://a.com@evil.com/x.jpg")
        #expect(url.options.format == .png)
        #expect(url.options.width == 10)
    }

    @Test func base64SourceSplitBySlashes() throws {
        let source = "https://images.example.com/photos/2024/a-very-long-name.png"
        let encoded = Data(source.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let split = encoded.prefix(20) + "/" + encoded.dropFirst(20)
        let url = try ImgproxyURL(path: "/insecure/size:100:0/\(split).jpg")
        #expect(url.source == source)
        #expect(url.options.format == .jpeg)
        #expect(url.options.width == 100 && url.options.height == 0)
        let bare = try ImgproxyURL(path: "/insecure/\(encoded)")
        #expect(bare.source == source && bare.options.format == nil)
    }

    @Test func everyAliasIsAccepted() throws {
        let pairs = [("resize:fit:1:2", "rs:fit:1:2"), ("size:1:2", "s:1:2"), ("width:5", "w:5"), ("height:5", "h:5"),
                     ("enlarge:1", "el:1"), ("gravity:no", "g:no"), ("quality:5", "q:5"), ("format:png", "f:png"),
                     ("background:1:2:3", "bg:1:2:3"), ("blur:1.5", "bl:1.5"), ("strip_metadata:1", "sm:1"),
                     ("cachebuster:a", "cb:a"), ("expires:99", "exp:99"), ("min-width:5", "mw:5"), ("min-height:5", "mh:5"),
                     ("zoom:2", "z:2"), ("extend:1", "ex:1"), ("extend_aspect_ratio:1", "exar:1"), ("extend_ar:1", "exar:1"),
                     ("crop:5", "c:5"), ("trim:5", "t:5"), ("padding:5", "pd:5"), ("rotate:90", "rot:90"), ("flip:1", "fl:1"),
                     ("max_result_dimension:5", "mrd:5")]
        for (long, short) in pairs {
            let a = try ImgproxyURL(path: "/_/\(long)/plain/http://a.com/x.jpg").options
            let b = try ImgproxyURL(path: "/_/\(short)/plain/http://a.com/x.jpg").options
            #expect(a == b, "\(long) vs \(short)")
            // strip_metadata:1 is the default (results never carry metadata).
            #expect(a != ProcessingOptions() || long == "strip_metadata:1", "\(long) changed nothing")
        }
        #expect(try ImgproxyURL(path: "/_/dpr:2/rs:fill-down:10:10/plain/http://a.com/x").options.scaledBox == (20, 20))
    }

    @Test func unsupportedOptionsAreNamed() throws {
        for (option, name) in [("dt:1", "dt"), ("unknown_option:1", "unknown_option")] {
            #expect(throws: ServiceError(400, "unsupportedOption", "option '\(name)' is not supported by this server")) {
                try ImgproxyURL(path: "/_/\(option)/plain/http://a.com/x.jpg")
            }
        }
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/g:sm:10:0/plain/http://a.com/x.jpg") }
        #expect(try ImgproxyURL(path: "/_/g:sm/plain/http://a.com/x.jpg").options.gravity == Gravity.smart)
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/sm:0/plain/http://a.com/x.jpg") }
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/w:-1/plain/http://a.com/x.jpg") }
        #expect(try ImgproxyURL(path: "/_/plain/http://a.com/x.jpg@svg").options.format == .svg)
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/plain/http://a.com/x.jpg@svgz") }
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/w:10") }
        #expect(throws: ServiceError.self) { try ImgproxyURL(path: "/_/!!!notbase64") }
    }

    /// Every gravity anchor by its imgproxy URL name (the service's mapping onto the library's
    /// one gravity type), each name parsed back to its anchor; `sm` only where smart is allowed.
    @Test func gravityNames() throws {
        let names = Gravity.Anchor.allCases.map(\.imgproxyName)
        #expect(names == ["ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe", "sm", "fp"])
        for anchor in Gravity.Anchor.allCases {
            #expect(Gravity.Anchor(imgproxyName: anchor.imgproxyName) == anchor)
        }
        #expect(Gravity.Anchor(imgproxyName: "center") == nil && Gravity.Anchor(imgproxyName: "") == nil)
        #expect(try ImgproxyURL.options("g:soea:2:3").gravity == Gravity(.southEast, offsetX: 2, offsetY: 3))
        #expect(throws: ServiceError.self) { try ImgproxyURL.options("ex:1:sm") }
        #expect(throws: ServiceError.self) { try ImgproxyURL.options("g:north") }
    }

    /// Geometry arguments as imgproxy parses them: empty ones keep the default.
    @Test func geometryArguments() throws {
        func options(_ text: String) throws -> ProcessingOptions { try ImgproxyURL.options(text) }
        #expect(try options("g:no::5").gravity == Gravity(.north, offsetX: 0, offsetY: 5))
        #expect(try options("g:no:3/g:so").gravity == Gravity(.south, offsetX: 3, offsetY: 0))
        let crop = try options("c:0.5:10:fp:0.2:0.3")
        #expect(crop.cropWidth == 0.5 && crop.cropHeight == 10 && crop.cropGravity == Gravity(.focusPoint, offsetX: 0.2, offsetY: 0.3))
        let padding = try options("pd:1:2")
        #expect((padding.paddingTop, padding.paddingRight, padding.paddingBottom, padding.paddingLeft) == (1, 2, 1, 2))
        #expect(try options("rot:-90").rotate == 270)
        let zoom = try options("z:2")
        #expect(zoom.zoomX == 2 && zoom.zoomY == 2)
        let trim = try options("t:5:f00:1")
        #expect(trim.trimThreshold == 5 && trim.trimColor == RGBColor(red: 255, green: 0, blue: 0) && trim.trimEqualHorizontal)
        #expect(try options("t:5/t:").trimThreshold == nil)
        let extend = try options("rs:fit:10:20:1:1:so:3")
        #expect(extend.extend && extend.enlarge && extend.extendGravity == Gravity(.south, offsetX: 3, offsetY: 0))
        let flip = try options("fl::1")
        #expect(flip.flipVertical && !flip.flipHorizontal)
        #expect(try options("mrd:0").maxResultDimension == nil)
        #expect(try options("mrd:30").maxResultDimension == 30)
        #expect(try options("bg:f00/bg:").background == nil)
    }

    @Test func signatureMatchesImgproxysDocumentedExample() throws {
        // imgproxy's documentation example: key "secret", salt "hello", this path, this signature.
        let signer = URLSigner(pairs: [.init(key: Data("secret".utf8), salt: Data("hello".utf8))])
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(signer.signature(for: path) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(signer.isValid(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", for: path))
        #expect(!signer.isValid(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH9", for: path))
        #expect(!signer.isValid(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", for: path + "x"))
        #expect(!signer.isValid(signature: "", for: path))
    }

    /// The signing example of docs/service.md (Swift, Python and `openssl dgst` print the same).
    @Test func readmeSigningExample() {
        let signer = URLSigner(pairs: [.init(key: Data("secret".utf8), salt: Data("hello".utf8))])
        let path = "/rs:fit:512:512/q:80/plain/https://example.com/photo.jpg@webp"
        #expect(signer.signature(for: path) == "mVvRDtFFx-YuJ1J-z7NNWKHqJifSg0YocWf9n0xExy8")
    }

    @Test func severalKeyPairsAreAccepted() {
        let old = URLSigner.KeyPair(key: Data([1, 2, 3]), salt: Data([4, 5]))
        let new = URLSigner.KeyPair(key: Data([9, 9]), salt: Data([8]))
        let both = URLSigner(pairs: [new, old])
        let path = "/w:10/plain/http://a.com/x.jpg"
        let signedWithOld = URLSigner(pairs: [old]).signature(for: path) ?? ""
        let signedWithNew = URLSigner(pairs: [new]).signature(for: path) ?? ""
        #expect(signedWithOld != signedWithNew)
        #expect(both.isValid(signature: signedWithOld, for: path))
        #expect(both.isValid(signature: signedWithNew, for: path))
        #expect(!URLSigner(pairs: [new]).isValid(signature: signedWithOld, for: path))
    }

    /// URLs built by the PyPI `imgproxy` package verify with our signer; one changed byte of
    /// the signature does not.
    @Test func urlsFromThePythonBuilderVerify() async throws {
        let output = try await PythonReference.run("imgproxy_urls.py", arguments: ["0a1b2c3d", "aabbcc", "https://a.com/x.jpg"])
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3)
        let signer = URLSigner(pairs: [.init(key: Data([0x0a, 0x1b, 0x2c, 0x3d]), salt: Data([0xaa, 0xbb, 0xcc]))])
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(object["path"] as? String)
            let url = try ImgproxyURL(path: path)
            #expect(url.source == "https://a.com/x.jpg")
            #expect(signer.isValid(signature: url.signature, for: url.signedPath), "\(path)")
            var bytes = Array(url.signature.utf8)
            bytes[5] = bytes[5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(!signer.isValid(signature: String(decoding: bytes, as: UTF8.self), for: url.signedPath))
        }
    }

    /// `IMGPROXY_SIGNATURE_SIZE`: a signature of the digest's first bytes, checked at that
    /// size only; the setting read from imgproxy's variable.
    @Test func truncatedSignatures() throws {
        let pair = URLSigner.KeyPair(key: Data([0x0a, 0x1b, 0x2c, 0x3d]), salt: Data([0xaa, 0xbb, 0xcc]))
        let path = "/rs:fit:64:64/plain/https://a.com/x.jpg"
        let settings = try ServerSettings(flags: [:], environment: ["IMGPROXY_SIGNATURE_SIZE": "8"])
        #expect(settings.signatureSize == 8)
        #expect(throws: SettingsError.self) { try ServerSettings(flags: [:], environment: ["IMGPROXY_SIGNATURE_SIZE": "33"]) }
        let short = URLSigner(pairs: [pair], size: settings.signatureSize)
        let full = URLSigner(pairs: [pair])
        let shortSignature = try #require(short.signature(for: path)), fullSignature = try #require(full.signature(for: path))
        #expect(shortSignature.count == 11)
        #expect(ImgproxyURL.base64URLDecode(shortSignature) == ImgproxyURL.base64URLDecode(fullSignature)?.prefix(8))
        #expect(short.isValid(signature: shortSignature, for: path))
        #expect(!short.isValid(signature: fullSignature, for: path))
        #expect(!full.isValid(signature: shortSignature, for: path))
        #expect(!short.isValid(signature: shortSignature, for: path + "x"))
        var bytes = Array(shortSignature.utf8)
        bytes[2] = bytes[2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!short.isValid(signature: String(decoding: bytes, as: UTF8.self), for: path))
    }

    /// imgproxy's `*` in allowed sources: any run without `/`, matched within the host or one
    /// path segment, never across a part's end.
    @Test func sourcePrefixWildcards() throws {
        let policy = try SourcePolicy(allowedPrefixes: [
            "https://*.example.com/", "http://a.org/*/thumbs/", "http://b.org/img-*", "local:///users/*/public/", "s3://photos-*/public/",
        ])
        for allowed in ["https://eu.example.com/x.jpg", "https://a.b.example.com/deep/x.jpg", "http://a.org/2024/thumbs/x.jpg",
                        "http://a.org/x/thumbs/y/z.jpg", "http://b.org/img-1/x.jpg", "http://b.org/img-"] {
            #expect(throws: Never.self, "\(allowed)") { try policy.check(allowed) }
        }
        for refused in ["https://example.com/x.jpg", "https://eu.example.community/x.jpg", "https://evil.com/.example.com/x.jpg",
                        "https://eu.example.com@evil.com/x.jpg", "http://a.org/2024/12/thumbs/x.jpg", "http://a.org/thumbs/x.jpg",
                        "http://b.org/img/x.jpg", "http://b.org/imgx-1/x.jpg"] {
            #expect(throws: ServiceError.self, "\(refused)") { try policy.check(refused) }
        }
        #expect(throws: Never.self) { try policy.checkLocal("/users/ann/public/a.png") }
        #expect(throws: ServiceError.self) { try policy.checkLocal("/users/ann/private/a.png") }
        #expect(throws: ServiceError.self) { try policy.checkLocal("/users/ann/b/public/a.png") }
        #expect(throws: Never.self) { try policy.checkS3(S3Location(bucket: "photos-eu", key: "public/a.jpg")) }
        #expect(throws: ServiceError.self) { try policy.checkS3(S3Location(bucket: "photos-eu", key: "private/a.jpg")) }
        #expect(throws: SettingsError.self) { try SourcePolicy(allowedPrefixes: ["http*://a.com/"]) }
        #expect(throws: SettingsError.self) { try SourcePolicy(allowedPrefixes: ["https://a.com:*/"]) }
    }

    @Test func sourcePrefixesCompareParsedParts() throws {
        let policy = try SourcePolicy(allowedPrefixes: ["https://a.com/", "http://b.org:8080/img"])
        #expect(try policy.check("https://a.com/x.jpg").absoluteString == "https://a.com/x.jpg")
        #expect(try policy.check("https://A.com:443/deep/x.jpg").host == "A.com")
        #expect(try policy.check("http://b.org:8080/img/x.jpg").path == "/img/x.jpg")
        for refused in ["https://a.com@evil.com/x.jpg", "https://a.com.evil.com/x.jpg", "http://a.com/x.jpg",
                        "https://evil.com/https://a.com/", "http://b.org:8080/imgx/y.jpg", "http://b.org/img/x.jpg",
                        "https://user:pw@a.com/x.jpg", "file:///etc/passwd"] {
            #expect(throws: ServiceError.self, "\(refused)") { try policy.check(refused) }
            do {
                _ = try policy.check(refused)
            } catch {
                #expect(error.status == 403, "\(refused): \(error)")
            }
        }
    }
}
