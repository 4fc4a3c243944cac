import Foundation

/// Where and how ``S3DataLoader`` reaches S3: the endpoint, the region, the addressing style
/// and the credentials — the operator's choice, never a source's.
public struct S3Configuration: Sendable, Equatable {
    /// The server's base URL (`http(s)://host[:port]`), e.g. a RADOS Gateway, MinIO, R2 or
    /// `https://storage.googleapis.com`; `nil` for AWS's endpoint of ``region``. It may be on a
    /// private network or loopback: the S3 loader connects there whatever the sources' address
    /// policy, and nowhere else (it follows no redirect).
    public var endpoint: URL?
    /// The region in the signatures (and AWS's endpoint); `us-east-1` by default.
    public var region: String
    /// Path-style addressing (`endpoint/bucket/key`, imgproxy's default) rather than
    /// virtual-host (`bucket.endpoint/key`). Virtual-host falls back to path-style for a bucket
    /// that cannot be a host name label and for an endpoint that is an IP address.
    public var usesPathStyle: Bool
    /// The keys that sign requests; `nil` sends them unsigned (public buckets only).
    public var credentials: S3Credentials?

    /// A configuration.
    /// - Throws: ``S3ConfigurationError`` for an endpoint that is not `http(s)://host[:port]`
    ///   (no path, query or user information) or a region that is not a name.
    public init(endpoint: URL? = nil, region: String = "us-east-1", usesPathStyle: Bool = true, credentials: S3Credentials? = nil)
        throws(S3ConfigurationError) {
        if let endpoint {
            guard let components = URLComponents(url: endpoint, resolvingAgainstBaseURL: true),
                  let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
                  components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil
            else { throw S3ConfigurationError("the S3 endpoint '\(endpoint.absoluteString)' is not an http(s)://host[:port] URL") }
        }
        guard !region.isEmpty, region.utf8.count <= 64,
              region.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") })
        else { throw S3ConfigurationError("the S3 region '\(region)' is not a region name like eu-west-1") }
        self.endpoint = endpoint
        self.region = region
        self.usesPathStyle = usesPathStyle
        self.credentials = credentials
    }

    /// The region the AWS tools would use: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `nil`.
    public static func region(in environment: [String: String]) -> String? {
        for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return nil
    }

    /// The HTTP request for `location` (a `GET` unless `method` says otherwise): its URL and
    /// what the signer signs.
    func request(for location: S3Location, method: String = "GET", headers: [String: String],
                 payloadHash: String = S3RequestSigner.emptyBodyHash) -> (url: URL?, signable: S3RequestSigner.Request) {
        let base = endpoint.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true) }
        let scheme = base?.scheme?.lowercased() ?? "https"
        let endpointHost = base?.host?.lowercased() ?? (region == "us-east-1" ? "s3.amazonaws.com" : "s3.\(region).amazonaws.com")
        let isAddress = endpointHost.contains(":") || endpointHost.utf8.allSatisfy { (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }
        let virtualHost = !usesPathStyle && !isAddress && location.isHostCompatible(overHTTPS: scheme == "https")
        var host = virtualHost ? "\(location.bucket).\(endpointHost)" : endpointHost
        if host.contains(":") { host = "[\(host)]" }
        if let port = base?.port, port != (scheme == "https" ? 443 : 80) { host += ":\(port)" }
        let key = S3RequestSigner.encode(location.key, keepingSlashes: true)
        let path = virtualHost ? "/" + key : "/\(S3RequestSigner.encode(location.bucket, keepingSlashes: false))/\(key)"
        let query = location.versionID.map { [(name: "versionId", value: $0)] } ?? []
        let queryText = location.versionID.map { "?versionId=" + S3RequestSigner.encode($0, keepingSlashes: false) } ?? ""
        return (URL(string: "\(scheme)://\(host)\(path)\(queryText)"),
                S3RequestSigner.Request(method: method, host: host, encodedPath: path, query: query, headers: headers, payloadHash: payloadHash))
    }
}

/// Why an S3 configuration or its credentials cannot be used. The message names settings,
/// variables, files and profiles, never a key.
public struct S3ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
