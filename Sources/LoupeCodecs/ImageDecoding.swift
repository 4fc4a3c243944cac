import Foundation

/// The seam between the pipeline and the codecs: turn encoded bytes into pixels. The pipeline
/// holds an `any ImageDecoding` so it can swap decoders (tests, other formats).
public protocol ImageDecoding: Sendable {
    /// Reads the header only: format, size, orientation, frame count. Allocates no pixels.
    func metadata(of data: Data) throws -> ImageMetadata
    /// Decodes `data` according to `options`. Throws `ImageCodecError`.
    func decode(_ data: Data, options: DecodingOptions) throws -> DecodedImage
    /// Decodes `data`, reading its header once: after the header is read and checked against
    /// `options.limits`, and before any pixel is allocated, `afterHeader` sees the header and
    /// may change the options the decode goes on with (its scale, say), or throw to stop it.
    /// A caller that needs the header to decide (a scale from the source's size, memory
    /// reserved for the pixels) decides here instead of reading the header a second time.
    ///
    /// The default reads the header with ``metadata(of:)`` and then decodes; Loupe's decoders
    /// read it once.
    func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage
    /// Whether `data` starts like an image this decoder reads (its signature), without reading
    /// its header: the pipeline refuses a download that does not before storing it. The default
    /// reads the header (``metadata(of:)``); Loupe's decoders only sniff the first bytes.
    func recognizes(_ data: Data) -> Bool
}

/// What a caller decides from an image's header, between reading it and decoding
/// (``ImageDecoding/decode(_:options:afterHeader:)``): it may change the options, or throw to
/// stop the decode before any pixel is allocated.
public typealias HeaderDecision = (ImageMetadata, inout DecodingOptions) throws -> Void

extension ImageDecoding {
    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        var decided = options
        try afterHeader(try metadata(of: data), &decided)
        return try decode(data, options: decided)
    }

    public func recognizes(_ data: Data) -> Bool {
        (try? metadata(of: data)) != nil
    }
}

/// A decoder of one format that reads an image's header once, in its own
/// ``ImageDecoding/decode(_:options:afterHeader:)``. Its plain decode is that one with no
/// decision, and it recognizes data by the format's signature alone
/// (``ImageFormat/init(sniffing:)``), so a decoder states only what differs: its format, its
/// header reader and its decode.
public protocol SingleFormatDecoding: ImageDecoding {
    /// The format this decoder reads; ``ImageDecoding/recognizes(_:)`` sniffs for it.
    var format: ImageFormat { get }
}

extension SingleFormatDecoding {
    public func decode(_ data: Data, options: DecodingOptions) throws -> DecodedImage {
        try decode(data, options: options) { _, _ in }
    }

    public func recognizes(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) == format
    }
}

extension DecodingOptions {
    /// The options a decoder goes on with once it has read `metadata`: the size limits checked
    /// (before the caller's decision sees a header they refuse), then `afterHeader`'s changes.
    func decided(for metadata: ImageMetadata, by afterHeader: HeaderDecision) throws -> DecodingOptions {
        try limits.checkSize(metadata)
        var decided = self
        try afterHeader(metadata, &decided)
        return decided
    }
}
