import Foundation
import LoupeLoading

/// A `local:///path` source (imgproxy's local file system): the path, taken literally (no
/// percent-decoding beyond the URL's own), under ``ServerSettings/localRoot``.
///
/// Which paths may be read is decided by ``RootedFileSystem`` alone; this maps its answers to
/// the service's (403 for a path that would leave the folder, 404 for a missing file or one that
/// is not a regular file) and names the file's version, so that the result cache and the
/// pipeline's caches never answer with an image of the file as it was before it changed.
struct LocalSource: Sendable {
    /// The scheme and empty host every local source starts with.
    static let prefix = "local://"

    /// The URL the pipeline loads (a file URL under the folder, read by ``RootedFileLoader``).
    let url: URL
    /// The path under the folder, as the client named it.
    let path: String
    /// The file as it is now.
    let attributes: RootedFileAttributes

    /// Whether `source` names a local file (the scheme in any case, as URL schemes are).
    static func isLocal(_ source: String) -> Bool {
        source.utf8.count >= prefix.utf8.count && source.prefix(prefix.count).lowercased() == prefix
    }

    /// Resolves `source` (a local one: ``isLocal(_:)``) against `loader`'s folder, once `policy`
    /// allows its path.
    init(_ source: String, loader: RootedFileLoader?, policy: SourcePolicy) throws(ServiceError) {
        guard let loader else {
            throw .forbiddenSource("local sources are not enabled on this server (no local root folder is set)")
        }
        let rest = source.dropFirst(Self.prefix.count)
        guard rest.hasPrefix("/") else {
            throw .badURL("a local source is local:///path (three slashes: no host)")
        }
        path = String(rest)
        try policy.checkLocal(path)
        do throws(RootedFileError) {
            url = try loader.url(for: path)
            attributes = try loader.fileSystem.attributes(of: path)
        } catch {
            throw Self.serviceError(error)
        }
    }

    /// Distinguishes this version of the file from any other: part of every cache key.
    var version: String { attributes.version }

    /// The key the pipeline caches the file's data and images under.
    var pipelineKey: String { "local:" + path + "#" + version }

    static func serviceError(_ error: RootedFileError) -> ServiceError {
        switch error {
        case .refused(let reason): .forbiddenSource("the local source is refused: \(reason)")
        case .notFound: ServiceError(404, "sourceNotFound", "the local source does not exist")
        case .notRegularFile: ServiceError(404, "sourceNotFound", "the local source is not a regular file")
        case .tooLarge: ServiceError(413, "sourceTooLarge", error.description)
        case .unreadable, .rootUnusable: ServiceError(404, "sourceNotFound", "the local source cannot be read")
        }
    }
}
