import Foundation
import Loupe
import LoupeCodecs

extension ImageService {
    /// `raw`, and `skip_processing` for a source of a listed format: the source's bytes as they
    /// are, under the limits a processed result has — the source must be allowed (checked when
    /// planning), no larger than `--max-source-size` (the loader stops beyond it) and an image
    /// whose header declares no more than `--max-source-pixels` (nor too many frames); no pixel
    /// is decoded. `nil` when `skip_processing` does not apply (another source format, or the
    /// URL asks for another output format): the result is then made as usual. An SVG source
    /// skipped by `skip_processing` is sanitised (``sanitizedSVG(_:)``), as imgproxy does; `raw`
    /// answers its bytes.
    ///
    /// imgproxy streams `raw` sources without looking at them; here they must be images, which
    /// is what keeps a decompression bomb from being handed on unchecked. Passthrough results
    /// are not kept in the result cache: they are the source's bytes, which the source cache
    /// already holds.
    func passthrough(_ plan: Plan) async throws -> EncodedResult? {
        let data = try await pipeline.data(for: plan.request).data
        let metadata = try checkedHeader(of: data)
        if !plan.options.raw {
            guard plan.options.skipProcessing.contains(metadata.format),
                  plan.options.format == nil || plan.options.format == metadata.format else { return nil }
            if metadata.format == .svg { return EncodedResult(data: try sanitizedSVG(data), format: .svg) }
        }
        return EncodedResult(data: data, format: metadata.format)
    }

    /// The source's header, within the pixel and frame limits: what a source answered without
    /// decoding must pass.
    func checkedHeader(of data: Data) throws -> ImageMetadata {
        do {
            let metadata = try pipeline.configuration.decoder.metadata(of: data)
            try pipeline.configuration.decodingLimits.check(metadata)
            return metadata
        } catch {
            throw ImagePipelineError.decodingFailed(error)
        }
    }
}
