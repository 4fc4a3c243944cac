import Foundation
import LoupeCodecs
import LoupeLoading
import LoupeServer
import LoupeTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `local:///path` sources through the service's routes: served from the local root only, every way out of it
/// refused without the file outside being opened, and the same caching and validators as remote
/// sources plus the file's `Last-Modified`.
@Suite struct LocalSourceTests {
    /// A local root with a photo, a sub-folder, a FIFO and links of every kind, beside a folder
    /// outside it with a secret photo and a FIFO that would block whoever opened it for reading.
    struct Layout {
        let base: TemporaryFolder
        var root: String { base.path("root") }
        var outside: String { base.path("outside") }

        static func make() throws -> Layout {
            let layout = Layout(base: try TemporaryFolder.created())
            let files = FileManager.default
            try files.createDirectory(atPath: layout.root + "/sub", withIntermediateDirectories: true)
            try files.createDirectory(atPath: layout.root + "/folder", withIntermediateDirectories: true)
            try files.createDirectory(atPath: layout.outside, withIntermediateDirectories: true)
            try TestImage.jpeg(width: 200, height: 100, seed: 3).write(to: URL(fileURLWithPath: layout.root + "/photo.jpg"))
            try TestImage.jpeg(width: 120, height: 120, seed: 4).write(to: URL(fileURLWithPath: layout.root + "/sub/inner.jpg"))
            try TestImage.jpeg(width: 90, height: 60, seed: 5).write(to: URL(fileURLWithPath: layout.outside + "/secret.jpg"))
            guard mkfifo(layout.outside + "/fifo", 0o600) == 0, mkfifo(layout.root + "/pipe", 0o600) == 0 else {
                throw TestFailure("mkfifo failed: errno \(errno)")
            }
            let links: [(String, String)] = [
                ("absolute.jpg", layout.outside + "/secret.jpg"),   // absolute, out of the root
                ("relative.jpg", "../outside/secret.jpg"),          // relative, out of the root
                ("inside.jpg", "photo.jpg"),                        // relative, inside: still not followed
                ("outdir", "../outside"),                           // a folder link as a middle component
                ("zero", "/dev/zero"),                              // a device
                ("fifo-link", layout.outside + "/fifo"),            // the blocking FIFO
                ("fifodir", layout.outside),                        // the FIFO's folder, by absolute link
            ]
            for (name, target) in links {
                try files.createSymbolicLink(atPath: layout.root + "/" + name, withDestinationPath: target)
            }
            return layout
        }

        /// Whether some process holds `fifo` open for reading (or waits to): a non-blocking open
        /// for writing succeeds only then (ENXIO otherwise), and ends a reader's wait in `open`.
        static func fifoHasReader(_ fifo: String) -> Bool {
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
            return descriptor >= 0
        }

        /// Runs `body` while a thread of its own (outside Swift's pool, which a blocked `open`
        /// would hold) looks every 20 ms for a reader of the FIFOs, for at most 5 minutes; returns
        /// how many times it saw one. Each look that sees one also releases it (the reader's
        /// `open` returns, then reads end of file), so a server that opened a FIFO fails the test
        /// instead of hanging it.
        func fifoReaders(during body: () async throws -> Void) async rethrows -> Int {
            let watch = FIFOWatch()
            let fifos = [outside + "/fifo", root + "/pipe"]
            let thread = Thread {
                for _ in 0..<15_000 where !watch.stop.load(ordering: .acquiring) {
                    for fifo in fifos where Self.fifoHasReader(fifo) { watch.seen.add(1, ordering: .relaxed) }
                    usleep(20_000)
                }
            }
            thread.start()
            defer { watch.stop.store(true, ordering: .releasing) }
            try await body()
            return watch.seen.load(ordering: .relaxed)
        }
    }

    /// What the FIFO watcher thread and the test share.
    final class FIFOWatch: Sendable {
        let stop = Atomic<Bool>(false)
        let seen = Atomic<Int>(0)
    }

    static func settings(root: String?) throws -> ServerSettings {
        var settings = testSettings()
        settings.localRoot = try root.map { path throws in try RootedFileSystem(root: path) }
        // A read that blocked would end here, as a 504 the tests would see, not as a hang. Not
        // shorter: the admission estimate refuses (429) a request the ones ahead would take past
        // its deadline, and under ThreadSanitizer beside a build one took over 5 s, so a 10 s
        // deadline refused the second of two requests in line.
        settings.requestTimeout = .seconds(60)
        return settings
    }

