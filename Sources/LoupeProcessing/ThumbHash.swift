import LoupeCodecs

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ThumbHash (Evan Wallace's placeholder format): about 25 bytes holding a blurred image,
/// its aspect ratio and its alpha, more faithful than BlurHash at a similar size.
///
/// Implemented from the format's description (average colour, alpha-weighted LPQA channels,
/// cosine coefficients quantized to 4 bits) with the reference encoder's arithmetic and its
/// rounding (`Math.round`: halves round up), so for the same pixels the bytes equal the
/// reference's. The tests compare against the PyPI port `thumbhash-python`, which rounds
/// halves to even; exact halves do not occur in real images.
public enum ThumbHash {
    /// The largest side the format encodes.
    public static let maxSide = 100

    /// The hash of `bitmap`. A bitmap larger than 100×100 is first scaled to fit that box
    /// (`ImageProcessors.Resize`, Lanczos-3), as the reference expects callers to do.
    public static func encode(_ bitmap: Bitmap) throws(ProcessingError) -> [UInt8] {
        let image = bitmap.width > maxSide || bitmap.height > maxSide
            ? try ImageProcessors.Resize(width: maxSide, height: maxSide).process(bitmap) : bitmap
        return encodeSmall(image)
    }

    /// JavaScript's `Math.round`.
    private static func round(_ x: Double) -> Int { Int((x + 0.5).rounded(.down)) }

    private static func encodeSmall(_ bitmap: Bitmap) -> [UInt8] {
        let w = bitmap.width, h = bitmap.height, count = w * h
        var rgba = [Double](repeating: 0, count: count * 4)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<4 { rgba[(y * w + x) * 4 + c] = Double(pixels[y * bitmap.bytesPerRow + x * 4 + c]) }
                }
            }
        }

        // Average colour, weighted by alpha.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<count {
            let alpha = rgba[i * 4 + 3] / 255
            avgR += alpha / 255 * rgba[i * 4]
            avgG += alpha / 255 * rgba[i * 4 + 1]
            avgB += alpha / 255 * rgba[i * 4 + 2]
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }

        let hasAlpha = avgA < Double(count)
        let limit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, round(limit * Double(w) / longest))
        let ly = max(1, round(limit * Double(h) / longest))

        // Composite over the average colour, then luminance, two chroma axes and alpha.
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for i in 0..<count {
            let alpha = rgba[i * 4 + 3] / 255
            let r = avgR * (1 - alpha) + alpha / 255 * rgba[i * 4]
            let g = avgG * (1 - alpha) + alpha / 255 * rgba[i * 4 + 1]
            let b = avgB * (1 - alpha) + alpha / 255 * rgba[i * 4 + 2]
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        let (lDC, lAC, lScale) = encodeChannel(l, w: w, h: h, nx: max(3, lx), ny: max(3, ly))
        let (pDC, pAC, pScale) = encodeChannel(p, w: w, h: h, nx: 3, ny: 3)
        let (qDC, qAC, qScale) = encodeChannel(q, w: w, h: h, nx: 3, ny: 3)
        let (aDC, aAC, aScale) = hasAlpha ? encodeChannel(a, w: w, h: h, nx: 5, ny: 5) : (1.0, [], 1.0)

        let isLandscape = w > h
        let header24 = round(63 * lDC) | round(31.5 + 31.5 * pDC) << 6 | round(31.5 + 31.5 * qDC) << 12
            | round(31 * lScale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | round(63 * pScale) << 3 | round(63 * qScale) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
                             UInt8(header16 & 255), UInt8(header16 >> 8 & 255)]
        if hasAlpha { hash.append(UInt8(round(15 * aDC) | round(15 * aScale) << 4)) }

        // Coefficients as 4-bit nibbles, low nibble first.
        var isOdd = false
        for coefficients in hasAlpha ? [lAC, pAC, qAC, aAC] : [lAC, pAC, qAC] {
            for f in coefficients {
                let nibble = UInt8(round(15 * f) & 15)
                if isOdd, let last = hash.indices.last {
                    hash[last] |= nibble << 4
                } else {
                    hash.append(nibble)
                }
                isOdd.toggle()
            }
        }
        return hash
    }

    /// DC, AC coefficients mapped into 0...1, and their scale, over the triangle of
    /// frequencies `cx * ny < nx * (ny - cy)`.
    private static func encodeChannel(_ channel: [Double], w: Int, h: Int, nx: Int, ny: Int) -> (Double, [Double], Double) {
        var dc = 0.0, scale = 0.0
        var ac: [Double] = []
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 {
            for i in ac.indices { ac[i] = 0.5 + 0.5 / scale * ac[i] }
        }
        return (dc, ac, scale)
    }
}
