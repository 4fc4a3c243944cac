import Foundation
import Loupe
import LoupeCodecs

extension ImageService {
    /// Whether an SVG source's result is the source document itself (``svgResult(_:)``), as
    /// imgproxy decides: the URL names SVG, or names no format and `--always-rasterize-svg` is
    /// off. `Accept` plays no part; any other format named renders the document. thumbor's URLs
    /// never do: thumbor draws SVG sources (``check(_:now:)`` drops its `format(svg)`).
    func answersSVG(_ plan: Plan) -> Bool {
        guard plan.options.thumbor == nil else { return false }
        return plan.options.format == .svg || (plan.options.format == nil && !settings.alwaysRasterizesSVG)
    }

    /// The SVG answer: the source document, sanitised with `--sanitize-svg` (the default), once
    /// its header is within the pixel limits (a document declaring 100,000×100,000 is refused
    /// as any decompression bomb is, though it would not be drawn here); processing options do
    /// not apply, as in imgproxy. `nil` when the source is not SVG and the URL does not name
    /// SVG; when it does, a source of another format is a 422 (``notSVGSource(_:)``).
    func svgResult(_ plan: Plan) async throws -> EncodedResult? {
        let data = try await pipeline.data(for: plan.request).data
        let format = ImageFormat(sniffing: data)
        guard format == .svg else {
            guard plan.options.format == .svg else { return nil }
            guard let format else { throw ImagePipelineError.decodingFailed(ImageCodecError.unrecognizedFormat) }
            throw Self.notSVGSource(format)
        }
        _ = try checkedHeader(of: data)
        return EncodedResult(data: try sanitizedSVG(data), format: .svg)
    }

    /// `data` sanitised (`SVGSanitizer`) when the server sanitises SVG, else as it is; a
    /// document the sanitiser refuses is a corrupt source (422), as imgproxy's "Broken or
    /// unsupported SVG image".
    func sanitizedSVG(_ data: Data) throws -> Data {
        guard settings.sanitizesSVG else { return data }
        do {
            return try SVGSanitizer.sanitize(data)
        } catch {
            throw ImagePipelineError.decodingFailed(ImageCodecError.corrupt(.svg, message: String(describing: error)))
        }
    }

    /// A URL naming SVG for a source that is not: imgproxy's answer, 422, for a result it
    /// cannot save.
    static func notSVGSource(_ format: ImageFormat) -> ServiceError {
        ServiceError(422, "encodingFailed", "an SVG result is made only from an SVG source; this source is \(format)")
    }
}
