import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeLoading

/// Credentials found as the AWS tools find them, and never printed.
@Suite struct S3CredentialsTests {
    static let file = """
        # a comment
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default/secret+key

        [profile staging]
        aws_access_key_id=AKIASTAGING
        aws_secret_access_key=staging-secret
        aws_session_token = staging-token
        ; another comment
        [broken]
        aws_access_key_id = AKIABROKEN
        """

    func withFile(_ body: (String) throws -> Void) throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let path = folder.path("credentials")
        try Data(Self.file.utf8).write(to: URL(fileURLWithPath: path))
        try body(path)
    }

    @Test func variablesComeFirst() throws {
        try withFile { path in
            let credentials = try S3Credentials.fromEnvironment([
                "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token",
                "AWS_SHARED_CREDENTIALS_FILE": path,
            ])
            #expect(credentials == S3Credentials(accessKeyID: "AKIAENV", secretAccessKey: "env-secret", sessionToken: "env-token"))
        }
    }

    @Test func theFilesProfiles() throws {
        try withFile { path in
            let fallback = try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": path])
            #expect(fallback == S3Credentials(accessKeyID: "AKIADEFAULT", secretAccessKey: "default/secret+key"))
            let staging = try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": path, "AWS_PROFILE": "staging"])
            #expect(staging == S3Credentials(accessKeyID: "AKIASTAGING", secretAccessKey: "staging-secret", sessionToken: "staging-token"))
        }
    }

    /// The file under `HOME` when no file is named; nothing at all (unsigned requests) when
    /// there is none.
    @Test func theHomeFolderOrNothing() throws {
        let home = try TemporaryFolder.created()
        defer { home.remove() }
        #expect(try S3Credentials.fromEnvironment(["HOME": home.url.path]) == nil)
        try FileManager.default.createDirectory(at: home.url.appendingPathComponent(".aws"), withIntermediateDirectories: true)
        try Data(Self.file.utf8).write(to: home.url.appendingPathComponent(".aws/credentials"))
        #expect(try S3Credentials.fromEnvironment(["HOME": home.url.path])?.accessKeyID == "AKIADEFAULT")
    }

    @Test func mistakesAreNamedWithoutTheKeys() throws {
        try withFile { path in
            let cases: [([String: String], String)] = [
                (["AWS_ACCESS_KEY_ID": "AKIAHALF"], "must be set together"),
                (["AWS_SECRET_ACCESS_KEY": "half-secret"], "must be set together"),
                (["AWS_SHARED_CREDENTIALS_FILE": path + ".missing"], "cannot be read"),
                (["AWS_SHARED_CREDENTIALS_FILE": path, "AWS_PROFILE": "absent"], "has no profile 'absent'"),
                (["AWS_SHARED_CREDENTIALS_FILE": path, "AWS_PROFILE": "broken"], "lacks aws_access_key_id or aws_secret_access_key"),
            ]
            for (environment, words) in cases {
                let error = #expect(throws: S3ConfigurationError.self) { try S3Credentials.fromEnvironment(environment) }
                #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
                for secret in ["half-secret", "default/secret+key", "staging-secret"] {
                    #expect(error?.message.contains(secret) == false)
                }
            }
        }
    }

    /// Interpolation, `String(reflecting:)` and `dump` show the key ID's last four characters at
    /// most.
    @Test func neverPrinted() {
        let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG", sessionToken: "token-value")
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in ["\(credentials)", String(reflecting: credentials), dumped, "\([credentials])"] {
            #expect(!text.contains("wJalrXUtnFEMI") && !text.contains("token-value") && !text.contains("AKIAIOSFODNN7"), "\(text)")
            #expect(text.contains("…MPLE"), "\(text)")
        }
    }
}