    @Test func aFileUnderTheRootIsServedWithItsLastModified() async throws {
        let layout = try Layout.make()
        defer { layout.base.remove() }
        try await RoutedServer.with(try Self.settings(root: layout.root)) { server in
            let answer = try await server.request(insecurePath("rs:fit:50:50", "local:///photo.jpg"))
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let image = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true))
            #expect((image.metadata.width, image.metadata.height) == (50, 25))
            let modified = try FileManager.default.attributesOfItem(atPath: layout.root + "/photo.jpg")[.modificationDate] as? Date
            let expected = try #require(modified)
            let header = try #require(answer.header("Last-Modified"))
            #expect(abs(try #require(Self.httpDate(header)).timeIntervalSince1970 - expected.timeIntervalSince1970.rounded(.down)) < 0.5)
            #expect(answer.header("ETag")?.hasPrefix("\"") == true)

            let nested = try await server.request(insecurePath("", "local:///sub/inner.jpg", extension: "png"))
            #expect(nested.status == 200)
            // The base64 form of imgproxy URLs too.
            let encoded = Data("local:///photo.jpg".utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(try await server.request("/insecure/w:20/\(encoded).jpg").status == 200)
        }
    }

    @Test func everyWayOutOfTheRootIsRefusedAndTheFileOutsideNeverOpened() async throws {
        let layout = try Layout.make()
        defer { layout.base.remove() }
        let base64 = { (source: String) in
            Data(source.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let paths = [
            "/insecure/w:20/plain/local:///../outside/secret.jpg",
            "/insecure/w:20/plain/local:///sub/../../outside/secret.jpg",
            "/insecure/w:20/plain/local:///%2e%2e/outside/secret.jpg",
            "/insecure/w:20/plain/local:///%2E%2e/outside/secret.jpg",
            "/insecure/w:20/plain/local:///sub/%2e%2e%2f%2e%2e%2foutside%2fsecret.jpg",
            "/insecure/w:20/plain/local:///..%2Foutside%2Fsecret.jpg",
            "/insecure/w:20/plain/local:///./photo.jpg",
            "/insecure/w:20/plain/local:///photo.jpg%00.png",
            "/insecure/w:20/plain/local:////etc/passwd",
            "/insecure/w:20/plain/local://" + layout.outside + "/secret.jpg",  // an absolute path is read under the root
            "/insecure/w:20/plain/local://host/photo.jpg",                       // a host: not a local source
            "/insecure/w:20/\(base64("local:///../outside/secret.jpg")).jpg",
            "/insecure/w:20/plain/local:///absolute.jpg",
            "/insecure/w:20/plain/local:///relative.jpg",
            "/insecure/w:20/plain/local:///inside.jpg",
            "/insecure/w:20/plain/local:///outdir/secret.jpg",
            "/insecure/w:20/plain/local:///zero",
            "/insecure/w:20/plain/local:///fifo-link",
            "/insecure/w:20/plain/local:///fifodir/fifo",
            "/insecure/w:20/plain/local:///../outside/fifo",
            "/insecure/w:20/plain/local:///%2e%2e/outside/fifo",
            "/insecure/w:20/plain/local:///pipe",
            "/insecure/w:20/plain/local:///folder",
            "/insecure/w:20/plain/local:///folder/",
            "/insecure/w:20/plain/local:///missing.jpg",
        ]
        try await RoutedServer.with(try Self.settings(root: layout.root)) { server in
            let readers = try await layout.fifoReaders {
                for path in paths {
                    let answer = try await server.request(path)
                    #expect([400, 403, 404].contains(answer.status), "\(path): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                    #expect(answer.header("Content-Type") == "application/json", "\(path)")
                }
                // The kinds of refusal: leaving the root is forbidden, a missing or odd file not found.
                #expect(try await server.request(paths[2]).status == 403)
                #expect(try await server.request("/insecure/w:20/plain/local:///absolute.jpg").status == 403)
                #expect(try await server.request("/insecure/w:20/plain/local:///pipe").status == 404)
                #expect(try await server.request("/insecure/w:20/plain/local:///folder").status == 404)
                #expect(try await server.request("/insecure/w:20/plain/local:///zero").json["kind"] as? String == "forbiddenSource")
                // The server still serves what is inside.
                #expect(try await server.request(insecurePath("w:20", "local:///photo.jpg")).status == 200)
            }
            #expect(readers == 0, "the server opened a FIFO for reading")
        }
        #expect(!Layout.fifoHasReader(layout.outside + "/fifo"))
        #expect(!Layout.fifoHasReader(layout.root + "/pipe"))
    }

    @Test func ifModifiedSinceAnswers304AndAChangedFileIsMadeAgain() async throws {
        let layout = try Layout.make()
        defer { layout.base.remove() }
        let file = layout.root + "/photo.jpg"
        try await RoutedServer.with(try Self.settings(root: layout.root)) { server in
            let path = insecurePath("w:40", "local:///photo.jpg")
            let first = try await server.request(path)
            #expect(first.status == 200)
            let lastModified = try #require(first.header("Last-Modified"))
            let notModified = try await server.request(path, headers: [("If-Modified-Since", lastModified)])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.header("Last-Modified") == lastModified)
            // An older date: the file changed since, so the image is sent.
            let older = try await server.request(path, headers: [("If-Modified-Since", "Sat, 01 Jan 2000 00:00:00 GMT")])
            #expect(older.status == 200)
            // If-None-Match decides when both are sent.
            let etag = try #require(first.header("ETag"))
            #expect(try await server.request(path, headers: [("If-None-Match", etag)]).status == 304)
            #expect(try await server.request(path, headers: [("If-None-Match", "\"other\""), ("If-Modified-Since", lastModified)]).status == 200)

            // The file is replaced by a taller picture, with a later time: the cached result of
            // the old file is not served, and If-Modified-Since with the old date gets the new one.
            try TestImage.jpeg(width: 100, height: 200, seed: 9).write(to: URL(fileURLWithPath: file))
            let later = Date().addingTimeInterval(120)
            try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: file)
            let changed = try await server.request(path, headers: [("If-Modified-Since", lastModified)])
            #expect(changed.status == 200)
            let image = try ImageDecoder().decode(changed.body, options: DecodingOptions(firstFrameOnly: true))
            #expect((image.metadata.width, image.metadata.height) == (40, 80))
            #expect(changed.header("Last-Modified") != lastModified)
        }
    }

    @Test func limitsApplyBeforeReading() async throws {
        let layout = try Layout.make()
        defer { layout.base.remove() }
        // 1.5 MB of noise as PNG is over a 1 MB limit: refused from its size, not decoded.
        try TestImage.noisePNG(width: 800, height: 600).write(to: URL(fileURLWithPath: layout.root + "/large.png"))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: layout.root + "/large.png")[.size] as? Int)
        #expect(size > 1 << 20)
        var settings = try Self.settings(root: layout.root)
        settings.maximumSourceBytes = 1 << 20
        settings.maximumSourcePixels = 15_000
        try await RoutedServer.with(settings) { server in
            let large = try await server.request(insecurePath("w:20", "local:///large.png"))
            #expect(large.status == 413)
            #expect(large.json["kind"] as? String == "sourceTooLarge")
            // 120×120 = 14,400 pixels passes; 200×100 does not (refused from its header).
            #expect(try await server.request(insecurePath("w:20", "local:///sub/inner.jpg")).status == 200)
            let many = try await server.request(insecurePath("w:20", "local:///photo.jpg"))
            #expect(many.status == 422)
            #expect(many.json["kind"] as? String == "tooManyPixels")
        }
    }

    @Test func withoutARootLocalSourcesAreRefused() async throws {
        let layout = try Layout.make()
        defer { layout.base.remove() }
        try await RoutedServer.with(try Self.settings(root: nil)) { server in
            let answer = try await server.request(insecurePath("w:20", "local://" + layout.root + "/photo.jpg"))
            #expect(answer.status == 403)
            #expect(answer.json["kind"] as? String == "forbiddenSource")
            #expect(try await server.request(insecurePath("w:20", "file://" + layout.root + "/photo.jpg")).status == 403)
        }
    }

    @Test func allowedSourcesApplyToHTTPAndLocalSources() async throws {
        let layout = try Layout.make()
        defer { layout.base.remove() }
        let nginx = try NginxServer.start(files: ["ok/a.jpg": try TestImage.jpeg(width: 64, height: 64, seed: 1),
                                                 "no/b.jpg": try TestImage.jpeg(width: 64, height: 64, seed: 2)])
        defer { nginx.stop() }
        var settings = try Self.settings(root: layout.root)
        settings.sources = try SourcePolicy(allowedPrefixes: [nginx.url("/ok/").absoluteString, "local:///sub/"])
        try await RoutedServer.with(settings) { server in
            #expect(try await server.request(insecurePath("w:20", nginx.url("/ok/a.jpg").absoluteString)).status == 200)
            #expect(try await server.request(insecurePath("w:20", nginx.url("/no/b.jpg").absoluteString)).status == 403)
            #expect(try await server.request(insecurePath("w:20", "local:///sub/inner.jpg")).status == 200)
            let outside = try await server.request(insecurePath("w:20", "local:///photo.jpg"))
            #expect(outside.status == 403)
            #expect(outside.json["kind"] as? String == "forbiddenSource")
        }
        #expect(nginx.requestCount(for: "/no/b.jpg") == 0)
        // Only http prefixes: local sources are refused even with a root.
        settings.sources = try SourcePolicy(allowedPrefixes: [nginx.url("/ok/").absoluteString])
        try await RoutedServer.with(settings) { server async throws in
            #expect(try await server.request(insecurePath("w:20", "local:///photo.jpg")).status == 403)
        }
    }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
