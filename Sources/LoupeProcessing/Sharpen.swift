import Foundation
import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// Sharpening as imgproxy's `sharpen` does it (libvips' `vips_sharpen` with its defaults): an
    /// unsharp mask on CIE L* alone, so edges gain contrast without colour fringes.
    ///
    /// The difference between a pixel's lightness and its Gaussian-blurred lightness (in L* units)
    /// goes through libvips' default curve: differences under 2 (noise, smooth gradients) are left
    /// alone, larger ones are tripled beyond that threshold, and the added lightness is capped at
    /// +10 and −20. The blur's kernel follows `vips_gaussmat` as `vips_sharpen` asks for it: taps
    /// out to where the Gaussian falls under 0.2 of its peak, weights rounded to twentieths. Pixels
    /// whose lightness does not change are copied unchanged; alpha is kept. As imgproxy does for
    /// images with alpha, colours are premultiplied first (a transparent neighbour counts as black)
    /// and divided again after.
    public struct Sharpen: ImageProcessing {
        /// The largest sigma accepted (as ``GaussianBlur/maximumSigma``: it bounds the kernel).
        public static let maximumSigma = GaussianBlur.maximumSigma

        /// The standard deviation of the blur the mask subtracts, in pixels; 0 changes nothing.
        public let sigma: Double

        /// Sharpening with a mask of `sigma` pixels (checked when it runs: 0 ≤ sigma ≤ ``maximumSigma``).
        public init(sigma: Double) {
            self.sigma = sigma
        }

        public var identifier: String { "loupe.sharpen(\(sigma))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            guard sigma >= 0, sigma <= Self.maximumSigma else {
                throw .invalidParameter("sharpen sigma \(sigma) is outside [0, \(Self.maximumSigma)]")
            }
            guard sigma > 0 else { return bitmap }
            let width = bitmap.width, height = bitmap.height, stride = bitmap.bytesPerRow
            let weights = Self.kernel(sigma: sigma)
            let radius = weights.count / 2

            // Checked once per row of each pass (a row costs thousands of operations, the check one load).
            let cancellation = WorkCancellation.current
            // Not zero-filled first: each pass writes every element, and filling hundreds of megabytes
            // would run before the first check.
            var lab = [SIMD4<Float>](unsafeUninitializedCapacity: width * height) { _, initialized in initialized = width * height }
            try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                for y in 0..<height {
                    try cancellation?.check(ProcessingError.cancelled)
                    for x in 0..<width {
                        let i = y * stride + x * 4
                        let alpha = source[i + 3]
                        lab[y * width + x] = alpha == 255
                            ? Self.lab(source[i], source[i + 1], source[i + 2])
                            : Self.lab(Self.premultiplied(source[i], alpha), Self.premultiplied(source[i + 1], alpha),
                                       Self.premultiplied(source[i + 2], alpha))
                    }
                }
            }
            // The blurred lightness: a horizontal pass, then a vertical one; edges repeat.
            var horizontal = [Float](unsafeUninitializedCapacity: width * height) { _, initialized in initialized = width * height }
            for y in 0..<height {
                try cancellation?.check(ProcessingError.cancelled)
                let row = y * width
                for x in 0..<width {
                    var sum: Float = 0
                    for k in 0..<weights.count {
                        sum += lab[row + min(max(x + k - radius, 0), width - 1)].x * weights[k]
                    }
                    horizontal[row + x] = sum
                }
            }
            return try Bitmap.make(width: width, height: height) { out throws(ProcessingError) in
                try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                    for y in 0..<height {
                        try cancellation?.check(ProcessingError.cancelled)
                        for x in 0..<width {
                            var blurred: Float = 0
                            for k in 0..<weights.count {
                                blurred += horizontal[min(max(y + k - radius, 0), height - 1) * width + x] * weights[k]
                            }
                            let i = y * stride + x * 4, o = (y * width + x) * 4
                            let pixel = lab[y * width + x]
                            let added = Self.curve(pixel.x - blurred)
                            if added == 0 {
                                out[o] = source[i]
                                out[o + 1] = source[i + 1]
                                out[o + 2] = source[i + 2]
                            } else {
                                let rgb = Self.rgb(lightness: min(max(pixel.x + added, 0), 100), a: pixel.y, b: pixel.z)
                                let alpha = source[i + 3]
                                out[o] = Self.unpremultiplied(rgb.0, alpha)
                                out[o + 1] = Self.unpremultiplied(rgb.1, alpha)
                                out[o + 2] = Self.unpremultiplied(rgb.2, alpha)
                            }
                            out[o + 3] = source[i + 3]
                        }
                    }
                }
            }
        }

        /// A channel multiplied by alpha, as libvips' premultiply and cast back to 8 bits do.
        static func premultiplied(_ value: UInt8, _ alpha: UInt8) -> UInt8 {
            UInt8((Int(value) * Int(alpha) + 127) / 255)
        }

        /// A premultiplied channel divided by alpha again (0 where alpha is 0), at most 255.
        static func unpremultiplied(_ value: UInt8, _ alpha: UInt8) -> UInt8 {
            guard alpha < 255 else { return value }
            guard alpha > 0 else { return 0 }
            return UInt8(min(255, (Int(value) * 255 + Int(alpha) / 2) / Int(alpha)))
        }

        /// The lightness libvips adds for a difference `d` between a pixel and its blur (L* units),
        /// with `vips_sharpen`'s defaults x1 = 2, m1 = 0, m2 = 3, y2 = 10, y3 = 20.
        static func curve(_ d: Float) -> Float {
            let threshold: Float = 2, flat: Float = 0, steep: Float = 3
            let y: Float
            if d < -threshold {
                y = (d + threshold) * steep - threshold * flat
            } else if d < threshold {
                y = d * flat
            } else {
                y = (d - threshold) * steep + threshold * flat
            }
            return min(max(y, -20), 10)
        }

        /// `vips_gaussmat`'s integer mask as `vips_sharpen` requests it (minimum amplitude 0.2),
        /// normalised to sum 1.
        static func kernel(sigma: Double) -> [Float] {
            let twoSigmaSquared = 2 * sigma * sigma
            var reach = 0
            while Double(reach) < 8 * sigma, exp(-Double(reach * reach) / twoSigmaSquared) >= 0.2 {
                reach += 1
            }
            let taps = (-reach...reach).map { x in (20 * exp(-Double(x * x) / twoSigmaSquared)).rounded() }
            let total = taps.reduce(0, +)
            return taps.map { Float($0 / total) }
        }

        // MARK: - sRGB ↔ CIE L*a*b* (D65)

        private static let linear: [Float] = (0..<256).map { value in
            let c = Float(value) / 255
            return c <= 0.04045 ? c / 12.92 : powf((c + 0.055) / 1.055, 2.4)
        }

        private static let white = SIMD3<Float>(0.95047, 1, 1.08883)

        static func lab(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> SIMD4<Float> {
            let lr = linear[Int(r)], lg = linear[Int(g)], lb = linear[Int(b)]
            let xyz = SIMD3<Float>(0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb,
                                   0.2126729 * lr + 0.7151522 * lg + 0.0721750 * lb,
                                   0.0193339 * lr + 0.1191920 * lg + 0.9503041 * lb) / white
            func f(_ t: Float) -> Float { t > 216 / 24389 ? cbrtf(t) : (24389 / 27 * t + 16) / 116 }
            let fx = f(xyz.x), fy = f(xyz.y), fz = f(xyz.z)
            return SIMD4(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz), 0)
        }

        static func rgb(lightness: Float, a: Float, b: Float) -> (UInt8, UInt8, UInt8) {
            let fy = (lightness + 16) / 116, fx = fy + a / 500, fz = fy - b / 200
            func inverse(_ f: Float) -> Float { f > 6 / 29 ? f * f * f : (116 * f - 16) * 27 / 24389 }
            let x = inverse(fx) * white.x, y = inverse(fy) * white.y, z = inverse(fz) * white.z
            func encode(_ value: Float) -> UInt8 {
                let c = min(max(value, 0), 1)
                let v = c <= 0.0031308 ? c * 12.92 : 1.055 * powf(c, 1 / 2.4) - 0.055
                return UInt8((v * 255).rounded())
            }
            return (encode(3.2404542 * x - 1.5371385 * y - 0.4985314 * z),
                    encode(-0.9692660 * x + 1.8760108 * y + 0.0415560 * z),
                    encode(0.0556434 * x - 0.2040259 * y + 1.0572252 * z))
        }
    }
}
