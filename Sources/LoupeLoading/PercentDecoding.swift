import Foundation

/// Percent-decoding on bytes (`%2F` → `/`): a data URL's payload, and the service's plain
/// sources on every request (shared through `package` access, not part of the library's API).
///
/// On bytes rather than Foundation's `removingPercentEncoding`, which goes through `CFString`
/// and was a tenth of the CPU of answering a cached result; a data URL may also encode any byte
/// (`%FF`), which is not valid UTF-8.
package enum PercentDecoding {
    /// The bytes `encoded` stands for; `nil` when a `%` is not followed by two hex digits.
    package static func bytes(_ encoded: some Collection<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(encoded.count)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            output.append(high << 4 | low)
        }
        return output
    }

    /// The text `encoded` stands for, as `removingPercentEncoding` gives it: `nil` when an
    /// escape is malformed or the decoded bytes are not UTF-8.
    package static func string(_ encoded: some StringProtocol) -> String? {
        bytes(encoded.utf8).flatMap { String(validating: $0, as: UTF8.self) }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
