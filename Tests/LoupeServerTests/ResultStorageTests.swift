import Foundation
import Logging
import LoupeCaching
import LoupeLoading
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// `--result-storage s3://bucket/prefix` against a real S3 server (Ceph's RADOS Gateway,
/// `S3Gateway`): a result one instance makes is served by another without a decode, with the
/// same bytes and validator; an expired object is a miss; a bucket that refuses writes costs
/// nothing but a counted failure; the setting refuses what is not a bucket and a prefix.
@Suite struct ResultStorageTests {
    /// Settings for the gateway, results kept in `storage`; sources from S3 when `s3Sources`,
    /// else from `localRoot`.
    static func settings(_ gateway: S3Gateway, storage: String, s3Sources: Bool = true, localRoot: URL? = nil) throws -> ServerSettings {
        var environment = ["LOUPE_RESULT_STORAGE": storage, "IMGPROXY_S3_ENDPOINT": gateway.endpoint.absoluteString,
                           "AWS_SHARED_CREDENTIALS_FILE": gateway.credentialsFile.path]
        if s3Sources { environment["IMGPROXY_USE_S3"] = "true" }
        var settings = try ServerSettings(flags: [:], environment: environment)
        settings.allowsUnsigned = true
        settings.requestTimeout = .seconds(60)
        settings.localRoot = try localRoot.map { try RootedFileSystem(root: $0.path) }
        return settings
    }

