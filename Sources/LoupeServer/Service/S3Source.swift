import Foundation
import LoupeLoading

/// An `s3://bucket/key[?versionId=…]` source as the service checks it before any work: S3 on
/// (``S3Settings/isEnabled``), a well-formed bucket and key, a bucket the settings allow, and,
/// with allowed sources set, an `s3://` prefix covering it.
enum S3Source {
    /// Whether the client named an S3 object.
    static func isS3(_ source: String) -> Bool { source.prefix(5).lowercased() == "s3://" }

    /// The URL the pipeline loads for `source`, or the service's answer refusing it: 403 with
    /// S3 off or for a bucket or key not allowed, 400 for one that is not an S3 object's URL.
    static func check(_ source: String, settings: ServerSettings) throws(ServiceError) -> URL {
        guard settings.s3.isEnabled else {
            throw .forbiddenSource("s3:// sources are off on this server (IMGPROXY_USE_S3, --use-s3)")
        }
        guard let url = URL(string: source) else { throw .badURL("the source is not a valid URL") }
        let location: S3Location
        do throws(DataLoadingError) {
            location = try S3Location(url: url)
        } catch {
            throw .badURL("the source is not an S3 object: \(error)")
        }
        guard settings.s3.allows(bucket: location.bucket) else {
            throw .forbiddenSource("the S3 bucket '\(location.bucket)' is not allowed")
        }
        try settings.sources.checkS3(location)
        return url
    }
}
