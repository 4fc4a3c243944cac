import Foundation
import Logging
import LoupeCodecs
import LoupeLoading
@testable import LoupeServer
import LoupeTestSupport
import Synchronization
import Testing

/// `s3://` sources through the service's routes, configured by imgproxy's S3 variables and the
/// AWS credentials only, against a real S3 server (Ceph's RADOS Gateway, `S3Gateway`): served as
/// plain and base64 URLs, versions, allowed and denied buckets and prefixes, a missing key, refused
/// credentials that never show, a source over the size limit, revalidation with a 304.
@Suite struct S3SourceTests {
    /// Settings from imgproxy's variables for the gateway (and `extra`), with the credentials
    /// from the gateway's shared credentials file; unsigned URLs, a disk cache in `cache`.
    static func settings(_ gateway: S3Gateway, extra: [String: String] = [:], cache: TemporaryFolder? = nil) throws -> ServerSettings {
        var environment = ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": gateway.endpoint.absoluteString,
                           "AWS_SHARED_CREDENTIALS_FILE": gateway.credentialsFile.path]
        environment.merge(extra) { $1 }
        var settings = try ServerSettings(flags: [:], environment: environment)
        settings.allowsUnsigned = true
        settings.requestTimeout = .seconds(60)
        settings.cacheDirectory = cache?.url
        return settings
    }

    static func size(_ answer: RunningServer.Answer) throws -> String {
        let image = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true))
        return "\(image.metadata.width)x\(image.metadata.height)"
    }

    static func text(_ answer: RunningServer.Answer) -> String { String(decoding: answer.body, as: UTF8.self) }

    @Test func servesPlainAndBase64URLs() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(try TestImage.jpeg(width: 300, height: 200, seed: 1), bucket: "serve-photos", key: "cats/a b+ü.jpg")
        let source = "s3://serve-photos/cats/a%20b%2B%C3%BC.jpg"
        try await RoutedServer.with(try Self.settings(gateway)) { server in
            let plain = try await server.request(insecurePath("rs:fit:60:60", source))
            #expect(plain.status == 200, "\(Self.text(plain))")
            #expect(try Self.size(plain) == "60x40")
            let encoded = Data(source.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let base64 = try await server.request("/insecure/rs:fit:90:90/\(encoded).png")
            #expect(base64.status == 200, "\(Self.text(base64))")
            #expect(base64.header("Content-Type") == "image/png")
            #expect(try Self.size(base64) == "90x60")
        }
    }

    @Test func servesOneVersion() async throws {
        let gateway = try await S3Gateway.shared()
        let first = try await gateway.put(try TestImage.jpeg(width: 100, height: 50, seed: 2), bucket: "serve-versions", key: "v.jpg", versioned: true)
        try await gateway.put(try TestImage.jpeg(width: 50, height: 100, seed: 3), bucket: "serve-versions", key: "v.jpg", versioned: true)
        let version = S3RequestSigner.encode(try #require(first.versionId), keepingSlashes: false)
        try await RoutedServer.with(try Self.settings(gateway)) { server in
            let old = try await server.request(insecurePath("w:20", "s3://serve-versions/v.jpg?versionId=\(version)"))
            #expect(old.status == 200, "\(Self.text(old))")
            #expect(try Self.size(old) == "20x10")
            let current = try await server.request(insecurePath("w:20", "s3://serve-versions/v.jpg"))
            #expect(try Self.size(current) == "20x40")
        }
    }

    /// imgproxy's bucket lists and an `s3://` allowed-source prefix, each refused with 403
    /// before anything is asked of the gateway.
    @Test func allowedAndDeniedBucketsAndPrefixes() async throws {
        let gateway = try await S3Gateway.shared()
        let photo = try TestImage.jpeg(width: 40, height: 40, seed: 4)
        try await gateway.put(photo, bucket: "serve-allowed", key: "public/a.jpg")
        try await gateway.put(photo, bucket: "serve-allowed", key: "private/a.jpg")
        try await gateway.put(photo, bucket: "serve-denied", key: "public/a.jpg")
        let cases: [([String: String], [(String, Int)])] = [
            (["IMGPROXY_S3_ALLOWED_BUCKETS": "serve-allowed"], [("s3://serve-allowed/public/a.jpg", 200), ("s3://serve-denied/public/a.jpg", 403)]),
            (["IMGPROXY_S3_DENIED_BUCKETS": "serve-denied"], [("s3://serve-allowed/private/a.jpg", 200), ("s3://serve-denied/public/a.jpg", 403)]),
            (["IMGPROXY_ALLOWED_SOURCES": "s3://serve-allowed/public/,https://images.example.com/"],
             [("s3://serve-allowed/public/a.jpg", 200), ("s3://serve-allowed/private/a.jpg", 403), ("s3://serve-denied/public/a.jpg", 403)]),
        ]
        for (extra, requests) in cases {
            try await RoutedServer.with(try Self.settings(gateway, extra: extra)) { server in
                for (source, status) in requests {
                    let answer = try await server.request(insecurePath("w:20", source))
                    #expect(answer.status == status, "\(extra) \(source): \(Self.text(answer))")
                    if status == 403 { #expect(answer.json["kind"] as? String == "forbiddenSource") }
                }
            }
        }
        // The gateway logs in order: once the second case's allowed read is in the log, so is any
        // read of the denied bucket that the cases before it let through.
        #expect(await gateway.answers("GET", path: "/serve-allowed/private/a.jpg", count: 1).count == 1)
        #expect(await gateway.answers("GET", path: "/serve-denied/public/a.jpg", count: 0).isEmpty)
    }

    @Test func aMissingKeyIs404AndS3OffIs403() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(try TestImage.jpeg(width: 20, height: 20, seed: 5), bucket: "serve-missing", key: "here.jpg")
        try await RoutedServer.with(try Self.settings(gateway)) { server in
            let missing = try await server.request(insecurePath("w:20", "s3://serve-missing/absent.jpg"))
            #expect(missing.status == 404)
            #expect(missing.json["kind"] as? String == "sourceNotFound")
            let malformed = try await server.request(insecurePath("w:20", "s3://serve-missing/../here.jpg"))
            #expect(malformed.status == 400, "\(Self.text(malformed))")
        }
        try await RoutedServer.with(testSettings()) { server in
            let off = try await server.request(insecurePath("w:20", "s3://serve-missing/here.jpg"))
            #expect(off.status == 403)
            #expect((off.json["message"] as? String)?.hasPrefix("s3:// sources are off") == true, "\(Self.text(off))")
        }
    }

    /// A wrong secret: the server starts, answers 502 `sourceAccessDenied` naming S3's code, and
    /// the secret shows in no answer, log line (at trace level), metric or `/info`.
    @Test func aWrongSecretIsAnOperatorErrorThatNeverShows() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(try TestImage.jpeg(width: 30, height: 20, seed: 6), bucket: "serve-secret", key: "a.jpg")
        let secret = "wrong-secret-\(UUID().uuidString)"
        let settings = try Self.settings(gateway, extra: [
            "AWS_ACCESS_KEY_ID": gateway.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "token-\(secret)",
        ])
        #expect(settings.s3.credentials?.secretAccessKey == secret)
        let logged = Mutex<[String]>([])
        var logger = Logger(label: "loupe.serve.test") { label in
            var handler = RecordingLogHandler(label: label) { record in logged.withLock { $0.append("\(record.message) \(record.metadata)") } }
            handler.logLevel = .trace
            return handler
        }
        logger.logLevel = .trace
        try await RoutedServer.with(settings, accessLog: logger, logger: logger) { server in
            let answer = try await server.request(insecurePath("w:20", "s3://serve-secret/a.jpg"))
            #expect(answer.status == 502)
            #expect(answer.json["kind"] as? String == "sourceAccessDenied")
            #expect(Self.text(answer).contains("SignatureDoesNotMatch"), "\(Self.text(answer))")
            let info = try await server.request("/info/insecure/plain/s3://serve-secret/a.jpg")
            let metrics = try await server.request("/metrics")
            #expect(metrics.status == 200)
            let everything = [Self.text(answer), Self.text(info), Self.text(metrics)] + logged.withLock { $0 } + ["\(settings)"]
            for text in everything {
                #expect(!text.contains(secret) && !text.contains("Signature="), "\(text)")
            }
        }
    }

    /// A source over `--max-source-size` is refused from its `Content-Length`, before its body:
    /// the message gives the declared size, which only the header can tell.
    @Test func aSourceOverTheLimitIsRefusedBeforeItsBody() async throws {
        let gateway = try await S3Gateway.shared()
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await gateway.put(big, bucket: "serve-large", key: "big.jpg")
        var settings = try Self.settings(gateway)
        settings.maximumSourceBytes = 100_000
        try await RoutedServer.with(settings) { server in
            let answer = try await server.request(insecurePath("w:20", "s3://serve-large/big.jpg"))
            #expect(answer.status == 413)
            #expect(Self.text(answer).contains("body of 300000 bytes exceeds the 100000-byte limit"), "\(Self.text(answer))")
        }
    }

    /// A stale cached source (the object says `max-age=0`) costs a 304 from the gateway for the
    /// next result made from it, not a second download: the gateway's log shows one 200 and one 304.
    @Test func aStaleSourceIsRevalidated() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(try TestImage.jpeg(width: 200, height: 100, seed: 7), bucket: "serve-revalidate", key: "r.jpg", cacheControl: "max-age=0")
        let cache = try TemporaryFolder.created()
        defer { cache.remove() }
        try await RoutedServer.with(try Self.settings(gateway, cache: cache)) { server in
            #expect(try await server.request(insecurePath("w:50", "s3://serve-revalidate/r.jpg")).status == 200)
            let second = try await server.request(insecurePath("w:40", "s3://serve-revalidate/r.jpg"))
            #expect(second.status == 200)
            #expect(try Self.size(second) == "40x20")
        }
        #expect(await gateway.answers("GET", path: "/serve-revalidate/r.jpg", count: 2).map(\.status) == [200, 304])
    }

    /// imgproxy 4's validators for an S3 object: its ETag answered, a client's `If-None-Match`
    /// sent on (signed with the request) and the gateway's `304` answered as one, with the tag
    /// that matched (the gateway's `304` names none).
    @Test func theObjectsETagAndNotModified() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(try TestImage.jpeg(width: 100, height: 50, seed: 9), bucket: "serve-etag", key: "e.jpg")
        let path = insecurePath("w:20", "s3://serve-etag/e.jpg")
        try await RoutedServer.with(try Self.settings(gateway, extra: ["IMGPROXY_USE_ETAG": "true"])) { server in
            let first = try await server.request(path)
            #expect(first.status == 200, "\(Self.text(first))")
            let etag = try #require(first.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.count == 34)
            let again = try await server.request(path, headers: [("If-None-Match", etag)])
            #expect(again.status == 304, "\(Self.text(again))")
            #expect(again.header("ETag") == etag)
            let other = try await server.request(path, headers: [("If-None-Match", "\"0\"")])
            #expect(other.status == 200)
            #expect(try Self.size(other) == "20x10")
        }
    }
}