    /// The value of the counter `name` with `label` in a Prometheus exposition (0 when absent).
    static func counter(_ exposition: String, _ name: String, _ label: String = "") -> Double {
        let prefix = label.isEmpty ? name + " " : "\(name){\(label)} "
        return exposition.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) } ?? 0
    }

    static func metrics(_ server: RoutedServer) async throws -> String {
        String(decoding: try await server.request("/metrics").body, as: UTF8.self)
    }

    @Test func aResultMadeByOneInstanceIsServedByAnotherWithoutADecode() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(try TestImage.jpeg(width: 400, height: 300, seed: 21), bucket: "storage-sources", key: "photo.jpg")
        // The bucket exists before the service writes to it, as an operator creates it.
        try await gateway.put(Data("marker".utf8), bucket: "storage-results", key: "marker")
        let paths = (1...3).map { insecurePath("rs:fit:\(50 * $0):\(50 * $0)", "s3://storage-sources/photo.jpg") }
        let settings = try Self.settings(gateway, storage: "s3://storage-results/cluster-a")

        let made = try await RoutedServer.with(settings) { server in
            var answers: [RunningServer.Answer] = []
            for path in paths { answers.append(try await server.request(path)) }
            // The writes go out in the background; a flush waits for them.
            await server.server.flushCaches()
            let metrics = try await Self.metrics(server)
            #expect(Self.counter(metrics, "loupe_result_storage_total", "outcome=\"miss\"") == 3)
            #expect(Self.counter(metrics, "loupe_result_storage_total", "outcome=\"written\"") == 3)
            #expect(Self.counter(metrics, "loupe_pipeline_decodes") == 3)
            return answers
        }
        #expect(made.allSatisfy { $0.status == 200 })

        // Another instance, with no memory or disk of its own: every result from the bucket.
        try await RoutedServer.with(settings) { server in
            for (path, first) in zip(paths, made) {
                let answer = try await server.request(path)
                #expect(answer.status == 200)
                #expect(answer.body == first.body)
                #expect(answer.header("ETag") == first.header("ETag"))
                #expect(answer.header("Content-Type") == first.header("Content-Type"))
            }
            // Asked again: from its own memory now, not the bucket.
            _ = try await server.request(paths[0])
            let metrics = try await Self.metrics(server)
            #expect(Self.counter(metrics, "loupe_result_storage_total", "outcome=\"hit\"") == 3)
            #expect(Self.counter(metrics, "loupe_result_cache_hits_total") == 1)
            #expect(Self.counter(metrics, "loupe_pipeline_decodes") == 0)
            #expect(Self.counter(metrics, "loupe_pipeline_downloads") == 0)
        }
    }

    @Test func anExpiredObjectIsAMissAndItsKeyIsUnderThePrefix() async throws {
        let gateway = try await S3Gateway.shared()
        try await gateway.put(Data("marker".utf8), bucket: "storage-expiry", key: "marker")
        let place = try #require(ResultStoragePlace("s3://storage-expiry/results"))
        let outcomes = Locked<[ResultStorage.Outcome]>([])
        let settings = try Self.settings(gateway, storage: place.description)
        let storage = ResultStorage(place: place, configuration: try settings.s3.configuration(), limits: HTTPLoadingLimits(),
                                    logger: Logger(label: "test")) { outcome in outcomes.withLock { $0.append(outcome) } }
        let now = Date()
        let result = EncodedResult(data: try TestImage.jpeg(width: 8, height: 8, seed: 22), format: .jpeg)
        storage.store(result, forKey: "k1", timeToLive: 60, now: now)
        await storage.flush()
        #expect(await gateway.answers("PUT", path: "/storage-expiry/results/k1", count: 1).map(\.status) == [200])

        let fresh = await storage.result(forKey: "k1", now: now.addingTimeInterval(10))
        #expect(fresh?.result.data == result.data)
        #expect(fresh?.result.etag == result.etag)
        #expect(fresh?.timeToLive == 50)
        #expect(await storage.result(forKey: "k1", now: now.addingTimeInterval(61)) == nil)
        #expect(await storage.result(forKey: "k2", now: now) == nil)
        #expect(outcomes.withLock { $0 } == [.written, .hit, .expired, .miss])
    }

    @Test func aBucketThatRefusesWritesCostsOnlyACountedFailure() async throws {
        let gateway = try await S3Gateway.shared()
        let root = try TemporaryFolder.created()
        try TestImage.jpeg(width: 120, height: 90, seed: 23).write(to: root.url.appendingPathComponent("photo.jpg"))
        // No such bucket: lookups miss (404), writes fail; answers are made as without storage.
        let settings = try Self.settings(gateway, storage: "s3://storage-missing-bucket/x", s3Sources: false, localRoot: root.url)
        let answer = try await RoutedServer.with(settings) { server in
            try await server.request(insecurePath("rs:fit:60:60", "local:///photo.jpg"))
        }
        #expect(answer.status == 200)
        try await RoutedServer.with(settings) { server in
            let again = try await server.request(insecurePath("rs:fit:60:60", "local:///photo.jpg"))
            #expect(again.body == answer.body)
            // Nothing was stored by the first instance: this one misses, makes and fails to write.
            await server.server.flushCaches()
            let metrics = try await Self.metrics(server)
            #expect(Self.counter(metrics, "loupe_result_storage_total", "outcome=\"miss\"") == 1)
            #expect(Self.counter(metrics, "loupe_result_storage_total", "outcome=\"write_failed\"") == 1)
            #expect(Self.counter(metrics, "loupe_pipeline_decodes") == 1)
        }
        // S3 sources stay off: the storage's settings do not turn them on.
        try await RoutedServer.with(settings) { server in
            let refused = try await server.request(insecurePath("rs:fit:60:60", "s3://storage-sources/photo.jpg"))
            #expect(refused.status == 403)
        }
    }

    @Test(arguments: ["s3://", "s3://Bad_Bucket/x", "s3://ok-bucket/a/../b", "https://ok-bucket/x", "s3://ok-bucket/x?y"])
    func theSettingRefusesWhatIsNotABucketAndAPrefix(_ value: String) throws {
        let error = #expect(throws: SettingsError.self) { try ServerSettings(flags: ["result-storage": value], environment: [:]) }
        #expect(error?.description.contains("is not s3://bucket[/prefix]") == true, "\(String(describing: error))")
    }

    @Test func theSettingNamesABucketAndAPrefix() throws {
        #expect(ResultStoragePlace("s3://ok-bucket") == ResultStoragePlace("s3://ok-bucket/"))
        #expect(ResultStoragePlace("s3://ok-bucket/a/b")?.prefix == "a/b/")
        #expect(ResultStoragePlace("s3://ok-bucket")?.prefix == "")
    }
}
