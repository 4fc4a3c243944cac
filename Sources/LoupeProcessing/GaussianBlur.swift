import Foundation
import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// A Gaussian blur of standard deviation `sigma` pixels (imgproxy's `blur`), separable, on
    /// premultiplied pixels so transparent pixels do not darken their neighbours.
    public struct GaussianBlur: ImageProcessing {
        /// The largest sigma accepted: the kernel is about 6σ wide, so this bounds the work per
        /// pixel (a larger blur of a thumbnail is a flat colour anyway).
        public static let maximumSigma = 100.0

        /// The standard deviation in pixels; at most ``maximumSigma``.
        public let sigma: Double

        /// A blur of `sigma` pixels (checked when it runs: 0 < sigma ≤ ``maximumSigma``).
        public init(sigma: Double) {
            self.sigma = sigma
        }

        public var identifier: String { "loupe.blur(\(sigma))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            guard sigma > 0, sigma <= Self.maximumSigma else {
                throw .invalidParameter("blur sigma \(sigma) is outside (0, \(Self.maximumSigma)]")
            }
            let width = bitmap.width, height = bitmap.height
            let radius = max(1, Int((3 * sigma).rounded(.up)))
            var weights = (-radius...radius).map { offset -> Float in
                Float(exp(-Double(offset * offset) / (2 * sigma * sigma)))
            }
            let total = weights.reduce(0, +)
            weights = weights.map { $0 / total }

            // Checked once per row: a row costs thousands of multiplications, the check one load.
            let cancellation = WorkCancellation.current
            // Horizontal pass into premultiplied floats, then vertical pass into bytes; edges clamp.
            // Not zero-filled first: the pass writes every element, and filling hundreds of megabytes
            // would run before the first check.
            var horizontal = [SIMD4<Float>](unsafeUninitializedCapacity: width * height) { _, initialized in initialized = width * height }
            try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                var row = [SIMD4<Float>](repeating: .zero, count: width)
                for y in 0..<height {
                    try cancellation?.check(ProcessingError.cancelled)
                    let base = y * bitmap.bytesPerRow
                    for x in 0..<width {
                        let i = base + x * 4
                        let alpha = Float(source[i + 3])
                        row[x] = SIMD4(Float(source[i]) * alpha / 255, Float(source[i + 1]) * alpha / 255,
                                       Float(source[i + 2]) * alpha / 255, alpha)
                    }
                    for x in 0..<width {
                        var sum = SIMD4<Float>.zero
                        for k in 0..<weights.count {
                            sum += row[min(max(x + k - radius, 0), width - 1)] * weights[k]
                        }
                        horizontal[y * width + x] = sum
                    }
                }
            }
            return try Bitmap.make(width: width, height: height) { out throws(ProcessingError) in
                for y in 0..<height {
                    try cancellation?.check(ProcessingError.cancelled)
                    for x in 0..<width {
                        var sum = SIMD4<Float>.zero
                        for k in 0..<weights.count {
                            sum += horizontal[min(max(y + k - radius, 0), height - 1) * width + x] * weights[k]
                        }
                        let o = (y * width + x) * 4
                        let alpha = min(max(sum[3], 0), 255)
                        let unpremultiply: Float = alpha > 0 ? 255 / alpha : 0
                        out[o] = UInt8(min(max(sum[0] * unpremultiply, 0), 255).rounded())
                        out[o + 1] = UInt8(min(max(sum[1] * unpremultiply, 0), 255).rounded())
                        out[o + 2] = UInt8(min(max(sum[2] * unpremultiply, 0), 255).rounded())
                        out[o + 3] = UInt8(alpha.rounded())
                    }
                }
            }
        }
    }
}
