import Foundation
import LoupeOrigin
import NIOConcurrencyHelpers
import LoupeTestSupport
import Testing
@testable import LoupeLoading

/// The S3 loader over real HTTP against a real S3 server (Ceph's RADOS Gateway, `S3Gateway`),
/// objects put by boto3; the embedded origin stands in for it only for faults a gateway cannot
/// be made to produce (a body that drips, a 503 `SlowDown`).
@Suite struct S3DataLoaderTests {
    /// Distinct test data (not images: the loader knows nothing about them).
    static func bytes(_ count: Int, seed: UInt8) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }) }

    func loader(_ gateway: S3Gateway, credentials: S3Credentials? = nil, limits: HTTPLoadingLimits = HTTPLoadingLimits()) throws -> S3DataLoader {
        S3DataLoader(configuration: try S3Configuration(endpoint: gateway.endpoint, credentials: credentials ?? gateway.credentials), limits: limits)
    }

    func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func getsAnObjectWithItsValidators() async throws {
        let gateway = try await S3Gateway.shared()
        let body = Self.bytes(70_000, seed: 1)
        let put = try await gateway.put(body, bucket: "loader-get", key: "photos/cat.jpg")
        let response = try await loader(gateway).loadData(for: DataRequest(url: url("s3://loader-get/photos/cat.jpg")))
        #expect(response.statusCode == 200)
        #expect(response.data == body)
        #expect(response.header("ETag") == put.etag)
        #expect(response.header("Last-Modified") != nil)
        #expect(response.url.absoluteString == "s3://loader-get/photos/cat.jpg")
    }

    /// A key with spaces, `+`, non-ASCII letters and reserved characters, signed as the gateway
    /// checks it (a wrong encoding answers SignatureDoesNotMatch or NoSuchKey).
    @Test func getsAKeyThatNeedsEncoding() async throws {
        let gateway = try await S3Gateway.shared()
        let key = "dir/a b+c/ünïcødé €(1)!'*~;=,&$@.jpg"
        let body = Self.bytes(1_000, seed: 2)
        try await gateway.put(body, bucket: "loader-keys", key: key)
        let encoded = S3RequestSigner.encode(key, keepingSlashes: true)
        let response = try await loader(gateway).loadData(for: DataRequest(url: url("s3://loader-keys/\(encoded)")))
        #expect(response.data == body)
    }

    @Test func getsOneVersion() async throws {
        let gateway = try await S3Gateway.shared()
        let first = Self.bytes(500, seed: 3), second = Self.bytes(600, seed: 4)
        let put = try await gateway.put(first, bucket: "loader-versions", key: "v.jpg", versioned: true)
        try await gateway.put(second, bucket: "loader-versions", key: "v.jpg", versioned: true)
        let version = try #require(put.versionId)
        let old = try await loader(gateway).loadData(
            for: DataRequest(url: url("s3://loader-versions/v.jpg?versionId=\(S3RequestSigner.encode(version, keepingSlashes: false))")))
        #expect(old.data == first)
        let current = try await loader(gateway).loadData(for: DataRequest(url: url("s3://loader-versions/v.jpg")))
        #expect(current.data == second)
    }

    @Test func aMissingKeyOrBucketIsNotFound() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(Self.bytes(10, seed: 5), bucket: "loader-missing", key: "present.jpg")
        for source in ["s3://loader-missing/absent.jpg", "s3://no-such-bucket-here/a.jpg"] {
            await #expect(throws: DataLoadingError.httpStatus(404, url: source, retryAfter: nil)) {
                try await loader(gateway).loadData(for: DataRequest(url: url(source)))
            }
        }
    }

    /// A wrong secret and an unknown key ID: a configuration error naming S3's code, whose
    /// message holds neither the secret nor the signature.
    @Test func refusedCredentialsAreAConfigurationError() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(Self.bytes(10, seed: 6), bucket: "loader-denied", key: "a.jpg")
        let wrongSecret = S3Credentials(accessKeyID: gateway.credentials.accessKeyID, secretAccessKey: "wrong-secret-0123456789")
        let unknownKey = S3Credentials(accessKeyID: "AKIAUNKNOWNKEY000000", secretAccessKey: gateway.credentials.secretAccessKey)
        for (credentials, code) in [(wrongSecret, "SignatureDoesNotMatch"), (unknownKey, "InvalidAccessKeyId")] {
            let error = await #expect(throws: DataLoadingError.self) {
                try await loader(gateway, credentials: credentials).loadData(for: DataRequest(url: url("s3://loader-denied/a.jpg")))
            }
            #expect(error == .accessDenied(status: 403, code: code, url: "s3://loader-denied/a.jpg"))
            let text = "\(String(describing: error)) \(String(reflecting: error))"
            #expect(!text.contains(credentials.secretAccessKey) && !text.contains("Signature="), "\(text)")
            #expect(!text.contains(gateway.credentials.secretAccessKey))
        }
    }

    /// An object over the size limit is refused from its `Content-Length`, before its body
    /// (`declared` set: nothing of the body was read).
    @Test func anObjectOverTheLimitIsRefusedBeforeItsBody() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(Self.bytes(300_000, seed: 7), bucket: "loader-large", key: "big.jpg")
        let limits = HTTPLoadingLimits(maximumBodySize: 100_000)
        await #expect(throws: DataLoadingError.tooLarge(limit: 100_000, declared: 300_000)) {
            try await loader(gateway, limits: limits).loadData(for: DataRequest(url: url("s3://loader-large/big.jpg")))
        }
    }

    /// A copy named by its ETag, or by its date, is confirmed with a 304 and no body.
    @Test func revalidatesWithA304() async throws {
        let gateway = try await S3Gateway.shared()
        let put = try await gateway.put(Self.bytes(50_000, seed: 8), bucket: "loader-revalidate", key: "r.jpg")
        let first = try await loader(gateway).loadData(for: DataRequest(url: url("s3://loader-revalidate/r.jpg")))
        let lastModified = try #require(first.header("Last-Modified"))
        for headers in [["If-None-Match": put.etag], ["If-Modified-Since": lastModified]] {
            let again = try await loader(gateway).loadData(for: DataRequest(url: url("s3://loader-revalidate/r.jpg"), headers: headers))
            #expect(again.isNotModified, "\(headers)")
            #expect(again.data.isEmpty)
        }
        let answers = await gateway.answers("GET", path: "/loader-revalidate/r.jpg", count: 3)
        #expect(answers.map(\.status) == [200, 304, 304])
    }

    /// The download's deadline ends a body that drips (a hundred seconds of it), once, however
    /// many attempts the policy allows: the embedded origin stands in for the endpoint (a gateway
    /// does not drip). On a loaded machine the second may pass before the headers arrive.
    @Test func aDrippingBodyEndsAtTheDeadline() async throws {
        let response = OriginResponse(body: Data(repeating: 0xFF, count: 100), fault: .drip(chunkBytes: 1, interval: .seconds(1)))
        try await OriginServer.run(handler: { _ in response }) { origin in
            let s3 = S3DataLoader(configuration: try S3Configuration(endpoint: origin.baseURL, credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "b")),
                                  limits: HTTPLoadingLimits(connectTimeout: .seconds(1), totalTimeout: .seconds(1)))
            let retrying = RetryingDataLoader(s3, policy: RetryPolicy(maximumAttempts: 5, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(1)))
            let start = ContinuousClock.now
            let error = await #expect(throws: DataLoadingError.self) {
                try await retrying.loadData(for: DataRequest(url: url("s3://bucket/slow.jpg")))
            }
            #expect(error == .timedOut(.body) || error == .timedOut(.response), "\(String(describing: error))")
            #expect(ContinuousClock.now - start < .seconds(10))
            #expect(origin.requestCount(for: "/bucket/slow.jpg") == 1)
        }
    }

    /// S3's `SlowDown` (503) is retried, each attempt signed again; then the object comes.
    @Test func slowDownIsRetried() async throws {
        let body = Self.bytes(100, seed: 9)
        let attempts = NIOLockedValueBox(0)
        try await OriginServer.run(handler: { request in
            let attempt = attempts.withLockedValue { $0 += 1; return $0 }
            guard request.header("Authorization")?.hasPrefix("AWS4-HMAC-SHA256 ") == true else { return .status(400) }
            if attempt == 1 {
                return OriginResponse(status: 503, headers: [("Content-Type", "application/xml")],
                                      body: Data("<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>".utf8))
            }
            return .ok(body)
        }) { origin in
            let s3 = S3DataLoader(configuration: try S3Configuration(endpoint: origin.baseURL, credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "b")))
            let retrying = RetryingDataLoader(s3, policy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(1)))
            let response = try await retrying.loadData(for: DataRequest(url: url("s3://bucket/busy.jpg")))
            #expect(response.data == body)
            #expect(origin.requestCount(for: "/bucket/busy.jpg") == 2)
        }
    }

    @Test func refusesWhatIsNotAnObject() async throws {
        let s3 = S3DataLoader(configuration: try S3Configuration(endpoint: URL(string: "http://127.0.0.1:1")))
        for source in ["s3://UPPER/a.jpg", "s3://ab/a.jpg", "s3://bucket", "s3://bucket/", "s3://user@bucket/a.jpg", "s3://bucket:9000/a.jpg",
                       "s3://bucket/a.jpg?acl", "s3://bucket/a.jpg?versionId=1&versionId=2", "s3://bucket/%FF.jpg"] {
            await #expect(throws: DataLoadingError.self, "\(source)") {
                try await s3.loadData(for: DataRequest(url: url(source)))
            }
        }
        await #expect(throws: DataLoadingError.unsupportedScheme("https")) {
            try await s3.loadData(for: DataRequest(url: url("https://example.com/a.jpg")))
        }
        await #expect(throws: DataLoadingError.invalidRequest("s3:// sources are read with GET, not POST")) {
            try await s3.loadData(for: DataRequest(url: url("s3://bucket/a.jpg"), method: "POST"))
        }
    }
}
