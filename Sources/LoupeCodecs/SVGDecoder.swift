import CLoupeCodecs
import Foundation
import LoupeCaching

/// Renders SVG with librsvg (loaded on first use, like libtiff): its size is the document's
/// width and height in pixels at 96 DPI (imgproxy 4's), else its viewBox's, rounded up, and is
/// checked against the limits before a pixel is allocated, so a small document declaring
/// 100,000×100,000 is refused at the cost of parsing it. A vector image has no stored pixels to
/// shrink, so it is drawn straight at the size the caller needs: the larger of what
/// `maxPixelSize` and `minimumScale` ask (never above its own size), which the pipeline maps
/// its geometry onto as it does for JPEG's smaller decodes.
///
/// Nothing outside the document is read (librsvg has no base to resolve references against
/// and loads only `data:` URLs), a DOCTYPE that declares entities is refused before librsvg
/// parses it (``SVGSanitizationError/entityDeclarations``, as a corrupt source), and librsvg's
/// limits on elements and references stay on. A render cannot be interrupted (librsvg before
/// 2.59 has no cancellable render): a cancelled work stops before it starts, and its cost is
/// bounded by those limits and by the pixels drawn, which are at most the result's.
public struct SVGDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try withDocument(data) { _, metadata, _ in metadata }
    }

    public var format: ImageFormat { .svg }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try withDocument(data) { svg, metadata, size -> DecodedImage in
            let options = try options.decided(for: metadata, by: afterHeader)
            if WorkCancellation.isCurrentCancelled { throw ImageCodecError.cancelled }
            let scale = Self.renderScale(width: size.width, height: size.height, options: options)
            let viewport = (width: size.width * scale, height: size.height * scale)
            let width = Self.pixels(viewport.width), height = Self.pixels(viewport.height)
            var message = CMessage()
            let bitmap = try Bitmap(width: width, height: height) { out, stride in
                let status = message.withPointer { text in
                    lc_svg_render(svg, out.baseAddress?.assumingMemoryBound(to: UInt8.self), stride, UInt32(width), UInt32(height),
                                  viewport.width, viewport.height, text)
                }
                guard status == LC_OK else { throw ImageCodecError.corrupt(.svg, message: message.text) }
            }
            return DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap))
        }
    }

    /// The share of its intrinsic size a document is drawn at: the larger of what the options
    /// need (a `maxPixelSize` for the longest side, a `minimumScale`), at most 1.
    static func renderScale(width: Double, height: Double, options: DecodingOptions) -> Double {
        var needs: [Double] = []
        if let target = options.maxPixelSize, target > 0 { needs.append(min(1, Double(target) / max(width, height))) }
        if let minimum = options.minimumScale { needs.append(minimum > 0 && minimum < 1 ? minimum : 1) }
        return needs.max() ?? 1
    }

    /// Whole pixels for a length, rounded up (a part-covered pixel is drawn), at least 1 and
    /// within 32 bits, so a huge declared size reaches the limits check as a number.
    static func pixels(_ length: Double) -> Int {
        guard length.isFinite else { return Int(Int32.max) }
        // A hair under a whole number is that number: 100 × 0.37 is not 37.000000000000004.
        return max(1, Int(min((length - 1e-7).rounded(.up), Double(Int32.max))))
    }

    private func withDocument<T>(_ data: Data, _ body: (OpaquePointer, ImageMetadata, (width: Double, height: Double)) throws -> T) throws -> T {
        guard !data.isEmpty else { throw ImageCodecError.corrupt(.svg, message: "empty data") }
        do {
            try SVGMarkup.refuseEntityDeclarations([UInt8](data))
        } catch {
            throw ImageCodecError.corrupt(.svg, message: String(describing: error))
        }
        try CodecLibrary.require(.svg)
        var info = lc_svg_info()
        var message = CMessage()
        let created = data.withUnsafeBytes { raw in
            message.withPointer { lc_svg_create(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &info, $0) }
        }
        guard let svg = created else { throw ImageCodecError.corrupt(.svg, message: message.text) }
        defer { lc_svg_destroy(svg) }
        let metadata = ImageMetadata(format: .svg, width: Self.pixels(info.width), height: Self.pixels(info.height))
        return try body(svg, metadata, (info.width, info.height))
    }
}
