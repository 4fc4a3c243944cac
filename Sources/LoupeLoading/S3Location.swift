import Foundation

/// An object in an S3 bucket as a source names it: `s3://bucket/key`, optionally
/// `?versionId=…` for one version of it (imgproxy's form). The key is percent-decoded here and
/// encoded again, SigV4's way, when a request is built, so `s3://b/a%20b.jpg` names the key
/// `a b.jpg`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket.
    public let bucket: String
    /// The object's key, decoded.
    public let key: String
    /// One version of the object; `nil` for the current one.
    public let versionID: String?

    /// S3's limit on a key's UTF-8 bytes.
    static let maximumKeyBytes = 1024

    /// The object `key` in `bucket`.
    /// - Throws: ``DataLoadingError/invalidURL(_:)`` for a bucket name S3 would refuse, an empty
    ///   or overlong key, a key with `.` or `..` segments, or an empty version.
    public init(bucket: String, key: String, versionID: String? = nil) throws(DataLoadingError) {
        guard Self.isValidBucket(bucket) else {
            throw .invalidURL("'\(bucket)' is not an S3 bucket name (3 to 63 lower-case letters, digits, '.', '-' or '_')")
        }
        guard !key.isEmpty, key.utf8.count <= Self.maximumKeyBytes else {
            throw .invalidURL("an S3 object key has 1 to \(Self.maximumKeyBytes) bytes")
        }
        // S3 takes `.` and `..` as they are, but a proxy or server on the way may resolve them,
        // which would step outside a prefix the service allows.
        guard !key.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) else {
            throw .invalidURL("an S3 object key with '.' or '..' segments is refused")
        }
        guard versionID.map({ !$0.isEmpty }) ?? true else { throw .invalidURL("an empty S3 versionId") }
        self.bucket = bucket
        self.key = key
        self.versionID = versionID
    }

    /// The object an `s3://bucket/key[?versionId=…]` URL names.
    /// - Throws: ``DataLoadingError/unsupportedScheme(_:)`` for another scheme;
    ///   ``DataLoadingError/invalidURL(_:)`` for user information, a port, a fragment, a query
    ///   item other than one `versionId`, or a bucket or key S3 would refuse.
    public init(url: URL) throws(DataLoadingError) {
        guard url.scheme?.lowercased() == "s3" else { throw .unsupportedScheme(url.scheme ?? "") }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { throw .invalidURL("not a valid s3:// URL") }
        guard components.user == nil, components.password == nil, components.port == nil, components.fragment == nil else {
            throw .invalidURL("an s3:// URL names a bucket and a key only (no user, port or fragment)")
        }
        let path = components.percentEncodedPath
        let encodedKey = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard let key = encodedKey.removingPercentEncoding else { throw .invalidURL("the S3 object key is not valid percent-encoded UTF-8") }
        var version: String?
        for item in components.queryItems ?? [] {
            guard item.name == "versionId", version == nil, let value = item.value else {
                throw .invalidURL("an s3:// URL's query may hold one versionId and nothing else")
            }
            version = value
        }
        try self.init(bucket: components.host ?? "", key: key, versionID: version)
    }

    /// The `s3://` URL of this object, its key percent-encoded.
    public var description: String {
        let version = versionID.map { "?versionId=" + S3RequestSigner.encode($0, keepingSlashes: false) } ?? ""
        return "s3://\(bucket)/\(S3RequestSigner.encode(key, keepingSlashes: true))\(version)"
    }

    /// Whether `name` is a bucket name S3 (or an S3-compatible server's older rules) accepts:
    /// 3–63 of lower-case letters, digits, `.`, `-` and `_`, starting and ending with a letter
    /// or digit.
    package static func isValidBucket(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard let first = bytes.first, let last = bytes.last, isAlphanumeric(first), isAlphanumeric(last) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// Whether the bucket can be a host name label of its own (virtual-host addressing): no
    /// `_`, no `..`, and, over HTTPS, no `.` at all (a wildcard certificate covers one label).
    func isHostCompatible(overHTTPS: Bool) -> Bool {
        !bucket.contains("_") && !bucket.contains("..") && !(overHTTPS && bucket.contains("."))
    }
}
