import Foundation

/// The seam between the pipeline and the codecs: turn encoded bytes into pixels. The pipeline
/// holds an `any ImageDecoding` so it can swap decoders (tests, other formats).
public protocol ImageDecoding: Sendable {
    /// Reads the header only: format, size, orientation, frame count. Allocates no pixels.
    func metadata(of data: Data) throws -> ImageMetadata
    /// Decodes `data` according to `options`. Throws `ImageCodecError`.
    func decode(_ data: Data, options: DecodingOptions) throws -> DecodedImage
}
