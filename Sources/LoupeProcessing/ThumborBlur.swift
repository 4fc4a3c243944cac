import Foundation
import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `blur(radius, sigma)`: a Gaussian of `sigma` cut at `radius` pixels each side (so
    /// with thumbor's default sigma, the radius, only one sigma of the curve is kept), its weights
    /// divided by their sum, applied across and then down; edges extended by repeating the
    /// outermost pixels; each pass's channels truncated to whole values and clamped, as thumbor's
    /// C convolution stores them; alpha blurred as a channel of its own when the image has
    /// transparency (straight, not premultiplied, as thumbor), an opaque image staying opaque.
    public struct ThumborBlur: ImageProcessing {
        /// thumbor's largest radius: a larger one is cut to it, as thumbor does.
        public static let maximumRadius = 150

        /// Pixels each side of the centre the kernel reaches, 1 to ``maximumRadius``.
        public let radius: Int
        /// The Gaussian's standard deviation.
        public let sigma: Double

        /// thumbor's blur of `radius` (cut to ``maximumRadius``) and `sigma` (the radius when 0);
        /// `nil` for a radius below 1 or a sigma that is negative or not finite.
        public init?(radius: Int, sigma: Double = 0) {
            guard radius >= 1, sigma >= 0, sigma.isFinite else { return nil }
            self.radius = min(radius, Self.maximumRadius)
            self.sigma = sigma == 0 ? Double(radius) : sigma
        }

        public var identifier: String { "loupe.thumbor-blur(\(radius),\(sigma))" }

        /// The kernel's weights, centre at ``radius``, summing to 1.
        var weights: [Double] {
            let twoSigmaSquared = 2 * sigma * sigma
            // thumbor's weights before they are divided by their sum (the density's factor kept, so
            // that the sums, truncated to whole values, round as thumbor's do).
            let curve = (-radius...radius).map { offset in exp(-Double(offset * offset) / twoSigmaSquared) / (twoSigmaSquared * .pi).squareRoot() }
            let sum = curve.reduce(0, +)
            return curve.map { $0 / sum }
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            // The kernel and the channels are decided once, from the source, as thumbor picks the
            // image's mode once for both passes.
            let kernel = weights, channels = bitmap.hasTransparency ? 4 : 3
            let across = try pass(bitmap, kernel: kernel, channels: channels, horizontal: true)
            return try pass(across, kernel: kernel, channels: channels, horizontal: false)
        }

        /// One pass of `kernel` over `channels` of each pixel, along rows or along columns.
        private func pass(_ bitmap: Bitmap, kernel: [Double], channels: Int, horizontal: Bool) throws(ProcessingError) -> Bitmap {
            let width = bitmap.width, height = bitmap.height, stride = bitmap.bytesPerRow
            let cancellation = WorkCancellation.current
            return try Bitmap.make(width: width, height: height) { out throws(ProcessingError) in
                try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                    var storage = [Double](repeating: 0, count: width * 4)
                    try storage.withUnsafeMutableBufferPointer { sums throws(ProcessingError) in
                        for y in 0..<height {
                            try cancellation?.check(ProcessingError.cancelled)
                            sums.update(repeating: 0)
                            for tap in kernel.indices {
                                let weight = kernel[tap], offset = tap - radius
                                // The source pixel each output pixel of this row reads for this tap:
                                // along the row (edges repeated), or from the row `offset` away.
                                let sourceRow = horizontal ? y * stride : min(max(y + offset, 0), height - 1) * stride
                                for x in 0..<width {
                                    let from = sourceRow + (horizontal ? min(max(x + offset, 0), width - 1) : x) * 4, to = x * 4
                                    sums[to] += Double(source[from]) * weight
                                    sums[to + 1] += Double(source[from + 1]) * weight
                                    sums[to + 2] += Double(source[from + 2]) * weight
                                    if channels == 4 { sums[to + 3] += Double(source[from + 3]) * weight }
                                }
                            }
                            let row = y * width * 4
                            for x in 0..<width {
                                let at = row + x * 4, sum = x * 4
                                out[at] = PixelBands.clamp(sums[sum])
                                out[at + 1] = PixelBands.clamp(sums[sum + 1])
                                out[at + 2] = PixelBands.clamp(sums[sum + 2])
                                out[at + 3] = channels == 4 ? PixelBands.clamp(sums[sum + 3]) : 255
                            }
                        }
                    }
                }
            }
        }
    }
}
