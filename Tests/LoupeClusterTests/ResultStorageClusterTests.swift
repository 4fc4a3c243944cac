import Foundation
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two instances of `Scripts/ops/cluster.sh` sharing results through `--result-storage` on a
/// real S3 server (Ceph's RADOS Gateway, `S3Gateway`), behind nginx with its cache off: each
/// result is made once across the cluster, and after one instance is killed (`kill -9`) and the
/// other restarted, both with empty disks, every result comes from the bucket without a decode.
@Suite(.serialized) struct ResultStorageClusterTests {
    @Test func eachResultIsMadeOnceAndOutlivesItsInstances() async throws {
        let gateway = try await S3Gateway.shared()
        // The operator creates the bucket; a prefix of its own keeps this run apart.
        try await gateway.put(Data("marker".utf8), bucket: "cluster-results", key: "marker")
        let settings = ["LOUPE_RESULT_STORAGE": "s3://cluster-results/\(UUID().uuidString.lowercased())",
                        "LOUPE_S3_ENDPOINT": gateway.endpoint.absoluteString,
                        "AWS_SHARED_CREDENTIALS_FILE": gateway.credentialsFile.path,
                        "LOUPE_CLUSTER_CACHE": "off"]
        try await withCluster(settings: settings) { cluster, client, origin in
            let paths = resultPaths(origin: origin, widths: 30..<40, cluster: cluster)
            #expect(Set(paths).count == 200)

            // Each result once, through nginx: made by one instance or the other.
            let first = try await client.bodies(port: cluster.port, paths: paths)
            #expect(first.count == 200)
            let made = [try await client.resultsMade(port: cluster.instancePort(1)), try await client.resultsMade(port: cluster.instancePort(2))]
            #expect(made[0] > 0 && made[1] > 0 && made[0] + made[1] == 200, "results made per instance: \(made)")
            // The writes go out in the background: wait (bounded) until all 200 are in the bucket.
            var written = 0
            for _ in 0..<600 {
                written = try await client.storageCount("written", ports: [cluster.instancePort(1), cluster.instancePort(2)])
                if written >= 200 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(written == 200)

            // Again, nginx caching nothing: a result asked of the instance that did not make it
            // comes from the bucket, so still 200 made across the cluster.
            let second = try await client.bodies(port: cluster.port, paths: paths)
            #expect(second == first)
            let madeAgain = [try await client.resultsMade(port: cluster.instancePort(1)), try await client.resultsMade(port: cluster.instancePort(2))]
            #expect(madeAgain[0] + madeAgain[1] == 200, "results made per instance: \(madeAgain)")
            #expect(try await client.storageCount("hit", ports: [cluster.instancePort(1), cluster.instancePort(2)]) > 0)

            // Instance 2 killed, instance 1 stopped; both disks emptied; both started again.
            let victim = try #require(cluster.instancePID(2)), stopped = try #require(cluster.instancePID(1))
            kill(victim, SIGKILL)
            kill(stopped, SIGTERM)
            for _ in 0..<600 where isRunning(victim) || isRunning(stopped) {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!isRunning(victim) && !isRunning(stopped))
            for i in 1...2 { try FileManager.default.removeItem(at: cluster.folder.appendingPathComponent("instance-\(i)/cache")) }
            try await cluster.start(2)
            // nginx tries a failed instance again once its fail_timeout has passed.
            try await Task.sleep(for: ClusterScript.failTimeout + .milliseconds(500))

            let third = try await client.bodies(port: cluster.port, paths: paths)
            #expect(third == first)
            for i in 1...2 {
                let text = String(decoding: try await client.get(port: cluster.instancePort(i), path: "/metrics", accept: nil).body, as: UTF8.self)
                #expect(metricValue(text, "loupe_pipeline_decodes") == 0, "instance \(i)")
                #expect(metricValue(text, "loupe_pipeline_downloads") == 0, "instance \(i)")
            }
            #expect(try await client.storageCount("hit", ports: [cluster.instancePort(1), cluster.instancePort(2)]) == 200)
        }
    }
}

/// Whether process `pid` runs (and is not a zombie awaiting its parent).
private func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
}

extension ClusterClient {
    /// Each path's answer body, eight requests at a time; any answer but 200 throws.
    func bodies(port: Int, paths: [String]) async throws -> [String: Data] {
        try await withThrowingTaskGroup(of: [(String, Data)].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var bodies: [(String, Data)] = []
                    for index in stride(from: worker, to: paths.count, by: 8) {
                        let answer = try await self.get(port: port, path: paths[index], accept: nil)
                        guard answer.status == 200 else { throw FixtureError("\(paths[index]): \(answer.status)") }
                        bodies.append((paths[index], answer.body))
                    }
                    return bodies
                }
            }
            var all: [String: Data] = [:]
            for try await bodies in group { for (path, body) in bodies { all[path] = body } }
            return all
        }
    }

    /// The instances' `loupe_result_storage_total` for `outcome`, summed.
    func storageCount(_ outcome: String, ports: [Int]) async throws -> Int {
        var total = 0
        for port in ports {
            let text = String(decoding: try await get(port: port, path: "/metrics", accept: nil).body, as: UTF8.self)
            total += Int(metricValue(text, "loupe_result_storage_total{outcome=\"\(outcome)\"}") ?? 0)
        }
        return total
    }
}
