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

    /// Along the rows, then the columns; an index past an edge mirrors back onto it. Each
    /// output sums its taps in the kernel's order, as a plain loop over the taps would; the
    /// mirrored source of every tap is worked out once per row or column, and the loops run on
    /// buffers, because the suites run this unoptimised on images of a megapixel.
    static func correlate(_ values: [Double], width: Int, height: Int, kernel: [Double]) -> [Double] {
        let taps = kernel.count
        let sourceRows = mirroredSources(count: height, taps: taps), sourceColumns = mirroredSources(count: width, taps: taps)
        var rows = [Double](repeating: 0, count: values.count)
        var result = [Double](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { input in
            kernel.withUnsafeBufferPointer { weights in
                rows.withUnsafeMutableBufferPointer { rows in
                    for y in 0..<height {
                        let output = y * width
                        for tap in 0..<taps {
                            let weight = weights[tap], source = sourceRows[y * taps + tap] * width
                            for x in 0..<width { rows[output + x] += weight * input[source + x] }
                        }
                    }
                }
                rows.withUnsafeBufferPointer { rows in
                    result.withUnsafeMutableBufferPointer { result in
                        for y in 0..<height {
                            let row = y * width
                            for x in 0..<width {
                                var sum = 0.0
                                let first = x * taps
                                for tap in 0..<taps { sum += weights[tap] * rows[row + sourceColumns[first + tap]] }
                                result[row + x] = sum
                            }
                        }
                    }
                }
            }
        }
        return result
    }

    /// For each of `count` positions, the index each tap of a centred kernel reads, mirrored back
    /// at the edges (scipy's `reflect`: -1 reads 0, `count` reads `count - 1`).
    static func mirroredSources(count: Int, taps: Int) -> [Int] {
        let half = taps / 2
        var sources = [Int](repeating: 0, count: count * taps)
        for position in 0..<count {
            for tap in 0..<taps {
                var index = position + tap - half
                // Bounded: each turn brings the index into a window one period wide.
                for _ in 0..<4 where index < 0 || index >= count {
                    index = index < 0 ? -index - 1 : 2 * count - index - 1
                }
                sources[position * taps + tap] = min(max(index, 0), count - 1)
            }
        }
        return sources
    }
}
