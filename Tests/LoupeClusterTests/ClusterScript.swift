import Foundation
import LoupeTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A cluster run by the shipped `Scripts/ops/cluster.sh` in a temporary folder: the real `loupe`
/// binary of this build (beside the test bundle) as its instances, the real nginx in front, all
/// on loopback ports of its own.
struct ClusterScript: Sendable {
    /// The cluster's folder (`LOUPE_CLUSTER_DIR`).
    let folder: URL
    /// nginx's port; instance `i` listens on `port + i`.
    let port: Int
    /// The signing key and salt (hex) every instance gets.
    let key: String, salt: String
    /// More of the script's environment, for every command (settings of every instance).
    let settings: [String: String]

    /// How long nginx leaves a failed instance out: short, so a restarted one is tried again soon.
    static let failTimeout = Duration.seconds(1)

    init(instances: Int, key: String = "736563726574", salt: String = "68656c6c6f", settings: [String: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-cluster-\(UUID().uuidString)")
        port = try freeLoopbackPorts(count: instances + 1)
        self.key = key
        self.salt = salt
        self.settings = settings
    }

    /// `Scripts/ops/cluster.sh arguments…` with the cluster's settings and `overrides` in its
    /// environment; output and status, after at most `timeout`.
    func run(_ arguments: [String], overrides: [String: String] = [:], timeout: Duration = .seconds(120)) async throws -> (status: Int32, output: String) {
        var environment: [String: String] = [:]
        environment["LOUPE_CLUSTER_DIR"] = folder.path
        environment["LOUPE_CLUSTER_PORT"] = String(port)
        environment["LOUPE_CLUSTER_FAIL_TIMEOUT"] = "\(Self.failTimeout.components.seconds)s"
        environment["LOUPE_BIN"] = Self.loupeBinary.path
        environment["LOUPE_KEY"] = key
        environment["LOUPE_SALT"] = salt
        // The sources are on loopback (nginx), which the SSRF guard refuses otherwise.
        environment["LOUPE_PERMIT_ADDRESSES"] = "127.0.0.1"
        environment.merge(settings) { $1 }
        environment.merge(overrides) { $1 }
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [Self.script.path] + arguments,
                                                 environment: environment, timeout: timeout)
        return (outcome.status, outcome.standardOutput + outcome.standardError)
    }

    /// `start N`, failing the caller unless it succeeds.
    func start(_ instances: Int, overrides: [String: String] = [:]) async throws {
        let (status, output) = try await run(["start", String(instances)], overrides: overrides)
        guard status == 0 else { throw FixtureError("cluster.sh start \(instances) exited \(status): \(output)") }
    }

    /// `stop`, then SIGKILL for anything still running, and the folder removed.
    func stop() async {
        _ = try? await run(["stop"], timeout: .seconds(60))
        for pidFile in ["nginx.pid", "instance-1/pid", "instance-2/pid", "instance-3/pid"] {
            if let pid = pid(pidFile) { kill(pid, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The process id of instance `i`, from the script's pid file.
    func instancePID(_ i: Int) -> pid_t? { pid("instance-\(i)/pid") }

    /// Instance `i`'s port.
    func instancePort(_ i: Int) -> Int { port + i }

    private func pid(_ file: String) -> pid_t? {
        (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = repository.appendingPathComponent("Scripts/ops/cluster.sh")

    /// `loupe` sits beside the test bundle in the build products directory.
    static var loupeBinary: URL { ChildProcess.product("loupe") }
}
