import LoupeCodecs
import LoupeProcessing

/// The filters and output options' share of the result: the processors they add and their
/// part of the result key.
extension ProcessingOptions {
    /// imgproxy's filters in its order — blur, sharpen, pixelate — for the place they run:
    /// after the cut to the result box, before extend, padding and the background.
    var filters: [any ImageProcessing] {
        var filters: [any ImageProcessing] = []
        if blur > 0 { filters.append(GaussianBlur(sigma: blur)) }
        if sharpen > 0 { filters.append(Sharpen(sigma: sharpen)) }
        if pixelate > 1 { filters.append(Pixelate(size: pixelate)) }
        return filters
    }

    /// The result key's part for the filters and output options: only what changes the result's bytes
    /// (`filename` and `return_attachment` change headers only), empty when none is set so
    /// that keys of URLs without them stay as they were.
    var outputKey: String {
        var key = ""
        if sharpen > 0 { key += ";sh=\(sharpen)" }
        if pixelate > 1 { key += ";pix=\(pixelate)" }
        if !formatQuality.isEmpty {
            key += ";fq=" + formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ",")
        }
        if maxBytes > 0 { key += ";mb=\(maxBytes)" }
        // Only animations differ; 1 (first frame, every still image) keeps the keys it had.
        if let frames = maxAnimationFrames, frames > 1 { key += ";maf=\(frames)" }
        if raw { key += ";raw" }
        if !skipProcessing.isEmpty { key += ";skp=" + skipProcessing.map(\.rawValue).sorted().joined(separator: ",") }
        return key
    }
}
