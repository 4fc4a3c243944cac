/// Lowercase hexadecimal text of bytes: request signatures, cache keys and ETags (shared with the
/// pipeline and the service through `package` access, not part of the library's API).
///
/// Written out by table rather than with `String(format: "%02x")`, which goes through
/// Foundation's format parser once per byte: for the 32-byte result key computed on every
/// request, that was the largest single cost of answering a cached result.
///
/// Inlinable, so that it is specialised for the caller's bytes: generic code called from another
/// module otherwise runs unspecialised, at a witness call per byte.
package enum Hex {
    @usableFromInline static let digits = Array("0123456789abcdef".utf8)

    /// Two lowercase hex digits per byte of `bytes`.
    @inlinable package static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
