import Foundation
import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `sharpen(amount,radius,luminance_only)`: wavelet sharpening. Each channel (or, with
    /// `luminanceOnly`, the luma of JPEG's YCbCr, chroma kept) is split into five levels of detail
    /// by an à trous "hat" low-pass (weights ¼ ½ ¼ at a spacing that doubles each level, edges
    /// mirrored); each level's detail is multiplied by `amount · e^(−(level − radius)² / 1.5) + 1`
    /// and the levels are added back onto the coarsest, in single precision, then truncated and
    /// clamped as thumbor's. Alpha is kept.
    public struct WaveletSharpen: ImageProcessing {
        /// The levels of detail.
        static let levels = 5

        /// The strength, the level it peaks at, and whether only the luma is sharpened.
        public let settings: (amount: Double, radius: Double, luminanceOnly: Bool)

        /// Sharpening by `amount` around level `radius`.
        public init(amount: Double, radius: Double, luminanceOnly: Bool) {
            settings = (amount, radius, luminanceOnly)
        }

        public var identifier: String { "loupe.wavelet-sharpen(\(settings.amount),\(settings.radius),\(settings.luminanceOnly))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let width = bitmap.width, height = bitmap.height, count = width * height
            guard count > 0 else { return bitmap }
            let cancellation = WorkCancellation.current
            var channels = [[Float]](repeating: [Float](repeating: 0, count: count), count: 3)
            for y in 0..<height {
                for x in 0..<width {
                    let o = y * bitmap.bytesPerRow + x * 4, i = y * width + x
                    var pixel = (Float(bitmap.pixels[o]), Float(bitmap.pixels[o + 1]), Float(bitmap.pixels[o + 2]))
                    if settings.luminanceOnly { pixel = Self.toYCbCr(pixel) }
                    (channels[0][i], channels[1][i], channels[2][i]) = (pixel.0 / 255, pixel.1 / 255, pixel.2 / 255)
                }
            }
            for channel in 0..<(settings.luminanceOnly ? 1 : 3) {
                try cancellation?.check(ProcessingError.cancelled)
                channels[channel] = try sharpened(channels[channel], width: width, height: height, cancellation: cancellation)
            }
            return try Bitmap.make(width: width, height: height) { out in
                for y in 0..<height {
                    for x in 0..<width {
                        let i = y * width + x, o = y * bitmap.bytesPerRow + x * 4
                        var pixel = (channels[0][i] * 255, channels[1][i] * 255, channels[2][i] * 255)
                        if settings.luminanceOnly { pixel = Self.toRGB(pixel) }
                        out[i * 4] = Self.channel(pixel.0)
                        out[i * 4 + 1] = Self.channel(pixel.1)
                        out[i * 4 + 2] = Self.channel(pixel.2)
                        out[i * 4 + 3] = bitmap.pixels[o + 3]
                    }
                }
            }
        }

        /// One channel through the five levels.
        func sharpened(_ image: [Float], width: Int, height: Int, cancellation: WorkCancellation?) throws(ProcessingError) -> [Float] {
            var result = [Float](repeating: 0, count: image.count)
            var finer = image
            var line = [Float](repeating: 0, count: max(width, height))
            for level in 0..<Self.levels {
                let spacing = 1 << level
                var coarser = finer
                for row in 0..<height {
                    if row % PixelBands.rows == 0 { try cancellation?.check(ProcessingError.cancelled) }
                    Self.hat(&coarser, start: row * width, stride: 1, count: width, spacing: spacing, line: &line)
                }
                for column in 0..<width {
                    if column % PixelBands.rows == 0 { try cancellation?.check(ProcessingError.cancelled) }
                    Self.hat(&coarser, start: column, stride: width, count: height, spacing: spacing, line: &line)
                }
                let difference = Double(level) - settings.radius
                let gain = Float(settings.amount * exp(-difference * difference / 1.5) + 1)
                for i in 0..<result.count { result[i] += (finer[i] - coarser[i]) * gain }
                finer = coarser
            }
            for i in 0..<result.count { result[i] += finer[i] }
            return result
        }

        /// The low-pass along one line of `values` (every `stride`th from `start`, `count` long), in
        /// place: ¼ of each neighbour `spacing` away, ½ of the value, the line mirrored at its ends.
        static func hat(_ values: inout [Float], start: Int, stride: Int, count: Int, spacing: Int, line: inout [Float]) {
            func at(_ index: Int) -> Float {
                var index = index
                // Mirrored about the end values; a spacing past the line's length folds again.
                for _ in 0..<8 where index < 0 || index >= count {
                    index = index < 0 ? -index : 2 * count - 2 - index
                }
                return values[start + min(max(index, 0), count - 1) * stride]
            }
            for i in 0..<count { line[i] = (2 * at(i) + at(i - spacing) + at(i + spacing)) * 0.25 }
            for i in 0..<count { values[start + i * stride] = line[i] }
        }

        /// A channel value: C's float-to-byte conversion after thumbor's clamp.
        static func channel(_ value: Float) -> UInt8 { value.isFinite ? UInt8(min(max(value, 0), 255)) : 0 }

        static func toYCbCr(_ p: (Float, Float, Float)) -> (Float, Float, Float) {
            (0.2990 * p.0 + 0.5870 * p.1 + 0.1140 * p.2,
             -0.1687 * p.0 - 0.3313 * p.1 + 0.5000 * p.2 + 128,
             0.5000 * p.0 - 0.4187 * p.1 - 0.0813 * p.2 + 128)
        }

        static func toRGB(_ p: (Float, Float, Float)) -> (Float, Float, Float) {
            (p.0 + 1.40200 * (p.2 - 128), p.0 - 0.34414 * (p.1 - 128) - 0.71414 * (p.2 - 128), p.0 + 1.77200 * (p.1 - 128))
        }
    }
}
