import CLibCrypto
import Foundation

/// SHA-256 and HMAC from the system's libcrypto (OpenSSL 3): S3 request signatures here, and,
/// through `package` access, the pipeline's request-header keys and the service's URL signatures,
/// ETags and result versions. Not part of the library's API.
///
/// The system's library rather than a bundled one: the one-shot functions below are all these
/// callers need, and a bundled BoringSSL compiles again in every build the tests make.
package enum Digest {
    /// A hash function an HMAC is made with.
    package enum Function: Sendable {
        /// SHA-256: imgproxy's signatures, AWS Signature Version 4.
        case sha256
        /// SHA-1: thumbor's signatures (HMAC-SHA1 is not broken as SHA-1's collisions are).
        case sha1

        /// The digest's length in bytes.
        package var byteCount: Int {
            switch self {
            case .sha256: 32
            case .sha1: 20
            }
        }

        var name: String {
            switch self {
            case .sha256: "SHA256"
            case .sha1: "SHA1"
            }
        }
    }

    // Concrete entry points rather than one generic over `DataProtocol`: a generic called from
    // another module runs unspecialised, and its witness calls and metadata lookups cost a cached
    // result's answer more than the hash itself.

    /// The SHA-256 of `data`.
    package static func sha256(_ data: Data) -> [UInt8] { data.withUnsafeBytes(sha256(raw:)) }

    /// The SHA-256 of `bytes`.
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes(sha256(raw:)) }

    /// The SHA-256 of `text`'s UTF-8 bytes.
    package static func sha256(utf8 text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { sha256(raw: UnsafeRawBufferPointer($0)) }
    }

    /// The HMAC of `message` under `key` with `function`.
    package static func hmac(_ function: Function, key: Data, message: Data) -> [UInt8] {
        key.withUnsafeBytes { key in message.withUnsafeBytes { hmac(function, key: key, message: $0) } }
    }

    /// The HMAC of `message` under `key` with `function`.
    package static func hmac(_ function: Function, key: [UInt8], message: [UInt8]) -> [UInt8] {
        key.withUnsafeBytes { key in message.withUnsafeBytes { hmac(function, key: key, message: $0) } }
    }

    private static func sha256(raw input: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Function.sha256.byteCount)
        var length: UInt32 = 0
        let done = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, sha256Function, nil)
        }
        return checked(digest, done == 1 && Int(length) == digest.count && sha256Function != nil, "EVP_Digest")
    }

    private static func hmac(_ function: Function, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: function.byteCount)
        var length = 0
        let done = code.withUnsafeMutableBufferPointer { out in
            EVP_Q_mac(library, "HMAC", nil, function.name, nil, key.baseAddress, key.count, message.baseAddress, message.count,
                      out.baseAddress, out.count, &length)
        }
        return checked(code, done != nil && length == code.count, "EVP_Q_mac")
    }

    /// Whether `a` and `b` are the same bytes, in a time that depends on their lengths only (not
    /// on where they first differ), so comparing a secret tells nothing about how much matched.
    package static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { a in b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }

    /// A library context of Loupe's own, so that the process's OpenSSL configuration
    /// (`OPENSSL_CONF`, which may deactivate the default provider) can neither change these digests
    /// nor make them fail: its first fetch loads the default provider, which is built into
    /// libcrypto. Created once, never freed.
    ///
    /// `nonisolated(unsafe)`: an `OpaquePointer` is not `Sendable`, but this one is written once
    /// (a global's lazy initialisation runs exactly once, under the runtime's lock), only read
    /// after, and OpenSSL documents a library context as safe to use from many threads at once.
    private nonisolated(unsafe) static let library: OpaquePointer? = OSSL_LIB_CTX_new()

    /// SHA-256 fetched from that context once: fetching it by name at every call (what
    /// `EVP_Q_digest` does) made a cached result's answer 20–30 % more expensive.
    ///
    /// `nonisolated(unsafe)` for the same reason as `library`: written once, read after, and a
    /// fetched `EVP_MD` is immutable and shared between threads by design.
    private nonisolated(unsafe) static let sha256Function: OpaquePointer? = EVP_MD_fetch(library, "SHA256", nil)

    /// `value` when libcrypto said `succeeded`. With the context above, the functions fail only
    /// when libcrypto cannot allocate, where Swift's own allocator stops the process as well; a
    /// wrong digest must never be returned (a signature check would compare against it).
    private static func checked(_ value: [UInt8], _ succeeded: Bool, _ function: StaticString) -> [UInt8] {
        guard succeeded, library != nil else { preconditionFailure("libcrypto's \(function) failed (out of memory)") }
        return value
    }
}
