import Foundation
import LoupeCodecs

/// The SVG paths under the fuzzer: each input is drawn by ``SVGDecoder`` (its sniffing,
/// entity refusal, librsvg's parser and renderer) and sanitised by ``SVGSanitizer``, whose
/// output must be a fixed point: sanitising it again changes nothing, or the sanitiser kept
/// something it would remove (a crash the fuzzer reports).
struct SVGFuzzDecoder: ImageDecoding {
    func metadata(of data: Data) throws -> ImageMetadata {
        if let sanitized = try? SVGSanitizer.sanitize(data) {
            precondition((try? SVGSanitizer.sanitize(sanitized)) == sanitized, "sanitising a sanitised document changed it")
        }
        return try SVGDecoder().metadata(of: data)
    }

    func decode(_ data: Data, options: DecodingOptions) throws -> DecodedImage {
        try SVGDecoder().decode(data, options: options)
    }
}
