import Foundation
import LoupeLoading

/// imgproxy's URL signatures: HMAC-SHA256 with a key over salt + path, its first ``size`` bytes
/// (all 32 by default; imgproxy's `IMGPROXY_SIGNATURE_SIZE`), URL-safe base64 without padding.
/// Several key/salt pairs may be accepted at once, so keys can be rotated.
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
    /// How many of the digest's bytes a signature holds, 1 to 32.
    public let size: Int

    /// How many characters a signature has: ``size`` bytes in base64 without padding.
    public var encodedLength: Int { (size * 4 + 2) / 3 }

    /// A signer accepting any of `pairs`, its signatures `size` bytes long (clamped to 1...32).
    public init(pairs: [KeyPair], size: Int = 32) {
        self.pairs = pairs
        self.size = min(max(size, 1), Digest.Function.sha256.byteCount)
    }

    /// The signature of `path` (the part after the signature segment, leading `/` included)
    /// with the first pair; `nil` without pairs.
    public func signature(for path: String) -> String? {
        pairs.first.map { Self.base64URLEncode(Data(Self.digest(of: path, with: $0).prefix(size))) }
    }

    /// Whether `signature` is valid for `path` under any pair. Each comparison is constant-time
    /// (every byte compared, whatever differs first) and every pair is tried, so the time taken
    /// does not tell how much of a forged signature was right.
    public func isValid(signature: String, for path: String) -> Bool {
        // Only the canonical encoding: the last character of base64 may carry unused bits, and
        // a signature differing there must not pass as the same one.
        guard let code = ImgproxyURL.base64URLDecode(signature), code.count == size,
              Self.base64URLEncode(code) == signature else { return false }
        var valid = false
        for pair in pairs {
            var difference: UInt8 = 0
            for (expected, given) in zip(Self.digest(of: path, with: pair).prefix(size), code) { difference |= expected ^ given }
            if difference == 0 { valid = true }
        }
        return valid
    }

    /// The whole HMAC-SHA256 of `pair`'s salt and `path`.
    private static func digest(of path: String, with pair: KeyPair) -> [UInt8] {
        var message = pair.salt
        message.append(contentsOf: Data(path.utf8))
        return Digest.hmac(.sha256, key: pair.key, message: message)
    }

    /// URL-safe base64 without padding.
    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
