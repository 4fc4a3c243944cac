import Foundation

/// Where `loupe` keeps its disk cache unless `--cache-dir` says otherwise: the XDG Base
/// Directory rule — `$XDG_CACHE_HOME/loupe`, else `~/.cache/loupe`.
enum CacheLocation {
    static func directory(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit { return URL(fileURLWithPath: explicit).standardizedFileURL }
        // The specification ignores a relative XDG_CACHE_HOME.
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("loupe")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".cache").appendingPathComponent("loupe")
    }
}
