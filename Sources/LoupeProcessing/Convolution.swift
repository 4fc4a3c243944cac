import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `convolution(matrix,columns,normalize)`: each pixel the weighted sum of its
    /// neighbourhood under the matrix (rows of `columns` weights, both sides odd), edges extended
    /// by repeating the outermost pixels, each channel truncated and clamped as thumbor's; alpha
    /// too when the image has transparency (an opaque one stays opaque, as thumbor convolves an
    /// image without alpha in RGB); with `normalize`, the weights are divided by their sum when it is not 0.
    public struct Convolution: ImageProcessing {
        /// The largest matrix side: a bound on the work a URL can ask for per pixel.
        public static let maximumSide = 15

        /// The weights, row after row.
        public let weights: [Double]
        /// The matrix's width.
        public let columns: Int
        /// Whether the weights are divided by their sum.
        public let normalizes: Bool

        /// A convolution by `weights` in rows of `columns`; `nil` when they make no odd-sided matrix
        /// of at most ``maximumSide`` a side.
        public init?(weights: [Double], columns: Int, normalizes: Bool) {
            guard columns > 0, !weights.isEmpty, weights.count % columns == 0, columns % 2 == 1, (weights.count / columns) % 2 == 1,
                  columns <= Self.maximumSide, weights.count / columns <= Self.maximumSide, weights.allSatisfy(\.isFinite) else { return nil }
            self.weights = weights
            self.columns = columns
            self.normalizes = normalizes
        }

        public var identifier: String { "loupe.convolution(\(weights.map { "\($0)" }.joined(separator: ";")),\(columns),\(normalizes))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let sum = weights.reduce(0, +)
            let kernel = normalizes && sum != 0 ? weights.map { $0 / sum } : weights
            let rows = kernel.count / columns
            let width = bitmap.width, height = bitmap.height, stride = bitmap.bytesPerRow
            let midX = columns / 2, midY = rows / 2
            let channels = bitmap.hasTransparency ? 4 : 3
            let cancellation = WorkCancellation.current
            return try Bitmap.make(width: width, height: height) { out throws(ProcessingError) in
                try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                    for y in 0..<height {
                        // Every row: a row weighs up to 225 taps a pixel.
                        try cancellation?.check(ProcessingError.cancelled)
                        for x in 0..<width {
                            var total = SIMD4<Double>.zero
                            for ky in 0..<rows {
                                let sy = min(max(y + ky - midY, 0), height - 1)
                                for kx in 0..<columns {
                                    let sx = min(max(x + kx - midX, 0), width - 1)
                                    let i = sy * stride + sx * 4
                                    let pixel = SIMD4<Double>(Double(source[i]), Double(source[i + 1]), Double(source[i + 2]), Double(source[i + 3]))
                                    total += pixel * kernel[ky * columns + kx]
                                }
                            }
                            let o = (y * width + x) * 4
                            for channel in 0..<channels { out[o + channel] = PixelBands.clamp(total[channel]) }
                            if channels == 3 { out[o + 3] = 255 }
                        }
                    }
                }
            }
        }
    }
}
