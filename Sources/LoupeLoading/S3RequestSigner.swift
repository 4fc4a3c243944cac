import Foundation

/// AWS Signature Version 4 for S3 requests: the `Authorization` header (and the `x-amz-date`,
/// `x-amz-content-sha256` and `x-amz-security-token` headers it covers) of a request, its body
/// signed by its SHA-256, as AWS, Ceph's RADOS Gateway, MinIO, R2 and Google Cloud Storage's XML API check it.
///
/// Every header given is signed (as botocore signs them), so a server can tell that none was
/// changed on the way. S3 does not normalise paths: the path is signed as sent, its segments
/// percent-encoded by ``encode(_:keepingSlashes:)``.
public struct S3RequestSigner: Sendable {
    /// The keys that sign; `nil` signs nothing (anonymous requests to a public bucket).
    public var credentials: S3Credentials?
    /// The region in the signature's scope (`us-east-1` for most S3-compatible servers).
    public var region: String
    /// The service in the scope.
    public var service = "s3"

    /// A signer for `region` with `credentials`.
    public init(credentials: S3Credentials?, region: String) {
        self.credentials = credentials
        self.region = region
    }

    /// What is signed: a request as it will be sent.
    public struct Request: Sendable {
        /// The method (`GET`).
        public var method: String
        /// The `Host` header: the host, with its port when not the scheme's default.
        public var host: String
        /// The path as sent, already percent-encoded.
        public var encodedPath: String
        /// The query's items, not encoded.
        public var query: [(name: String, value: String)]
        /// The other headers sent (all are signed).
        public var headers: [String: String]
        /// The body's SHA-256 in lower-case hexadecimal (a `PUT`'s); no body by default.
        public var payloadHash: String

        /// A request to sign.
        public init(method: String, host: String, encodedPath: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
                    payloadHash: String = S3RequestSigner.emptyBodyHash) {
            self.method = method
            self.host = host
            self.encodedPath = encodedPath
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// The SHA-256 of an empty body: requests without one sign it.
    public static let emptyBodyHash = payloadHash(of: Data())

    /// The SHA-256 of `body` as a request signs it.
    public static func payloadHash(of body: Data) -> String {
        Hex.string(Digest.sha256(body))
    }

    /// The headers to send, names lower-cased: `request.headers` with `host`, `x-amz-date`,
    /// `x-amz-content-sha256`, the session token and `authorization` added, signed at `date`.
    /// Without credentials, the headers as given plus `host`.
    public func signedHeaders(for request: Request, at date: Date) -> [String: String] {
        // Names lower-cased here, so that a caller's `host` or `X-Amz-Date` cannot be sent twice.
        var headers = Dictionary(request.headers.map { ($0.key.lowercased(), $0.value) }) { _, last in last }
        headers["host"] = request.host
        guard let credentials else { return headers }
        let timestamp = Self.timestamp(date)
        let day = String(timestamp.prefix(8))
        headers["x-amz-date"] = timestamp
        headers["x-amz-content-sha256"] = request.payloadHash
        headers["x-amz-security-token"] = credentials.sessionToken
        headers["authorization"] = nil

        // Canonical headers: sorted by name; values trimmed, each inner run of blanks one space.
        let canonical: [(name: String, value: String)] = headers.map { name, value in
            (name, value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " "))
        }.sorted { left, right in left.name < right.name }
        let signedNames: String = canonical.map(\.name).joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = request.query.map { item in
            (Self.encode(item.name, keepingSlashes: false), Self.encode(item.value, keepingSlashes: false))
        }
        let canonicalQuery: String = encodedQuery
            .sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
            .map { item in item.name + "=" + item.value }.joined(separator: "&")
        let canonicalHeaders: String = canonical.map { name, value in name + ":" + value + "\n" }.joined()
        let path: String = request.encodedPath.isEmpty ? "/" : request.encodedPath
        let canonicalRequest: String = [request.method.uppercased(), path, canonicalQuery, canonicalHeaders, signedNames, request.payloadHash]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let requestHash: String = Hex.string(Digest.sha256(utf8: canonicalRequest))
        let stringToSign: String = ["AWS4-HMAC-SHA256", timestamp, scope, requestHash].joined(separator: "\n")
        var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
        for part in [day, region, service, "aws4_request"] {
            key = Digest.hmac(.sha256, key: key, message: Array(part.utf8))
        }
        let signature = Hex.string(Digest.hmac(.sha256, key: key, message: Array(stringToSign.utf8)))
        headers["authorization"] =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedNames), Signature=\(signature)"
        return headers
    }

    /// `text` percent-encoded as SigV4 wants: every byte of its UTF-8 but `A–Z a–z 0–9 - . _ ~`
    /// as `%XX` (upper-case hex), and `/` kept when `keepingSlashes` (an object key's path).
    public static func encode(_ text: String, keepingSlashes: Bool) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                encoded.append("/")
            default:
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// `date` as SigV4's basic ISO 8601 timestamp, `20130524T000000Z`, in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { let value = value ?? 0; return value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
    }
}
