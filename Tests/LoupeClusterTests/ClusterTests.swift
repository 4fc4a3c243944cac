import AsyncHTTPClient
import Foundation
import LoupeServer
import LoupeTestSupport
import NIOCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `Scripts/ops/cluster.sh` end to end: two real `loupe serve` instances (child processes of the
/// script, from this build) behind the real nginx of `deploy/nginx.conf`, sources served by
/// another nginx, requests from a real HTTP client; everything on loopback. The tests drive the
/// shipped script rather than a launcher of their own, so what they check is what an operator
/// runs. Serialized: each cluster wants the machine's two cores to itself.
@Suite(.serialized) struct ClusterTests {
    /// 2,000 requests over 200 distinct results at concurrency 32: every one succeeds, both
    /// instances work, and each result is made exactly once across the cluster (nginx's cache
    /// lock and shared cache), although the requests' Accept headers differ.
    @Test func sharedCacheMakesEachResultOnceAcrossInstances() async throws {
        try await withCluster { cluster, client, origin in
            let paths = resultPaths(origin: origin, widths: 30..<40, cluster: cluster)
            var order = Array(repeating: paths, count: 10).flatMap { $0 }
            var random = SplitMix64(seed: 14)
            order.shuffle(using: &random)
            // Different headers, one negotiated format (WebP): one cache entry per result.
            let answers = await client.load(port: cluster.port, paths: order, concurrency: 32,
                                            accept: ["image/webp,*/*", "text/html,application/xhtml+xml,image/webp;q=0.9,*/*;q=0.8"])
            #expect(answers.count == 2_000)
            #expect(answers.filter { $0.status == 200 }.count == 2_000, "failures: \(answers.filter { $0.status != 200 }.prefix(5))")
            #expect(answers.allSatisfy { $0.contentType == "image/webp" })
            let made = [try await client.resultsMade(port: cluster.instancePort(1)),
                        try await client.resultsMade(port: cluster.instancePort(2))]
            #expect(made[0] > 0 && made[1] > 0, "results made per instance: \(made)")
            #expect(made[0] + made[1] == 200, "results made per instance: \(made)")

            // Another negotiated format is another entry: an Accept without WebP gets the JPEG.
            let jpeg = await client.load(port: cluster.port, paths: [paths[0], paths[0]], concurrency: 1, accept: ["image/png,*/*"])
            #expect(jpeg.map(\.contentType) == ["image/jpeg", "image/jpeg"])
            #expect(jpeg.map(\.cacheStatus) == ["MISS", "HIT"])
            // A browser listing AVIF has an entry of its own, so instances started with
            // --negotiate-avif never hand AVIF to one that did not list it (these instances do
            // not negotiate it: the entry holds WebP).
            let avif = await client.load(port: cluster.port, paths: [paths[1], paths[1]], concurrency: 1, accept: ["image/avif,image/webp,*/*"])
            #expect(avif.map(\.contentType) == ["image/webp", "image/webp"])
            #expect(avif.map(\.cacheStatus) == ["MISS", "HIT"])
            let status = try await cluster.run(["status"])
            #expect(status.status == 0, "\(status.output)")
            #expect(status.output.contains("instance 1: http://127.0.0.1:\(cluster.instancePort(1)) health 200 ok, signature ok"))
            #expect(status.output.contains("instance 2: http://127.0.0.1:\(cluster.instancePort(2)) health 200 ok, signature ok"))
            #expect(status.output.contains("server accepts handled requests"))
        }
    }

    /// `kill -9` of one instance while 2,000 requests run: no client sees a failure (nginx
    /// retries the request on the other instance at once, the connection being refused or
    /// reset); `status` shows the instance down; `start 2` brings it back and it takes work again.
    @Test func killedInstanceFailsNoRequestAndTakesWorkAfterRestart() async throws {
        try await withCluster { cluster, client, origin in
            let paths = resultPaths(origin: origin, widths: 30..<40, cluster: cluster)
            var order = Array(repeating: paths, count: 10).flatMap { $0 }
            var random = SplitMix64(seed: 41)
            order.shuffle(using: &random)
            let run = Task { await client.load(port: cluster.port, paths: order, concurrency: 32, accept: ["image/webp"]) }
            var madeByVictim = 0
            for _ in 0..<3_000 where madeByVictim < 10 {
                madeByVictim = (try? await client.resultsMade(port: cluster.instancePort(2))) ?? 0
                try await Task.sleep(for: .milliseconds(10))
            }
            let madeBySurvivor = try await client.resultsMade(port: cluster.instancePort(1))
            let victim = try #require(cluster.instancePID(2))
            kill(victim, SIGKILL)
            // The kill came in the middle of the run: results were still to be made.
            #expect(madeByVictim >= 10 && madeByVictim + madeBySurvivor < 200, "made before the kill: \(madeByVictim) + \(madeBySurvivor)")
            let answers = await run.value
            #expect(answers.filter { $0.status == 200 }.count == 2_000, "failures: \(answers.filter { $0.status != 200 }.prefix(5))")

            let down = try await cluster.run(["status"])
            #expect(down.status == 1)
            #expect(down.output.contains("instance 2: http://127.0.0.1:\(cluster.instancePort(2)) health 000 DOWN"), "\(down.output)")
            try await cluster.start(2)
            let up = try await cluster.run(["status"])
            #expect(up.status == 0, "\(up.output)")
            // nginx tries a failed instance again once its fail_timeout has passed.
            try await Task.sleep(for: ClusterScript.failTimeout + .milliseconds(500))
            let fresh = resultPaths(origin: origin, widths: 50..<55, cluster: cluster)
            let after = await client.load(port: cluster.port, paths: fresh, concurrency: 8, accept: ["image/webp"])
            #expect(after.filter { $0.status == 200 }.count == 100)
            let restartedMade = try await client.resultsMade(port: cluster.instancePort(2))
            #expect(restartedMade > 0, "the restarted instance made nothing")
        }
    }

    /// An instance restarted with another key answers 403 to the cluster's signed URLs: clients
    /// see it (nginx does not retry a 403), `status` names it, and its metrics count the 403s.
    @Test func instanceWithAnotherKeyIsVisible() async throws {
        try await withCluster { cluster, client, origin in
            kill(try #require(cluster.instancePID(2)), SIGKILL)
            try await cluster.start(2, overrides: ["LOUPE_KEY": "6f74686572"])
            let status = try await cluster.run(["status"])
            #expect(status.status == 1)
            #expect(status.output.contains("instance 1: http://127.0.0.1:\(cluster.instancePort(1)) health 200 ok, signature ok"), "\(status.output)")
            #expect(status.output.contains("instance 2: http://127.0.0.1:\(cluster.instancePort(2)) health 200 ok, signature MISMATCH (badSignature)"), "\(status.output)")

            let paths = resultPaths(origin: origin, widths: 30..<32, cluster: cluster)
            let direct = try await client.get(port: cluster.instancePort(2), path: paths[0], accept: nil)
            #expect(direct.status == 403)
            #expect(String(decoding: direct.body, as: UTF8.self).contains("\"kind\":\"badSignature\""))
            // One at a time through nginx: least_conn alternates between idle instances.
            let answers = await client.load(port: cluster.port, paths: paths, concurrency: 1, accept: ["image/webp"])
            let refused = answers.filter { $0.status == 403 }.count
            #expect(refused > 0 && answers.filter { $0.status == 200 }.count == answers.count - refused, "\(answers.map(\.status))")
            let metrics = try await client.get(port: cluster.instancePort(2), path: "/metrics", accept: nil)
            let forbidden = metricValue(String(decoding: metrics.body, as: UTF8.self), "loupe_http_requests_total{status=\"403\"}")
            // The status probe, the direct request and the refused ones.
            #expect(forbidden == Double(refused + 2))
        }
    }
}

// MARK: - Fixture

/// Sources: 20 JPEG photos, 800x600, served by nginx; `settings` in every instance's environment.
func withCluster(settings: [String: String] = [:], _ body: (ClusterScript, ClusterClient, String) async throws -> Void) async throws {
    var files: [String: Data] = [:]
    for seed in 0..<20 { files["s\(seed).jpg"] = try TestImage.jpeg(width: 800, height: 600, seed: seed) }
    let origin = try NginxServer.start(files: files)
    defer { origin.stop() }
    let cluster = try ClusterScript(instances: 2, settings: settings)
    let client = ClusterClient()
    do {
        try await cluster.start(2)
        try await body(cluster, client, origin.baseURL.absoluteString)
    } catch {
        await cluster.stop()
        try? await client.shutdown()
        throw error
    }
    await cluster.stop()
    try await client.shutdown()
}

/// Signed paths of 20 sources × `widths` (fit in a square): distinct results.
func resultPaths(origin: String, widths: Range<Int>, cluster: ClusterScript) -> [String] {
    let signer = URLSigner(pairs: [URLSigner.KeyPair(key: hexData(cluster.key), salt: hexData(cluster.salt))])
    return widths.flatMap { width in
        (0..<20).map { seed in
            let path = "/rs:fit:\(width):\(width)/plain/\(origin)/s\(seed).jpg"
            return "/" + (signer.signature(for: path) ?? "") + path
        }
    }
}

private func hexData(_ hex: String) -> Data {
    var data = Data()
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), let byte = UInt8(hex[index..<next], radix: 16) {
        data.append(byte)
        index = next
    }
    return data
}

/// The value of the exposition line starting with `name `.
func metricValue(_ exposition: String, _ name: String) -> Double? {
    exposition.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
}

/// What a client saw for one request.
struct ClusterAnswer: Sendable, CustomStringConvertible {
    let status: Int
    let contentType: String?
    let cacheStatus: String?
    var description: String { "\(status) \(contentType ?? "-") \(cacheStatus ?? "-")" }
}

/// AsyncHTTPClient, a connection per concurrent request.
final class ClusterClient: Sendable {
    private let client: HTTPClient

    init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.timeout.connect = .seconds(60)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async throws { try await client.shutdown() }

    /// GET `path` on `port`: status and body.
    func get(port: Int, path: String, accept: String?) async throws -> (status: Int, body: Data, answer: ClusterAnswer) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        if let accept { request.headers.add(name: "Accept", value: accept) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 16 << 20)
        let answer = ClusterAnswer(status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
                                   cacheStatus: response.headers.first(name: "X-Cache-Status"))
        return (answer.status, Data(buffer: body), answer)
    }

    /// Every path once, `concurrency` at a time, request i with `accept[i % accept.count]`; a
    /// request that throws counts as status 0.
    func load(port: Int, paths: [String], concurrency: Int, accept: [String]) async -> [ClusterAnswer] {
        await withTaskGroup(of: [ClusterAnswer].self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var answers: [ClusterAnswer] = []
                    for index in stride(from: worker, to: paths.count, by: concurrency) {
                        let answer: ClusterAnswer
                        do {
                            answer = try await self.get(port: port, path: paths[index], accept: accept[index % accept.count]).answer
                        } catch {
                            answer = ClusterAnswer(status: 0, contentType: "\(error)", cacheStatus: nil)
                        }
                        answers.append(answer)
                    }
                    return answers
                }
            }
            var all: [ClusterAnswer] = []
            for await answers in group { all += answers }
            return all
        }
    }

    /// How many results the instance on `port` has made (encoded), from its `/metrics`.
    func resultsMade(port: Int) async throws -> Int {
        let metrics = try await get(port: port, path: "/metrics", accept: nil)
        let text = String(decoding: metrics.body, as: UTF8.self)
        guard let value = metricValue(text, "loupe_stage_duration_seconds_count{stage=\"encode\"}") else {
            throw FixtureError("no encode count in /metrics: \(text.prefix(500))")
        }
        return Int(value)
    }
}
