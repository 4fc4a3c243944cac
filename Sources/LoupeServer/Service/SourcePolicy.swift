import Foundation
import LoupeLoading

/// Which source URLs the service loads: `http`/`https` (and `local:///path` when a local root is
/// set, `s3://bucket/key` when S3 is on), and with allowed prefixes set, only URLs under one of
/// them, compared by parsed parts — scheme, host, port and path — never as text, so
/// `https://a.com@evil.com/` is not under `https://a.com`. As imgproxy's allowed sources, a list
/// of prefixes applies to local and S3 sources too: `local:///folder/` allows the files under
/// that folder of the local root, `s3://bucket/folder/` the keys under `folder/` in that bucket
/// (compared decoded, as S3 names keys). A `*` in a prefix's host (or bucket) or path is
/// imgproxy's wildcard, any run of characters without a `/` (`SourcePattern`): it matches
/// within the part it is written in, a host as a whole (`https://*.example.com/` allows
/// `a.example.com`, not `a.example.community`), a path segment by segment.
public struct SourcePolicy: Sendable, Equatable {
    /// One allowed prefix, parsed.
    struct Prefix: Sendable, Equatable {
        var scheme: String
        var host: SourcePattern
        var port: Int?
        var path: String

        init(scheme: String, host: String, port: Int?, path: String) {
            self.scheme = scheme
            self.host = SourcePattern(host)
            self.port = port
            self.path = path
        }

        /// A prefix ending in `/` covers its folder; one without covers that path and below.
        /// A `*` takes no `/`, so the part of `candidate` the prefix can match holds as many
        /// `/` as the prefix: that part is compared whole.
        func covers(_ candidate: String) -> Bool {
            let slashes = path.reduce(0) { $0 + ($1 == "/" ? 1 : 0) }
            var seen = 0
            var end = candidate.endIndex
            for index in candidate.indices where candidate[index] == "/" {
                seen += 1
                if path.hasSuffix("/"), seen == slashes {
                    end = candidate.index(after: index)
                    break
                }
                if !path.hasSuffix("/"), seen == slashes + 1 {
                    end = index
                    break
                }
            }
            guard seen >= slashes else { return false }
            return SourcePattern(path).matches(candidate[..<end])
        }

        /// Whether `host` (lowercased) is this prefix's.
        func names(host candidate: String) -> Bool {
            host.matches(candidate)
        }
    }

    let prefixes: [Prefix]

    /// A policy allowing URLs under `prefixes` (all http(s) URLs when empty).
    /// - Throws: a message naming a prefix that is not an absolute http(s) URL.
    public init(allowedPrefixes: [String]) throws(SettingsError) {
        var parsed: [Prefix] = []
        for written in allowedPrefixes {
            // URLComponents takes no `*` in a host: the wildcard is parsed as a placeholder
            // (letters only, valid in hosts, buckets and paths) and put back after.
            guard !written.contains(Self.wildcardPlaceholder) else {
                throw SettingsError("allowed source '\(written)' holds '\(Self.wildcardPlaceholder)', which Loupe uses internally")
            }
            let text = written.replacingOccurrences(of: "*", with: Self.wildcardPlaceholder)
            if LocalSource.isLocal(text) {
                let path = String(text.dropFirst(LocalSource.prefix.count))
                guard path.hasPrefix("/") else {
                    throw SettingsError("allowed source '\(written)' is not a local prefix like local:///folder/")
                }
                parsed.append(Prefix(scheme: "local", host: "", port: nil, path: Self.restoringWildcards(path)))
                continue
            }
            if text.lowercased().hasPrefix("s3://") {
                guard let url = URLComponents(string: text), let bucket = url.host, S3Location.isValidBucket(bucket),
                      url.user == nil, url.password == nil, url.port == nil, url.query == nil, url.fragment == nil,
                      let path = url.percentEncodedPath.removingPercentEncoding
                else { throw SettingsError("allowed source '\(written)' is not an S3 prefix like s3://bucket/folder/") }
                parsed.append(Prefix(scheme: "s3", host: Self.restoringWildcards(bucket), port: nil,
                                     path: path.isEmpty ? "/" : Self.restoringWildcards(path)))
                continue
            }
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
                  url.user == nil, url.password == nil, url.query == nil, url.fragment == nil
            else {
                throw SettingsError("allowed source '\(written)' is not an http(s) URL prefix like https://images.example.com/ (or local:///folder/, s3://bucket/folder/)")
            }
            parsed.append(Prefix(scheme: scheme, host: Self.restoringWildcards(host.lowercased()), port: url.port ?? Self.defaultPort(scheme),
                                 path: url.percentEncodedPath.isEmpty ? "/" : Self.restoringWildcards(url.percentEncodedPath)))
        }
        prefixes = parsed
    }

    /// What a `*` is while a prefix is parsed.
    private static let wildcardPlaceholder = "loupewildcardplaceholder"

    private static func restoringWildcards(_ text: String) -> String {
        text.replacingOccurrences(of: wildcardPlaceholder, with: "*")
    }

    private static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// The URL to load for `source`, or why it is refused (400 for a malformed URL, 403 for
    /// one outside the allowed prefixes).
    func check(_ source: String) throws(ServiceError) -> URL {
        guard let components = URLComponents(string: source), let scheme = components.scheme?.lowercased(),
              let url = components.url
        else { throw .badURL("the source is not a valid URL") }
        guard scheme == "http" || scheme == "https" else {
            throw .forbiddenSource("source scheme '\(scheme)' is not allowed (http and https are)")
        }
        guard let host = components.host, !host.isEmpty else { throw .badURL("the source URL has no host") }
        guard components.user == nil, components.password == nil else {
            throw .forbiddenSource("source URLs with user information (user@host) are not allowed")
        }
        guard !prefixes.isEmpty else { return url }
        let port = components.port ?? Self.defaultPort(scheme)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let allowed = prefixes.contains { prefix in
            guard prefix.scheme == scheme, prefix.names(host: host.lowercased()), prefix.port == port else { return false }
            return prefix.covers(path)
        }
        guard allowed else { throw .forbiddenSource("the source is not under an allowed prefix") }
        return url
    }

    /// Refuses an S3 object when allowed prefixes are set and no `s3://` one covers its bucket
    /// and key.
    func checkS3(_ location: S3Location) throws(ServiceError) {
        guard !prefixes.isEmpty else { return }
        guard prefixes.contains(where: { $0.scheme == "s3" && $0.names(host: location.bucket) && $0.covers("/" + location.key) }) else {
            throw .forbiddenSource("the S3 source is not under an allowed prefix")
        }
    }

    /// Refuses a local source's `path` (as named, from its leading `/`) when allowed prefixes are
    /// set and no `local://` one covers it. Whether the path may be read at all is
    /// ``RootedFileSystem``'s decision, made after this.
    func checkLocal(_ path: String) throws(ServiceError) {
        guard !prefixes.isEmpty else { return }
        guard prefixes.contains(where: { $0.scheme == "local" && $0.covers(path) }) else {
            throw .forbiddenSource("the local source is not under an allowed prefix")
        }
    }
}
