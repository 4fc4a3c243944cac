import Foundation
import Loupe
import LoupeCodecs

extension ImageService {
    /// `raw`, and `skip_processing` for a source of a listed format: the source's bytes as they
    /// are, under the limits a processed result has — the source must be allowed (checked when
    /// planning), no larger than `--max-source-size` (the loader stops beyond it) and an image
    /// whose header declares no more than `--max-source-pixels` (nor too many frames); no pixel
    /// is decoded. `nil` when `skip_processing` does not apply (another source format, or the
    /// URL asks for another output format): the result is then made as usual.
    ///
    /// imgproxy streams `raw` sources without looking at them; here they must be images, which
    /// is what keeps a decompression bomb from being handed on unchecked. Passthrough results
    /// are not kept in the result cache: they are the source's bytes, which the source cache
    /// already holds.
    func passthrough(_ plan: Plan) async throws -> EncodedResult? {
        let data = try await pipeline.data(for: plan.request).data
        let metadata: ImageMetadata
        do {
            metadata = try ImageDecoder().metadata(of: data)
            try checkDeclaredSize(metadata)
        } catch {
            throw ImagePipelineError.decodingFailed(error)
        }
        if !plan.options.raw {
            guard plan.options.skipProcessing.contains(metadata.format),
                  plan.options.format == nil || plan.options.format == metadata.format else { return nil }
        }
        return EncodedResult(data: data, format: metadata.format)
    }

    /// The pipeline's decoding limits, applied to a header alone.
    private func checkDeclaredSize(_ metadata: ImageMetadata) throws(ImageCodecError) {
        let limits = pipeline.configuration.decodingLimits
        guard metadata.width > 0, metadata.height > 0 else {
            throw .invalidDimensions(width: metadata.width, height: metadata.height)
        }
        // Both sides come from 32-bit header fields: the product cannot overflow.
        let pixels = metadata.width * metadata.height
        guard pixels <= limits.maxPixelCount else {
            throw .pixelLimitExceeded(width: metadata.width, height: metadata.height, limit: limits.maxPixelCount)
        }
        guard metadata.frameCount <= limits.maxFrameCount else {
            throw .frameLimitExceeded(frames: metadata.frameCount, limit: limits.maxFrameCount)
        }
        let (total, overflow) = pixels.multipliedReportingOverflow(by: max(1, metadata.frameCount))
        guard !overflow, total <= limits.maxTotalPixelCount else {
            throw .totalPixelLimitExceeded(frames: metadata.frameCount, pixelsPerFrame: pixels, limit: limits.maxTotalPixelCount)
        }
    }
}
