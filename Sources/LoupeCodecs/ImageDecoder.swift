import Foundation

/// The default `ImageDecoding`: sniffs the format from the bytes and hands them to the
/// matching decoder (JPEG, PNG, WebP, GIF, HEIF, AVIF, JPEG XL, TIFF, BMP, ICO, SVG).
public struct ImageDecoder: ImageDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try decoder(for: data).metadata(of: data)
    }

    public func decode(_ data: Data, options: DecodingOptions = DecodingOptions()) throws -> DecodedImage {
        try decoder(for: data).decode(data, options: options)
    }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try decoder(for: data).decode(data, options: options, afterHeader: afterHeader)
    }

    public func recognizes(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) != nil
    }

    private func decoder(for data: Data) throws -> any ImageDecoding {
        guard let format = ImageFormat(sniffing: data) else { throw ImageCodecError.unrecognizedFormat }
        return switch format {
        case .jpeg: JPEGDecoder()
        case .png: PNGDecoder()
        case .webp: WebPDecoder()
        case .gif: GIFDecoder()
        case .heif: HEIFDecoder()
        case .avif: AVIFDecoder()
        case .jxl: JXLDecoder()
        case .tiff: TIFFDecoder()
        case .bmp: BMPDecoder()
        case .ico: ICODecoder()
        case .svg: SVGDecoder()
        }
    }
}
