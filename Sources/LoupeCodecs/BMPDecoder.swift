import Foundation

/// Decodes BMP in Swift: 1, 2, 4, 8 bits with a palette, 16 and 32 bits (5-5-5 or any bit
/// masks, alpha when the masks give one), 24 bits, RLE8 and RLE4, bottom-up or top-down, every
/// header version from OS/2's core header to V5. Its own small reader rather than a library:
/// the format is a header and rows, Debian ships no BMP library apart from toolkits (gdk-pixbuf,
/// ImageMagick) that would bring far more than they read, and Swift's bounds checks keep
/// a hostile file from reading outside its bytes. Embedded JPEG or PNG (compression 4 and 5)
/// and OS/2 Huffman files are refused as corrupt.
public struct BMPDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in
            let header = try BMPHeader(raw, at: 0, fileHeader: true, format: .bmp)
            return ImageMetadata(format: .bmp, width: header.width, height: header.height)
        }
    }

    public var format: ImageFormat { .bmp }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            let header = try BMPHeader(raw, at: 0, fileHeader: true, format: .bmp)
            let metadata = ImageMetadata(format: .bmp, width: header.width, height: header.height)
            _ = try options.decided(for: metadata, by: afterHeader)
            let bitmap = try BMPPixels.decode(header, raw, format: .bmp)
            return DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap))
        }
    }
}
