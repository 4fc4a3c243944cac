import Foundation

/// The playground page's files: `Files/` beside this source, copied into the module's resource
/// bundle (`Package.swift`) and read through `Bundle.module` once, when the playground is first
/// mounted. Served at `/` and under `/playground/` when ``ImageRoutes/Endpoints/playground`` is
/// on. The page runs only these scripts (its Content-Security-Policy allows nothing inline and
/// nothing from elsewhere) and talks to this origin only.
struct PlaygroundFiles: Sendable {
    /// The page: three views (playground, feed, menu) whose scripts and styles are the files below.
    let html: String
    /// The page's behaviour: URL building, the result and `/info`, the feed through `/batch`, the menu.
    let script: String
    /// BlurHash and ThumbHash decoders, the project's own, written from the formats' descriptions
    /// (pixel-identical to the Python references `blurhash` and `thumbhash-python` on the hashes tried).
    let placeholders: String
    /// The page's style sheet.
    let style: String

    /// The files, or why they cannot be read (the playground then answers 503 naming it).
    static let shared: Result<PlaygroundFiles, ServiceError> = Result { () throws(ServiceError) in
        func read(_ name: String, _ type: String) throws(ServiceError) -> String {
            guard let url = Bundle.module.url(forResource: name, withExtension: type, subdirectory: "Files"),
                  let text = try? String(contentsOf: url, encoding: .utf8)
            else {
                throw ServiceError(503, "playgroundMissing", "the playground's file \(name).\(type) is not in \(Bundle.module.bundlePath)")
            }
            return text
        }
        return PlaygroundFiles(html: try read("index", "html"), script: try read("app", "js"),
                               placeholders: try read("placeholders", "js"), style: try read("style", "css"))
    }
}
