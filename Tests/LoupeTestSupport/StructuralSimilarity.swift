import Foundation
import LoupeCodecs

/// The structural similarity index (SSIM) of two images as thumbor's tests measure it (the
/// `pyssim` package): each image in PIL's grayscale (ITU-R 601 luma, PIL's fixed-point weights),
/// an 11-tap Gaussian window of σ 1.5 whose centres run from -5.5 to 4.5 (pyssim's kernel),
/// correlated along each axis with mirrored edges (scipy's `reflect`), K1 0.01, K2 0.03, L 255,
/// and the mean of the SSIM map. Where an image has alpha, its fully opaque pixels count as
/// black, as pyssim counts them.
package enum StructuralSimilarity {
    /// What PIL's `convert(mode)` keeps of an image, before the grayscale: `RGB` drops alpha,
    /// `RGBA` and `LA` keep it.
    package enum Mode: String, Sendable {
        case rgb = "RGB", rgba = "RGBA", la = "LA"

        var keepsAlpha: Bool { self != .rgb }
    }

    /// The SSIM of `first` and `second` (of one size), each as `mode` makes it; `nil` when the
    /// sizes differ.
    package static func index(_ first: Bitmap, _ second: Bitmap, mode: Mode) -> Double? {
        guard first.width == second.width, first.height == second.height, first.width > 0, first.height > 0 else { return nil }
        let width = first.width, height = first.height
        let a = gray(first, mode: mode), b = gray(second, mode: mode)
        let kernel = Self.kernel
        let muA = correlate(a, width: width, height: height, kernel: kernel)
        let muB = correlate(b, width: width, height: height, kernel: kernel)
        let sigmaA = correlate(a.map { $0 * $0 }, width: width, height: height, kernel: kernel)
        let sigmaB = correlate(b.map { $0 * $0 }, width: width, height: height, kernel: kernel)
        let sigmaAB = correlate(zip(a, b).map { $0 * $1 }, width: width, height: height, kernel: kernel)
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        var sum = 0.0
        for index in 0..<a.count {
            let meanA = muA[index], meanB = muB[index]
            let varianceA = sigmaA[index] - meanA * meanA, varianceB = sigmaB[index] - meanB * meanB
            let covariance = sigmaAB[index] - meanA * meanB
            sum += ((2 * meanA * meanB + c1) * (2 * covariance + c2)) / ((meanA * meanA + meanB * meanB + c1) * (varianceA + varianceB + c2))
        }
        return sum / Double(a.count)
    }

    static let kernel: [Double] = {
        let weights = (0..<11).map { index in
            let offset = Double(index) - 5.5
            return Foundation.exp(-0.5 * offset * offset / (1.5 * 1.5))
        }
        let total = weights.reduce(0, +)
        return weights.map { $0 / total }
    }()

    static func gray(_ bitmap: Bitmap, mode: Mode) -> [Double] {
        var values = [Double](repeating: 0, count: bitmap.width * bitmap.height)
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let o = y * bitmap.bytesPerRow + x * 4
                let r = Int(bitmap.pixels[o]), g = Int(bitmap.pixels[o + 1]), b = Int(bitmap.pixels[o + 2])
                let opaque = bitmap.pixels[o + 3] == 255
                values[y * bitmap.width + x] = mode.keepsAlpha && opaque ? 0 : Double((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16)
            }
        }
        return values
    }

    /// Along the rows, then the columns; an index past an edge mirrors back onto it.
    static func correlate(_ values: [Double], width: Int, height: Int, kernel: [Double]) -> [Double] {
        let half = kernel.count / 2
        func mirrored(_ index: Int, _ count: Int) -> Int {
            var index = index
            // Bounded: each turn brings the index into a window one period wide.
            for _ in 0..<4 where index < 0 || index >= count {
                index = index < 0 ? -index - 1 : 2 * count - index - 1
            }
            return min(max(index, 0), count - 1)
        }
        var rows = [Double](repeating: 0, count: values.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0.0
                for (tap, weight) in kernel.enumerated() { sum += weight * values[mirrored(y + tap - half, height) * width + x] }
                rows[y * width + x] = sum
            }
        }
        var result = [Double](repeating: 0, count: values.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0.0
                for (tap, weight) in kernel.enumerated() { sum += weight * rows[y * width + mirrored(x + tap - half, width)] }
                result[y * width + x] = sum
            }
        }
        return result
    }
}
