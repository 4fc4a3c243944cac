import Foundation
import LoupeLoading

/// The `s3://bucket/key` sources of `loupe serve`: off unless enabled (imgproxy's
/// `IMGPROXY_USE_S3`), the server (`IMGPROXY_S3_ENDPOINT`, `IMGPROXY_S3_REGION`,
/// `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE`), the buckets a URL may name
/// (`IMGPROXY_S3_ALLOWED_BUCKETS`, `IMGPROXY_S3_DENIED_BUCKETS`) and the credentials, read as the
/// AWS tools read them (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, the
/// shared credentials file). The credentials appear in no description, log or answer
/// (`S3Credentials`).
public struct S3Settings: Sendable {
    /// Whether `s3://` sources are loaded; off, they are refused with 403.
    public var isEnabled = false
    /// The S3 server's base URL; `nil` for AWS's endpoint of the region.
    public var endpoint: URL?
    /// The signing region; `nil` for `AWS_REGION` (or `AWS_DEFAULT_REGION`), else `us-east-1`.
    public var region: String?
    /// Path-style addressing (imgproxy's default) rather than virtual-host.
    public var usesPathStyle = true
    /// The only buckets a source may name; empty for any.
    public var allowedBuckets: [String] = []
    /// Buckets no source may name (over ``allowedBuckets``).
    public var deniedBuckets: [String] = []
    /// The keys that sign requests, read from the environment with the other settings; `nil`
    /// sends requests unsigned.
    public var credentials: S3Credentials?

    /// The defaults: off.
    public init() {}

    /// The S3 loader's configuration.
    /// - Throws: a ``SettingsError`` naming the endpoint or region setting that is not valid.
    public func configuration() throws(SettingsError) -> S3Configuration {
        do throws(S3ConfigurationError) {
            return try S3Configuration(endpoint: endpoint, region: region ?? "us-east-1", usesPathStyle: usesPathStyle, credentials: credentials)
        } catch {
            throw SettingsError("S3 (--s3-endpoint, --s3-region): \(error.message)")
        }
    }

    /// Reads the region (when no setting gave one) and the credentials from `environment`, as
    /// the AWS tools would, and checks the whole configuration: called at start-up when S3 is on.
    /// - Throws: a ``SettingsError`` naming the variable, file or profile at fault, never a key.
    mutating func readCredentials(from environment: [String: String]) throws(SettingsError) {
        region = region ?? S3Configuration.region(in: environment)
        do throws(S3ConfigurationError) {
            credentials = try S3Credentials.fromEnvironment(environment)
        } catch {
            throw SettingsError("S3 credentials: \(error.message)")
        }
        _ = try configuration()
    }

    /// The S3 settings `environment` gives — the same `LOUPE_*` and `IMGPROXY_*` variables as
    /// `loupe serve`'s, with the `AWS_*` ones — and S3 on: for a command that loads `s3://`
    /// sources outside the service (`loupe fetch`). Other settings' variables are not read.
    /// - Throws: the first S3 setting or credential that cannot be used, as one line naming it.
    public static func fromEnvironment(_ environment: [String: String]) throws(SettingsError) -> S3Settings {
        let own = ServerSettings.all.filter { $0.flag == "use-s3" || $0.flag.hasPrefix("s3-") }
        let names = Set(own.flatMap { [$0.environmentVariable] + $0.imgproxy.map(\.name) })
        var relevant = environment.filter { names.contains($0.key) || $0.key.hasPrefix("AWS_") || $0.key == "HOME" }
        relevant["LOUPE_USE_S3"] = "true"
        return try ServerSettings(flags: [:], environment: relevant).s3
    }

    /// Whether a source may name `bucket`: not denied, and allowed when a list of allowed ones is set.
    func allows(bucket: String) -> Bool {
        !deniedBuckets.contains(bucket) && (allowedBuckets.isEmpty || allowedBuckets.contains(bucket))
    }
}
