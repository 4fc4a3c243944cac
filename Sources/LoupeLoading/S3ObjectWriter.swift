import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Writes objects to S3 or an S3-compatible server: a `PUT` signed with AWS Signature Version 4
/// (``S3RequestSigner``, the body signed by its SHA-256), for a service that keeps what it
/// made in a bucket. The endpoint is the operator's (``S3Configuration/endpoint``), as for
/// ``S3DataLoader``; redirects are not followed.
public struct S3ObjectWriter: Sendable {
    /// The endpoint, region, addressing and credentials.
    public let configuration: S3Configuration
    /// How long one write may take, connection included.
    public let timeout: Duration
    private let owner: OwnedHTTPClient
    private let signer: S3RequestSigner
    private let now: @Sendable () -> Date

    /// A writer for `configuration` whose writes each end within `timeout`.
    ///
    /// - Parameter now: the signing clock (tests fix it).
    public init(configuration: S3Configuration, timeout: Duration = .seconds(30), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.timeout = timeout
        self.now = now
        signer = S3RequestSigner(credentials: configuration.credentials, region: configuration.region)
        let connect = TimeAmount(min(timeout, .seconds(10)))
        owner = OwnedHTTPClient(configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: connect)))
    }

    /// Stores `body` at `location` (its version ignored: a write makes a new one), with
    /// `headers` (`Content-Type`, `x-amz-meta-*` user metadata, `Cache-Control`, …) kept with it.
    ///
    /// - Throws: ``DataLoadingError/accessDenied(status:code:url:)`` when the server refuses the
    ///   credentials, ``DataLoadingError/httpStatus(_:url:retryAfter:)`` for another error
    ///   answer (404 for a missing bucket), ``DataLoadingError/timedOut(_:)`` past the
    ///   timeout, or the connection's error.
    public func put(_ body: Data, at location: S3Location, headers: [String: String] = [:]) async throws {
        let target = try S3Location(bucket: location.bucket, key: location.key)
        let (url, signable) = configuration.request(for: target, method: "PUT", headers: headers,
                                                    payloadHash: S3RequestSigner.payloadHash(of: body))
        guard let url else { throw DataLoadingError.invalidURL(target.description) }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .PUT
        for (name, value) in signer.signedHeaders(for: signable, at: now()) { request.headers.add(name: name, value: value) }
        request.headers.replaceOrAdd(name: "content-length", value: String(body.count))
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        do {
            response = try await owner.client.execute(request, deadline: .now() + TimeAmount(timeout))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .connectTimeout {
            throw DataLoadingError.timedOut(.total)
        }
        let status = Int(response.status.code)
        var document = Data()
        // An error document is small; a longer body is cut, which closes its stream.
        for try await chunk in response.body {
            chunk.withUnsafeReadableBytes { document.append(contentsOf: $0.prefix(AsyncHTTPClientDataLoader.errorBodyLimit - document.count)) }
            if document.count >= AsyncHTTPClientDataLoader.errorBodyLimit { break }
        }
        guard (200..<300).contains(status) else {
            let headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
            throw S3DataLoader.error(for: DataResponse(data: document, statusCode: status, headers: headers, url: url), at: target)
        }
    }
}
