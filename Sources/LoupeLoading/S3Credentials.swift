import Foundation

/// The keys that sign S3 requests: an access key ID, its secret and, for temporary credentials,
/// a session token — read as the AWS tools read them (``fromEnvironment(_:)``).
///
/// Never printed: its description, debug description and mirror show the access key ID's last
/// four characters at most, so a credential cannot reach a log, an error or `/info` through
/// string interpolation or `dump`.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key ID (`AKIA…`).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "S3 credentials (access key ID …\(accessKeyID.suffix(4)), secret hidden)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["credentials": description]) }

    /// The largest shared credentials file read (real ones are a few hundred bytes).
    static let maximumFileSize = 1 << 20

    /// The credentials the environment names, as the AWS CLI and SDKs find them:
    /// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`) when both are
    /// set; else the profile `AWS_PROFILE` (`default`) of the shared credentials file
    /// `AWS_SHARED_CREDENTIALS_FILE` (`~/.aws/credentials`); else `nil`: requests go unsigned,
    /// which only public buckets answer.
    ///
    /// - Throws: ``S3ConfigurationError`` for half a pair of variables, a file that was named but
    ///   cannot be read, a profile that was named but is not in the file, or a profile without
    ///   both keys. Its messages name variables, files and profiles, never a key.
    public static func fromEnvironment(_ environment: [String: String]) throws(S3ConfigurationError) -> S3Credentials? {
        func value(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        switch (value("AWS_ACCESS_KEY_ID"), value("AWS_SECRET_ACCESS_KEY")) {
        case (let id?, let secret?):
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        case (_?, nil), (nil, _?):
            throw S3ConfigurationError("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together")
        case (nil, nil):
            break
        }
        let named = value("AWS_SHARED_CREDENTIALS_FILE")
        guard let path = named ?? value("HOME").map({ $0 + "/.aws/credentials" }) else { return nil }
        let profile = value("AWS_PROFILE")
        guard let text = try readFile(path, required: named != nil || profile != nil) else { return nil }
        let profiles = parseProfiles(text)
        guard let keys = profiles[profile ?? "default"] else {
            if profile == nil { return nil }
            throw S3ConfigurationError("the shared credentials file \(path) has no profile '\(profile ?? "default")'")
        }
        guard let id = keys["aws_access_key_id"], let secret = keys["aws_secret_access_key"], !id.isEmpty, !secret.isEmpty else {
            throw S3ConfigurationError("the profile '\(profile ?? "default")' of \(path) lacks aws_access_key_id or aws_secret_access_key")
        }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: keys["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The file's text; `nil` when it does not exist and was not asked for by name.
    private static func readFile(_ path: String, required: Bool) throws(S3ConfigurationError) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            guard required else { return nil }
            throw S3ConfigurationError("the shared credentials file \(path) cannot be read")
        }
        // Its size before its bytes: a file past the limit is refused unread.
        guard attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int, size <= maximumFileSize else {
            throw S3ConfigurationError("the shared credentials file \(path) is not a regular file of at most \(maximumFileSize) bytes")
        }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            throw S3ConfigurationError("the shared credentials file \(path) cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw S3ConfigurationError("the shared credentials file \(path) is not UTF-8 text")
        }
        return text
    }

    /// The INI file's sections: `[name]` lines, then `key = value` lines; `#` and `;` start comments.
    package static func parseProfiles(_ text: String) -> [String: [String: String]] {
        var profiles: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                var name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                // The config file's spelling, `[profile name]`, names the same profile.
                if name.hasPrefix("profile ") { name = name.dropFirst("profile ".count).trimmingCharacters(in: .whitespaces) }
                current = name
                if profiles[name] == nil { profiles[name] = [:] }
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            profiles[current, default: [:]][key] = value
        }
        return profiles
    }
}
