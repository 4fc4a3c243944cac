import Foundation
import LoupeCaching
#if canImport(Glibc)
import Glibc
#endif

/// A real nginx on a free loopback port, serving files from a temporary folder: the origin that
/// tests and benchmarks load from. Single process, no daemon, everything under its own prefix.
package final class NginxServer: Sendable {
    /// The loopback port it listens on.
    package let port: Int
    /// Its document root.
    package let root: URL
    /// Its folder (configuration, logs, root), deleted by `stop()`.
    package let prefix: URL
    private let process: ChildProcess

    /// `http://127.0.0.1:<port>`.
    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// Starts nginx with `files` (path → bytes) in its document root.
    package static func start(files: [String: Data]) throws -> NginxServer {
        let binary = "/usr/sbin/nginx"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw FixtureError("nginx is not installed at \(binary): run Scripts/setup.sh")
        }
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-nginx-\(UUID().uuidString)")
        let root = prefix.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        for (path, data) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        let port = try freeLoopbackPort()
        let p = prefix.path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(p)/nginx.pid;
            error_log \(p)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log \(p)/access.log;
                client_body_temp_path \(p)/tmp/body;
                proxy_temp_path \(p)/tmp/proxy;
                fastcgi_temp_path \(p)/tmp/fastcgi;
                uwsgi_temp_path \(p)/tmp/uwsgi;
                scgi_temp_path \(p)/tmp/scgi;
                types { image/png png; image/jpeg jpg; image/webp webp; image/gif gif; application/octet-stream bin; }
                keepalive_requests 100000;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    etag on;
                    location = /hop3 { return 302 /hop2; }
                    location = /hop2 { return 302 /hop1; }
                    location = /hop1 { return 302 /image.bin; }
                    location = /loop { return 302 /loop; }
                    location = /status/404 { return 404; }
                    location = /status/503 { return 503; }
                    location = /status/429 { add_header Retry-After 1 always; return 429; }
                    location /slow/ { limit_rate 4k; alias \(root.path)/; }
                    location /paced/ { limit_rate 32k; alias \(root.path)/; }
                    location /max-age/ { add_header Cache-Control "max-age=60"; alias \(root.path)/; }
                    location /no-store/ { add_header Cache-Control "no-store"; alias \(root.path)/; }
                }
            }
            """
        let configurationURL = prefix.appendingPathComponent("nginx.conf")
        try configuration.write(to: configurationURL, atomically: true, encoding: .utf8)
        let process = try ChildProcess(URL(fileURLWithPath: binary), ["-p", p, "-c", configurationURL.path])
        let server = NginxServer(port: port, root: root, prefix: prefix, process: process)
        // Ready when it accepts connections; bounded at 10 s.
        for _ in 0..<1_000 {
            if canConnect(port: port) { return server }
            guard process.exit == nil else { break }
            usleep(10_000)
        }
        server.stop()
        let log = (try? String(contentsOf: prefix.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        throw FixtureError("nginx did not start on port \(port): \(log)")
    }

    private init(port: Int, root: URL, prefix: URL, process: ChildProcess) {
        self.port = port
        self.root = root
        self.prefix = prefix
        self.process = process
    }

    /// Stops nginx and removes its folder.
    package func stop() {
        // SIGKILL, not SIGTERM: children spawned by Foundation's Process from a dispatch thread
        // inherit a mask that blocks SIGTERM, and single-process nginx never unblocks it.
        // Nothing needs a graceful stop: the whole prefix folder is deleted next.
        process.kill()
        try? FileManager.default.removeItem(at: prefix)
    }

    /// How many requests for `path` nginx has logged.
    package func requestCount(for path: String) -> Int {
        return settledLog().split(separator: "\n").filter { $0.contains("\"GET \(path) HTTP") }.count
    }

    /// What nginx logged for the requests of `path`, in order: status and body bytes sent (fewer
    /// than the file's size when the client closed the connection first; status 499 when it
    /// closed before the response began). nginx writes the line when the request ends.
    package func responses(for path: String) -> [(status: Int, bytesSent: Int)] {
        return settledLog().split(separator: "\n").filter { $0.contains("\"GET \(path) HTTP") }.compactMap { line in
            // `... "GET /path HTTP/1.1" 200 1234 "-" "agent"`: status and size follow the request.
            guard let fields = line.split(separator: "\"", maxSplits: 2).last?.split(separator: " "), fields.count >= 2,
                  let status = Int(fields[0]), let bytes = Int(fields[1])
            else { return nil }
            return (status, bytes)
        }
    }

    /// The paths of the GET requests nginx logged, in the order they ended.
    package func loggedPaths() -> [String] {
        return settledLog().split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "\"GET ") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    /// The access log once nginx has stopped adding to it: nginx writes a request's line after
    /// the response is sent, so a client that just received its response can read the log
    /// before the line is there. Returns once the log has not grown for 100 ms, counted from this
    /// call (a line for a request made since an earlier read may still be due), waiting at most
    /// 5 s. Reading many counts: take one ``OriginRequestCounts`` snapshot.
    private func settledLog() -> String {
        let path = prefix.appendingPathComponent("access.log").path
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        var lastSize = size()
        var quietSince = ContinuousClock.now
        let deadline = quietSince + .seconds(5)
        while quietSince.duration(to: .now) < .milliseconds(100), ContinuousClock.now < deadline {
            usleep(10_000)
            let current = size()
            if current != lastSize { (lastSize, quietSince) = (current, .now) }
        }
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// The URL of `path` on this server.
    package func url(_ path: String) -> URL { baseURL.appendingPathComponent(path) }
}

/// A test fixture could not be set up.
package struct FixtureError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
