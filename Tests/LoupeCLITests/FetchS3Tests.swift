import Foundation
import LoupeTestSupport
import Testing

/// `loupe fetch s3://…` with the environment `loupe serve` reads (imgproxy's S3 variables, the
/// AWS credentials), against a real S3 server (Ceph's RADOS Gateway, `S3Gateway`).
@Suite struct FetchS3Tests {
    /// `loupe fetch arguments…` with the gateway's endpoint and credentials file (and `extra`)
    /// in its environment.
    static func fetch(_ arguments: [String], gateway: S3Gateway, home: TemporaryFolder, extra: [String: String] = [:]) async throws -> LoupeRun {
        var environment = ["XDG_CACHE_HOME": home.path("cache"), "IMGPROXY_S3_ENDPOINT": gateway.endpoint.absoluteString,
                           "AWS_SHARED_CREDENTIALS_FILE": gateway.credentialsFile.path]
        environment.merge(extra) { $1 }
        let outcome = try await ChildProcess.run(ChildProcess.product("loupe"), ["fetch"] + arguments, environment: environment, timeout: .seconds(120))
        return LoupeRun(status: outcome.status, standardOutput: outcome.standardOutput, standardError: outcome.standardError)
    }

    /// The thumbnail of an S3 object is the same file as the thumbnail of the same bytes on disk.
    @Test func writesTheSameThumbnailAsFromAFile() async throws {
        let gateway = try await S3Gateway.shared()
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let photo = try TestImage.jpeg(width: 320, height: 240, seed: 11)
        try await gateway.put(photo, bucket: "fetch-photos", key: "dir/photo one.jpg")
        try photo.write(to: folder.url.appendingPathComponent("photo.jpg"))
        var written: [Data] = []
        for (source, out) in [("s3://fetch-photos/dir/photo%20one.jpg", "from-s3"), (folder.path("photo.jpg"), "from-file")] {
            let run = try await Self.fetch(["--json", "--no-cache", "--thumbnail", "64", "--out", folder.path(out), source], gateway: gateway, home: folder)
            #expect(run.status == 0, "\(run.standardOutput) \(run.standardError)")
            let object = try #require(try run.objects().first)
            #expect(object["ok"] as? Bool == true, "\(object)")
            #expect(object["outputWidth"] as? Int == 64)
            let path = try #require(object["path"] as? String)
            written.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(written.count == 2 && written[0] == written[1] && !written[0].isEmpty)
    }

    /// A missing key is an `http` failure with status 404; a wrong secret one with status 403
    /// whose message names S3's code and not the secret.
    @Test func reportsAMissingKeyAndAWrongSecret() async throws {
        let gateway = try await S3Gateway.shared()
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try await gateway.put(try TestImage.jpeg(width: 20, height: 20, seed: 12), bucket: "fetch-errors", key: "a.jpg")
        let missing = try await Self.fetch(["--json", "--no-cache", "s3://fetch-errors/absent.jpg"], gateway: gateway, home: folder)
        #expect(missing.status == 1)
        let missingError = try #require(try missing.objects().first?["error"] as? [String: Any])
        #expect(missingError["kind"] as? String == "http" && missingError["status"] as? Int == 404, "\(missingError)")

        let secret = "wrong-\(UUID().uuidString)"
        let denied = try await Self.fetch(["--json", "--no-cache", "s3://fetch-errors/a.jpg"], gateway: gateway, home: folder, extra: [
            "AWS_ACCESS_KEY_ID": gateway.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret,
        ])
        #expect(denied.status == 1)
        let deniedError = try #require(try denied.objects().first?["error"] as? [String: Any])
        #expect(deniedError["kind"] as? String == "http" && deniedError["status"] as? Int == 403, "\(deniedError)")
        #expect((deniedError["message"] as? String)?.contains("SignatureDoesNotMatch") == true)
        #expect(!(denied.standardOutput + denied.standardError).contains(secret))
    }
}
