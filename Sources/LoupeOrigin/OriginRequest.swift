/// A request as the embedded origin received it: what a handler of ``OriginServer`` decides on.
package struct OriginRequest: Sendable {
    /// `GET`, `HEAD`, …
    package var method: String
    /// The path, without the query: `/images/1.jpg`.
    package var path: String
    /// The query after `?`, if the request had one.
    package var query: String?
    /// The request headers in the order they arrived, names as sent.
    package var headers: [(String, String)]

    /// A request (tests of handlers build them directly).
    package init(method: String, path: String, query: String? = nil, headers: [(String, String)] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// The first value of header `name`, compared case-insensitively as HTTP names are.
    package func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.0.lowercased() == name }?.1
    }
}

extension OriginRequest {
    /// Splits a request target (`/a/b?x=1`) into path and query.
    static func splitting(target: String) -> (path: String, query: String?) {
        guard let mark = target.firstIndex(of: "?") else { return (target, nil) }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }
}
