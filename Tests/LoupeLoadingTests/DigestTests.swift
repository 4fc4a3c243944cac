import Foundation
import Testing
@testable import LoupeLoading

/// `Digest` against the published test vectors of the functions it wraps: FIPS 180-2's SHA-256
/// examples, RFC 4231's HMAC-SHA256 and RFC 2202's HMAC-SHA1 cases.
@Suite struct DigestTests {
    private static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @Test func sha256MatchesFIPS180Examples() {
        #expect(Hex.string(Digest.sha256(Data("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.string(Digest.sha256(Data())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.string(Digest.sha256(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // One million "a": many blocks.
        #expect(Hex.string(Digest.sha256(Data(repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // The same bytes through each entry point: an array, and a string's UTF-8 (a small string and a longer one).
        #expect(Hex.string(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.string(Digest.sha256(utf8: "abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.string(Digest.sha256(utf8: "")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.sha256(utf8: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == Digest.sha256(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
    }

    @Test func hmacSHA256MatchesRFC4231() {
        // Test case 2: a short key.
        #expect(Hex.string(Digest.hmac(.sha256, key: Data("Jefe".utf8), message: Data("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 1: a 20-byte key of 0x0b.
        #expect(Hex.string(Digest.hmac(.sha256, key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Test case 6: a key longer than the block, hashed first.
        #expect(Hex.string(Digest.hmac(.sha256, key: [UInt8](repeating: 0xaa, count: 131),
                                       message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func hmacSHA1MatchesRFC2202() {
        #expect(Hex.string(Digest.hmac(.sha1, key: Data("Jefe".utf8), message: Data("what do ya want for nothing?".utf8)))
            == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(Hex.string(Digest.hmac(.sha1, key: [UInt8](repeating: 0x0c, count: 20), message: Array("Test With Truncation".utf8)))
            == "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04")
        // An empty key and message: still a whole code, not an error.
        #expect(Digest.hmac(.sha1, key: Data(), message: Data()) == Self.bytes("fbdb1d1b18aa6c08324b7d64b71fb76370690e1d"))
    }

    @Test func constantTimeEqualityComparesWholeValues() {
        let code = Digest.hmac(.sha256, key: Data("k".utf8), message: Data("m".utf8))
        #expect(Digest.constantTimeEquals(code, code))
        var lastByte = code
        lastByte[code.count - 1] ^= 1
        #expect(!Digest.constantTimeEquals(code, lastByte))
        #expect(!Digest.constantTimeEquals(code, Array(code.prefix(31))))
        #expect(Digest.constantTimeEquals([], []))
    }
}
