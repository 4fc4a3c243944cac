import Foundation

/// Loads `s3://bucket/key[?versionId=…]` URLs from S3 or an S3-compatible server: a GET signed
/// with AWS Signature Version 4 (``S3RequestSigner``) sent through ``AsyncHTTPClientDataLoader``,
/// so it streams, refuses a `Content-Length` over the size limit before the body, and keeps the
/// download's deadline like any HTTP load. Wrap it in ``RetryingDataLoader`` for retries of
/// transient failures under that deadline; each attempt is signed anew.
///
/// A request's headers (`If-None-Match`, `If-Modified-Since`: a stale cached copy costs a 304)
/// are signed and sent. The server's error document is read for its `Code`: `NoSuchKey`,
/// `NoSuchBucket` and `NoSuchVersion` become a 404 (``DataLoadingError/httpStatus(_:url:retryAfter:)``),
/// refused credentials or configuration ``DataLoadingError/accessDenied(status:code:url:)``;
/// neither names more than the code, since S3's messages may quote the signature.
///
/// The endpoint is the operator's (``S3Configuration/endpoint``), so its connections are not
/// held to a sources' ``NetworkAddressPolicy``: an `s3://` URL names a bucket and a key on that
/// endpoint, never a host. Redirects are not followed.
public struct S3DataLoader: DataLoading {
    /// The endpoint, region, addressing and credentials.
    public let configuration: S3Configuration
    private let http: AsyncHTTPClientDataLoader
    private let signer: S3RequestSigner
    private let now: @Sendable () -> Date

    /// The codes that mean the loader's credentials or configuration are refused.
    static let accessDeniedCodes: Set<String> = [
        "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "InvalidToken", "ExpiredToken", "TokenRefreshRequired",
        "AuthorizationHeaderMalformed", "RequestTimeTooSkewed", "PermanentRedirect", "AllAccessDisabled", "AccountProblem",
        "InvalidSecurity", "MissingSecurityHeader",
    ]
    /// The codes that mean the object (or its bucket or version) does not exist.
    static let notFoundCodes: Set<String> = ["NoSuchKey", "NoSuchBucket", "NoSuchVersion"]

    /// A loader for `configuration` with `limits` (size, connect and total time; redirects are
    /// never followed).
    ///
    /// - Parameter now: the signing clock (tests fix it).
    public init(configuration: S3Configuration, limits: HTTPLoadingLimits = HTTPLoadingLimits(),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        var limits = limits
        limits.maximumRedirects = 0
        http = AsyncHTTPClientDataLoader(limits: limits, addressPolicy: .unrestricted, returnsErrorResponses: true)
        signer = S3RequestSigner(credentials: configuration.credentials, region: configuration.region)
        self.now = now
    }

    /// The HTTP loader's limit: retries share it.
    public var downloadTimeout: Duration? { http.downloadTimeout }

    public func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        let location = try S3Location(url: request.url)
        try request.checkMethodAndHeaders()
        guard request.method.uppercased() == "GET" else {
            throw DataLoadingError.invalidRequest("s3:// sources are read with GET, not \(request.method)")
        }
        let (url, signable) = configuration.request(for: location, headers: request.headers)
        guard let url else { throw DataLoadingError.invalidURL(location.description) }
        let headers = signer.signedHeaders(for: signable, at: now())
        let response: DataResponse
        do {
            response = try await http.loadData(for: DataRequest(url: url, headers: headers, timeout: request.timeout), progress: progress)
        } catch DataLoadingError.tooManyRedirects {
            // S3 redirects a request sent to the wrong region's endpoint.
            throw DataLoadingError.accessDenied(status: 301, code: "PermanentRedirect", url: location.description)
        } catch let error as DataLoadingError {
            throw Self.naming(location, in: error)
        }
        let status = response.statusCode
        guard (200..<300).contains(status) || status == 304 else { throw Self.error(for: response, at: location) }
        return DataResponse(data: response.data, statusCode: status, headers: response.headers, url: request.url)
    }

    /// What an error answer means, from its status and its document's `Code`.
    static func error(for response: DataResponse, at location: S3Location) -> DataLoadingError {
        let status = response.statusCode
        let code = errorCode(in: response.data)
        if let code, notFoundCodes.contains(code) {
            return .httpStatus(404, url: location.description, retryAfter: nil)
        }
        if let code, accessDeniedCodes.contains(code) {
            return .accessDenied(status: status, code: code, url: location.description)
        }
        // A 403 without a document (a HEAD, or a server that sends none) is still a refusal.
        if status == 403 { return .accessDenied(status: status, code: code ?? "AccessDenied", url: location.description) }
        return .httpStatus(status, url: location.description, retryAfter: response.header("retry-after").flatMap(RetryAfter.seconds))
    }

    /// The `<Code>` of an S3 error document, when it holds one made of letters and digits.
    static func errorCode(in document: Data) -> String? {
        guard let text = String(data: document.prefix(AsyncHTTPClientDataLoader.errorBodyLimit), encoding: .utf8),
              let open = text.range(of: "<Code>"), let close = text.range(of: "</Code>", range: open.upperBound..<text.endIndex)
        else { return nil }
        let code = text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...64).contains(code.utf8.count), code.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        return code
    }

    /// `error` with the endpoint's URL replaced by the `s3://` one, so that messages name the
    /// source as it was asked for.
    private static func naming(_ location: S3Location, in error: DataLoadingError) -> DataLoadingError {
        switch error {
        case .httpStatus(let status, _, let retryAfter): .httpStatus(status, url: location.description, retryAfter: retryAfter)
        case .invalidURL: .invalidURL(location.description)
        default: error
        }
    }
}
