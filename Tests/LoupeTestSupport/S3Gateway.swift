import Foundation
import LoupeCaching
import LoupeLoading

/// The real S3 server of the `s3://` tests: Ceph's RADOS Gateway on a one-node cluster, started by
/// the shipped `Scripts/s3/gateway.sh` in a temporary folder on the first ``shared()`` of a test
/// process and stopped (and its folder removed) when the process exits. Objects are put with
/// boto3 (`Scripts/s3/client.py` in the conformance venv), an S3 client independent of Loupe's.
package final class S3Gateway: Sendable {
    /// The gateway's folder: configuration, data, logs, PIDs.
    package let folder: URL
    /// The gateway's base URL (`http://127.0.0.1:PORT`).
    package let endpoint: URL
    /// The S3 user's keys.
    package let credentials: S3Credentials
    /// The shared credentials file holding ``credentials`` (profile `default`).
    package var credentialsFile: URL { folder.appendingPathComponent("credentials") }

    private init(folder: URL, endpoint: URL, credentials: S3Credentials) {
        self.folder = folder
        self.endpoint = endpoint
        self.credentials = credentials
    }

    private static let started = Locked<Task<S3Gateway, any Error>?>(nil)
    /// The folder to stop at exit, once a start began.
    private static let running = Locked<URL?>(nil)

    static let script = Corpus.repositoryRoot.appendingPathComponent("Scripts/s3/gateway.sh")
    static let client = Corpus.repositoryRoot.appendingPathComponent("Scripts/s3/client.py")
    static let python = Corpus.repositoryRoot.appendingPathComponent(".venv-conformance/bin/python")

    /// The process's gateway, started on the first call (about ten seconds); every later call,
    /// concurrent ones included, gets the same one.
    package static func shared() async throws -> S3Gateway {
        let task = started.withLock { task -> Task<S3Gateway, any Error> in
            if let task { return task }
            let new = Task { try await launch() }
            task = new
            return new
        }
        return try await task.value
    }

    private static func launch() async throws -> S3Gateway {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw CorpusMissing(path: "\(python.path) (run bash Scripts/conformance/venv.sh)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-s3-\(UUID().uuidString)")
        running.withLock { $0 = folder }
        atexit { S3Gateway.stopAtExit() }
        // At a lower priority (the daemons inherit it): its start, about ten seconds of CPU work,
        // runs beside the other suites of the process, some of which bound their answers' time.
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/nice"), ["-n", "10", "/bin/bash", script.path, "start", folder.path],
                                                 timeout: .seconds(180))
        guard outcome.status == 0 else {
            throw FixtureError("gateway.sh start exited \(outcome.status): \(outcome.standardOutput)\(outcome.standardError)")
        }
        let endpointText = try String(contentsOf: folder.appendingPathComponent("endpoint"), encoding: .utf8)
        guard let endpoint = URL(string: endpointText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw FixtureError("gateway.sh wrote no endpoint")
        }
        let file = try String(contentsOf: folder.appendingPathComponent("credentials"), encoding: .utf8)
        guard let keys = S3Credentials.parseProfiles(file)["default"], let id = keys["aws_access_key_id"],
              let secret = keys["aws_secret_access_key"]
        else { throw FixtureError("gateway.sh wrote no credentials") }
        return S3Gateway(folder: folder, endpoint: endpoint, credentials: S3Credentials(accessKeyID: id, secretAccessKey: secret))
    }

    /// Stops the gateway (by the PIDs its script recorded) and removes its folder.
    private static func stopAtExit() {
        guard let folder = running.withLock({ $0 }) else { return }
        _ = try? ChildProcess.runBlocking(URL(fileURLWithPath: "/bin/bash"), [script.path, "stop", folder.path], timeout: .seconds(60))
        try? FileManager.default.removeItem(at: folder)
    }

    /// What S3 said about a put object.
    package struct PutObject: Sendable, Decodable {
        /// The object's ETag, quoted as S3 sends it.
        package var etag: String
        /// The version created, in a versioned bucket.
        package var versionId: String?
    }

    /// Puts `data` as `key` in `bucket` (created when missing; versioning enabled on it when
    /// `versioned`), with boto3; `cacheControl` is stored with it and sent back as its
    /// `Cache-Control`.
    @discardableResult
    package func put(_ data: Data, bucket: String, key: String, versioned: Bool = false, cacheControl: String? = nil) async throws -> PutObject {
        let source = folder.appendingPathComponent("upload-\(UUID().uuidString)")
        try data.write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        let outcome = try await ChildProcess.run(
            Self.python, [Self.client.path, folder.path, "put", bucket, key, source.path] + (versioned ? ["--versioned"] : [])
                + (cacheControl.map { ["--cache-control", $0] } ?? []),
            timeout: .seconds(60))
        guard outcome.status == 0 else { throw FixtureError("client.py put exited \(outcome.status): \(outcome.standardError)") }
        return try JSONDecoder().decode(PutObject.self, from: outcome.output)
    }

    /// The gateway's answers to `method` requests whose path (as sent, percent-encoded, query
    /// included) is `path`, once `count` of them are in its request log or ten seconds have
    /// passed: each one's status and the bytes it sent. The gateway writes its log on a thread of
    /// its own, after it has answered, so a line read at once may not be there yet.
    package func answers(_ method: String, path: String, count: Int) async -> [(status: Int, bytes: Int)] {
        _ = await eventually(timeout: .seconds(10)) { self.loggedAnswers(method, path: path).count >= count }
        return loggedAnswers(method, path: path)
    }

    /// The answers in the log as it is now (see ``answers(_:path:count:)``).
    private func loggedAnswers(_ method: String, path: String) -> [(status: Int, bytes: Int)] {
        let log = (try? String(contentsOf: folder.appendingPathComponent("log/ceph-client.rgw.log"), encoding: .utf8)) ?? ""
        let marker = "\"\(method) \(path) HTTP/1.1\" "
        return log.split(separator: "\n").compactMap { line in
            guard line.contains(" beast: "), let range = line.range(of: marker) else { return nil }
            let fields = line[range.upperBound...].split(separator: " ", maxSplits: 2)
            guard fields.count >= 2, let status = Int(fields[0]), let bytes = Int(fields[1]) else { return nil }
            return (status, bytes)
        }
    }
}
