import LoupeLoading

/// Where results are kept for a whole cluster: a bucket and a key prefix, from the setting's
/// `s3://bucket[/prefix]` (``ResultStorage``).
struct ResultStoragePlace: Sendable, Equatable, CustomStringConvertible {
    /// The bucket.
    let bucket: String
    /// What every result's key starts with: empty, or ending in `/`.
    let prefix: String

    /// The place `text` names, or `nil` when it is not `s3://bucket[/prefix]` with a bucket
    /// name S3 takes and a prefix without `.` or `..` segments.
    init?(_ text: String) {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        guard S3Location.isValidBucket(bucket), prefix.utf8.count <= 512, !prefix.contains("?"), !prefix.contains("#"),
              !prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." })
        else { return nil }
        self.bucket = bucket
        self.prefix = prefix
    }

    var description: String { "s3://\(bucket)/\(prefix)" }
}
