import Crypto
import Foundation

/// imgproxy's URL signatures: HMAC-SHA256 with a key over salt + path, URL-safe base64 without
/// padding. Several key/salt pairs may be accepted at once, so keys can be rotated.
public struct URLSigner: Sendable {
    /// One key and its salt (raw bytes, given as hex in settings).
    public struct KeyPair: Sendable, Equatable {
        /// The HMAC key.
        public var key: Data
        /// Prepended to the path before signing.
        public var salt: Data

        /// A pair.
        public init(key: Data, salt: Data) {
            self.key = key
            self.salt = salt
        }
    }

    /// The pairs accepted; the first one signs.
    public let pairs: [KeyPair]

    /// A signer accepting any of `pairs`.
    public init(pairs: [KeyPair]) {
        self.pairs = pairs
    }

    /// The signature of `path` (the part after the signature segment, leading `/` included)
    /// with the first pair; `nil` without pairs.
    public func signature(for path: String) -> String? {
        pairs.first.map { Self.signature(for: path, with: $0) }
    }

    /// Whether `signature` is valid for `path` under any pair. Each comparison is constant-time
    /// (CryptoKit's `isValidAuthenticationCode`) and every pair is tried, so the time taken does
    /// not tell how much of a forged signature was right.
    public func isValid(signature: String, for path: String) -> Bool {
        // Only the canonical encoding: the last character of 32 bytes in base64 carries two
        // unused bits, and a signature differing there must not pass as the same one.
        guard let code = ImgproxyURL.base64URLDecode(signature), code.count == SHA256.byteCount,
              Self.base64URLEncode(code) == signature else { return false }
        var valid = false
        for pair in pairs {
            var message = pair.salt
            message.append(contentsOf: Data(path.utf8))
            if HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: SymmetricKey(data: pair.key)) {
                valid = true
            }
        }
        return valid
    }

    static func signature(for path: String, with pair: KeyPair) -> String {
        var message = pair.salt
        message.append(contentsOf: Data(path.utf8))
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: pair.key))
        return base64URLEncode(Data(code))
    }

    /// URL-safe base64 without padding.
    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
