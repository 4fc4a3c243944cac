import Foundation

/// One source of `loupe fetch` as the user wrote it, and the URL it names: an `http(s)` or `s3`
/// URL, a `file` or `data` URL, or a path to a local file (relative paths against the working folder).
struct FetchSource: Sendable {
    /// What the user wrote, reported back verbatim as `"source"`.
    let text: String
    /// The URL to load, or why the text names none.
    let url: Result<URL, FetchFailure>

    init(_ text: String, workingDirectory: URL) {
        self.text = text
        url = Self.parse(text, workingDirectory: workingDirectory)
    }

    /// The identity of what is loaded: sources naming the same URL are loaded once.
    var identity: String {
        switch url {
        case .success(let url): url.absoluteString
        case .failure: "invalid:" + text
        }
    }

    private static func parse(_ text: String, workingDirectory: URL) -> Result<URL, FetchFailure> {
        guard !text.isEmpty else { return .failure(.invalidSource("empty source")) }
        let scheme = text.prefix { $0 != ":" }.lowercased()
        // Without a colon there is no scheme at all: a path.
        switch scheme.count < text.count ? scheme : "" {
        case "http", "https", "s3":
            guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
                return .failure(.invalidSource("not a valid \(scheme) URL"))
            }
            return .success(url)
        case "file":
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
                return .failure(.invalidSource("not a valid file URL"))
            }
            return .success(url)
        case "data":
            guard let url = URL(string: text) else { return .failure(.invalidSource("not a valid data URL")) }
            return .success(url)
        default:
            // `ftp://…` and the like name schemes we do not load; anything else without `://`
            // is a path, even with a colon in it (`photo:1.jpg`).
            if text.dropFirst(scheme.count).hasPrefix("://") {
                return .failure(.invalidSource("unsupported URL scheme '\(scheme)' (http, https, s3, file and data are supported)"))
            }
            return .success(URL(fileURLWithPath: text, relativeTo: workingDirectory).standardizedFileURL.absoluteURL)
        }
    }
}
