import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeLoading

/// The SigV4 signer against AWS's published example and against botocore (an independent
/// implementation, run from the conformance venv) on the same requests.
@Suite struct S3RequestSignerTests {
    /// AWS's example "GET Object" (Amazon S3 API reference, "Signature Calculations for the
    /// Authorization Header: Transferring Payload in a Single Chunk"): the first ten bytes of
    /// examplebucket/test.txt on 24 May 2013.
    @Test func matchesAWSPublishedExample() throws {
        let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let configuration = try S3Configuration(region: "us-east-1", usesPathStyle: false, credentials: credentials)
        let location = try S3Location(bucket: "examplebucket", key: "test.txt")
        let (url, signable) = configuration.request(for: location, headers: ["Range": "bytes=0-9"])
        #expect(url?.absoluteString == "https://examplebucket.s3.amazonaws.com/test.txt")
        let headers = S3RequestSigner(credentials: credentials, region: "us-east-1")
            .signedHeaders(for: signable, at: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["x-amz-content-sha256"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(headers["authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// One request to sign both ways.
    struct Case: Encodable {
        var endpoint: String
        var bucket: String
        var key: String
        var versionId: String?
        var pathStyle: Bool
        var region: String
        var accessKey = "AKIDEXAMPLE"
        var secretKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        var token: String?
        /// The signing time, in seconds since 1970 (2 January 2026 by default).
        var epochSeconds = 1_767_323_045
        var headers: [String: String] = [:]
        var method: String?
        /// A `PUT`'s body, signed by its SHA-256.
        var body: String?
    }

    struct Reference: Decodable {
        var url: String
        var authorization: String
    }

    static let cases: [Case] = [
        Case(endpoint: "http://127.0.0.1:9000", bucket: "photos", key: "cat.jpg", pathStyle: true, region: "us-east-1"),
        Case(endpoint: "https://s3.eu-west-1.amazonaws.com", bucket: "photos", key: "2024/07/cat.jpg", pathStyle: false, region: "eu-west-1"),
        Case(endpoint: "https://storage.example.com:8443", bucket: "my-bucket", key: "dir/a b+c/ünïcødé €.jpg", pathStyle: true, region: "auto"),
        Case(endpoint: "http://minio.internal:9000", bucket: "media", key: "a b+c/ünïcødé.png", pathStyle: false, region: "us-east-1"),
        Case(endpoint: "http://127.0.0.1:7480", bucket: "versioned", key: "x.jpg", versionId: "3sL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY+MTRCxf3vjVBH40Nr8X8gdRQBpUMLUo",
             pathStyle: true, region: "us-east-1"),
        Case(endpoint: "https://s3.us-east-2.amazonaws.com", bucket: "session", key: "k/~tilde!*'()&$@=;:,?.jpg", pathStyle: false, region: "us-east-2",
             token: "FwoGZXIvYXdzEBYaDH+/session=token", headers: ["If-None-Match": "\"9b2cf535f27731c974343645a3985328\""]),
        Case(endpoint: "http://localhost:7480", bucket: "revalidate", key: "a.jpg", pathStyle: true, region: "us-east-1",
             headers: ["If-Modified-Since": "Wed, 21 Oct 2015 07:28:00 GMT", "X-Custom":  "  two   spaces  "]),
        Case(endpoint: "http://127.0.0.1:7480", bucket: "results", key: "cluster/0f3a9c", pathStyle: true, region: "us-east-1",
             headers: ["Content-Type": "image/webp", "Cache-Control": "max-age=3600", "x-amz-meta-loupe-format": "webp"],
             method: "PUT", body: "RIFF....WEBPVP8 a result's bytes"),
    ]

    @Test func matchesBotocore() async throws {
        let json = String(decoding: try JSONEncoder().encode(Self.cases), as: UTF8.self)
        let output = try await PythonReference.run("sigv4_reference.py", arguments: [json])
        let references = try JSONDecoder().decode([Reference].self, from: output)
        try #require(references.count == Self.cases.count)
        for (testCase, reference) in zip(Self.cases, references) {
            let credentials = S3Credentials(accessKeyID: testCase.accessKey, secretAccessKey: testCase.secretKey, sessionToken: testCase.token)
            let configuration = try S3Configuration(endpoint: URL(string: testCase.endpoint), region: testCase.region,
                                                    usesPathStyle: testCase.pathStyle, credentials: credentials)
            let location = try S3Location(bucket: testCase.bucket, key: testCase.key, versionID: testCase.versionId)
            let payloadHash = testCase.body.map { S3RequestSigner.payloadHash(of: Data($0.utf8)) } ?? S3RequestSigner.emptyBodyHash
            let (url, signable) = configuration.request(for: location, method: testCase.method ?? "GET", headers: testCase.headers,
                                                        payloadHash: payloadHash)
            #expect(url?.absoluteString == reference.url, "\(testCase.key)")
            let date = Date(timeIntervalSince1970: TimeInterval(testCase.epochSeconds))
            let headers = configuration.credentials.map { S3RequestSigner(credentials: $0, region: testCase.region) }?
                .signedHeaders(for: signable, at: date)
            #expect(headers?["authorization"] == reference.authorization, "\(testCase.key)")
            #expect(headers?["x-amz-security-token"] == testCase.token)
        }
    }

    @Test func unsignedWithoutCredentials() throws {
        let configuration = try S3Configuration(endpoint: URL(string: "http://127.0.0.1:9000"))
        let (_, signable) = configuration.request(for: try S3Location(bucket: "public", key: "a.jpg"), headers: [:])
        let headers = S3RequestSigner(credentials: nil, region: "us-east-1").signedHeaders(for: signable, at: Date())
        #expect(headers == ["host": "127.0.0.1:9000"])
    }

    /// Virtual-host addressing only where the bucket can be a host name label under the
    /// endpoint: not for an IP address, not for a dotted bucket over HTTPS.
    @Test func virtualHostFallsBackToPathStyle() throws {
        let location = try S3Location(bucket: "photos.example", key: "a.jpg")
        let https = try S3Configuration(endpoint: URL(string: "https://s3.example.com"), usesPathStyle: false)
        #expect(https.request(for: location, headers: [:]).url?.absoluteString == "https://s3.example.com/photos.example/a.jpg")
        let http = try S3Configuration(endpoint: URL(string: "http://s3.example.com"), usesPathStyle: false)
        #expect(http.request(for: location, headers: [:]).url?.absoluteString == "http://photos.example.s3.example.com/a.jpg")
        let address = try S3Configuration(endpoint: URL(string: "http://10.0.0.5:9000"), usesPathStyle: false)
        #expect(address.request(for: location, headers: [:]).url?.absoluteString == "http://10.0.0.5:9000/photos.example/a.jpg")
    }

    /// Caller headers that collide with the signer's own are replaced, never sent twice.
    @Test func ownHeadersReplaceTheCallers() throws {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")
        let signable = S3RequestSigner.Request(method: "GET", host: "h:1", encodedPath: "/b/k",
                                               headers: ["Host": "evil", "X-Amz-Date": "19990101T000000Z", "Authorization": "Bearer x"])
        let headers = S3RequestSigner(credentials: credentials, region: "us-east-1").signedHeaders(for: signable, at: Date(timeIntervalSince1970: 0))
        #expect(headers["host"] == "h:1")
        #expect(headers["x-amz-date"] == "19700101T000000Z")
        #expect(headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKID/19700101/") == true)
        #expect(headers.keys.filter { $0.lowercased() == "host" }.count == 1)
    }
}
