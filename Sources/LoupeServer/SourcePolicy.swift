import Foundation

/// Which source URLs the service loads: `http`/`https` only, and with allowed prefixes set,
/// only URLs under one of them, compared by parsed parts — scheme, host, port and path — never
/// as text, so `https://a.com@evil.com/` is not under `https://a.com`.
public struct SourcePolicy: Sendable, Equatable {
    /// One allowed prefix, parsed.
    struct Prefix: Sendable, Equatable {
        var scheme: String
        var host: String
        var port: Int?
        var path: String
    }

    let prefixes: [Prefix]

    /// A policy allowing URLs under `prefixes` (all http(s) URLs when empty).
    /// - Throws: a message naming a prefix that is not an absolute http(s) URL.
    public init(allowedPrefixes: [String]) throws(SettingsError) {
        var parsed: [Prefix] = []
        for text in allowedPrefixes {
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
                  url.user == nil, url.password == nil, url.query == nil, url.fragment == nil
            else { throw SettingsError("allowed source '\(text)' is not an http(s) URL prefix like https://images.example.com/") }
            parsed.append(Prefix(scheme: scheme, host: host.lowercased(), port: url.port ?? Self.defaultPort(scheme),
                                 path: url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath))
        }
        prefixes = parsed
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
            guard prefix.scheme == scheme, prefix.host == host.lowercased(), prefix.port == port else { return false }
            // A prefix ending in `/` covers its folder; one without covers that path and below.
            if prefix.path.hasSuffix("/") { return path.hasPrefix(prefix.path) }
            return path == prefix.path || path.hasPrefix(prefix.path + "/")
        }
        guard allowed else { throw .forbiddenSource("the source is not under an allowed prefix") }
        return url
    }
}
