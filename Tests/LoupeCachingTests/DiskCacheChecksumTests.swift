import Testing
@testable import LoupeCaching

/// The checksum must be real XXH64: reference digests from the `xxhash` Python package 3.x.
@Test(arguments: [
    ("", UInt64(0), UInt64(0xEF46_DB37_51D8_E999)),
    ("abc", 0, 0x44BC_2CF5_AD77_0999),
    ("0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEF!", 0, 0xD1C6_6E6A_2AAF_5864),
    ("", 0x1234, 0x6E01_C031_7D5C_53D0),
    ("abc", 0x1234, 0xFC77_5F09_1949_E650),
    ("0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEF!", 0x1234, 0x78B5_805E_AAB2_E2FF),
])
func checksumMatchesXXH64(input: String, seed: UInt64, expected: UInt64) {
    #expect(DiskCacheChecksum.hash(Array(input.utf8), seed: seed) == expected)
}
