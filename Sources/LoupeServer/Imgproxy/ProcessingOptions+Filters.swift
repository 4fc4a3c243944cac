import LoupeCodecs
import LoupeProcessing

/// The filters' share of the result: the processors they add.
extension ProcessingOptions {
    /// imgproxy's filters in its order — blur, sharpen, pixelate — for the place they run:
    /// after the cut to the result box, before extend, padding and the background.
    var filters: [any ImageProcessing] {
        var filters: [any ImageProcessing] = []
        if blur > 0 { filters.append(ImageProcessors.GaussianBlur(sigma: blur)) }
        if sharpen > 0 { filters.append(ImageProcessors.Sharpen(sigma: sharpen)) }
        if pixelate > 1 { filters.append(ImageProcessors.Pixelate(size: pixelate)) }
        return filters
    }
}
