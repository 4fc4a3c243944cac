import Foundation
import LoupeLoading

/// thumbor's URL signatures: HMAC-SHA1 with the security key over the path after the signature
/// segment, URL-safe base64 with its padding (28 characters).
struct ThumborSigner: Sendable {
    let key: Data

    init(key: String) {
        self.key = Data(key.utf8)
    }

    /// The signature of `path` (the path after `/<signature>/`, no leading `/`).
    func signature(for path: String) -> String {
        let code = Digest.hmac(.sha1, key: key, message: Data(path.utf8))
        return Data(code).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// Whether `signature` (as sent: `=` or `%3D`) signs `path`; compared in constant time.
    func isValid(signature: String, for path: String) -> Bool {
        guard let code = Self.signatureBytes(signature) else { return false }
        return Digest.constantTimeEquals(Array(code), Digest.hmac(.sha1, key: key, message: Data(path.utf8)))
    }

    /// The 20 bytes of a signature segment of thumbor's shape, `nil` for any other text: 28
    /// characters of URL-safe base64 ending in one `=` (sent as `=` or `%3D`), canonical (the
    /// unused low bits zero), so one signature has one spelling.
    static func signatureBytes(_ segment: String) -> Data? {
        let text = segment.hasSuffix("%3D") || segment.hasSuffix("%3d") ? segment.dropLast(3) + "=" : segment
        guard text.count == 28, text.hasSuffix("="),
              text.dropLast().allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard let bytes = Data(base64Encoded: standard), bytes.count == Digest.Function.sha1.byteCount,
              bytes.base64EncodedString() == standard else { return nil }
        return bytes
    }
}
