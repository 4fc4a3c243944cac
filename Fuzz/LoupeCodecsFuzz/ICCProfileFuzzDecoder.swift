import Foundation
import LoupeCodecs

/// The ICC path under the fuzzer: the input becomes the ICC profile of a small RGB JPEG, split
/// into APP2 "ICC_PROFILE" segments as encoders write it, so each run goes through libjpeg's
/// segment reassembly, lcms2's profile parser, the sRGB check and, when the profile parses as
/// RGB, building and applying the transform.
struct ICCProfileFuzzDecoder: ImageDecoding {
    /// An 8x8 baseline JPEG, encoded once (an array: LeakSanitizer cannot follow `Data`'s
    /// tagged storage pointer from a global and would report it at exit).
    private let carrier: [UInt8]

    init() {
        var pixels = [UInt8](repeating: 255, count: 8 * 8 * 4)
        for i in 0..<64 { pixels[i * 4] = UInt8(i * 4); pixels[i * 4 + 1] = UInt8(255 - i * 4) }
        // An 8x8 RGBA bitmap and JPEG encoding cannot fail; an empty carrier would only make
        // every run a quick "corrupt" error, which the fuzzer's coverage would show at once.
        carrier = (try? Bitmap(width: 8, height: 8, pixels: pixels)).flatMap { try? ImageEncoder().encode($0, as: .jpeg(quality: 90)) }
            .map { [UInt8]($0) } ?? []
    }

    func metadata(of data: Data) throws -> ImageMetadata {
        try JPEGDecoder().metadata(of: wrapped(data))
    }

    func decode(_ data: Data, options: DecodingOptions) throws -> DecodedImage {
        try JPEGDecoder().decode(wrapped(data), options: options)
    }

    /// The carrier with `profile` in APP2 segments right after its SOI marker.
    private func wrapped(_ profile: Data) -> Data {
        let chunkSize = 65_519  // 65,535 minus the length field, signature and sequence bytes
        let chunks = stride(from: 0, to: max(profile.count, 1), by: chunkSize).map { profile[profile.startIndex + $0 ..< profile.startIndex + min($0 + chunkSize, profile.count)] }
        var out = Data(carrier.prefix(2))
        for (index, chunk) in chunks.enumerated() where chunks.count < 256 {
            let length = 2 + 12 + 2 + chunk.count
            out += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += Data("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(chunks.count)]
            out += chunk
        }
        return out + carrier.dropFirst(2)
    }
}
