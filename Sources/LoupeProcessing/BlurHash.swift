import LoupeCodecs

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// BlurHash (Wolt's placeholder format): a short string a list shows as a blurred image
/// before the real one arrives.
///
/// The encoder follows the reference implementation operation for operation (sRGB to linear,
/// a cosine transform over every pixel, the same quantization and base-83 text), so for the
/// same pixels the string equals the reference's; the tests compare against the PyPI package
/// `blurhash`. Like the reference it reads R, G and B only: alpha is ignored.
///
/// Cost grows with pixels × components; encode a small version of the image (the usual
/// practice is 32 to 64 pixels on the long side, e.g. after `ImageProcessors.Resize(maxPixelSize: 32)`).
public enum BlurHash {
    /// The hash of `bitmap` with `xComponents`×`yComponents` cosine components (1...9 each;
    /// more components keep more detail in a longer string: 4 + 2 × x × y characters).
    public static func encode(_ bitmap: Bitmap, xComponents: Int = 4, yComponents: Int = 3) throws(ProcessingError) -> String {
        guard (1...9).contains(xComponents), (1...9).contains(yComponents) else {
            throw .invalidParameter("BlurHash components must be 1...9, got \(xComponents)x\(yComponents)")
        }
        let width = bitmap.width, height = bitmap.height
        let w = Double(width), h = Double(height)
        let linear = sRGBToLinearTable

        // Cosine tables: the same expressions the reference evaluates per pixel, computed
        // once. Pixels are converted to linear through a 256-entry table as they are read, so
        // memory stays O(width + height) whatever the image size.
        let cosX = (0..<xComponents).map { i in (0..<width).map { x in cos(Double.pi * Double(i) * Double(x) / w) } }
        let cosY = (0..<yComponents).map { j in (0..<height).map { y in cos(Double.pi * Double(j) * Double(y) / h) } }

        var components: [(r: Double, g: Double, b: Double)] = []
        var maximumAC = 0.0
        for j in 0..<yComponents {
            for i in 0..<xComponents {
                let norm = i == 0 && j == 0 ? 1.0 : 2.0
                var r = 0.0, g = 0.0, b = 0.0
                bitmap.pixels.withUnsafeBufferPointer { pixels in
                    for y in 0..<height {
                        var at = y * bitmap.bytesPerRow
                        for x in 0..<width {
                            // Same association as the reference: (norm * cos x) * cos y.
                            let basis = norm * cosX[i][x] * cosY[j][y]
                            r += basis * linear[Int(pixels[at])]
                            g += basis * linear[Int(pixels[at + 1])]
                            b += basis * linear[Int(pixels[at + 2])]
                            at += 4
                        }
                    }
                }
                let area = w * h
                let component = (r: r / area, g: g / area, b: b / area)
                components.append(component)
                if i != 0 || j != 0 {
                    maximumAC = max(maximumAC, abs(component.r), abs(component.g), abs(component.b))
                }
            }
        }

        let dc = components[0]
        let dcValue = linearToSRGB(dc.r) << 16 + linearToSRGB(dc.g) << 8 + linearToSRGB(dc.b)
        let quantizedMaximum = Int(max(0, min(82, (maximumAC * 166 - 0.5).rounded(.down))))
        let acNorm = Double(quantizedMaximum + 1) / 166
        func quantize(_ value: Double) -> Int {
            let scaled = value / acNorm
            let signed = copysign(pow(abs(scaled), 0.5), scaled)
            return Int(max(0, min(18, (signed * 9 + 9.5).rounded(.down))))
        }

        var hash = base83((xComponents - 1) + (yComponents - 1) * 9, length: 1)
        hash += base83(quantizedMaximum, length: 1)
        hash += base83(dcValue, length: 4)
        for component in components.dropFirst() {
            hash += base83(quantize(component.r) * 19 * 19 + quantize(component.g) * 19 + quantize(component.b), length: 2)
        }
        return hash
    }

    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// `value` as `length` base-83 digits, most significant first.
    private static func base83(_ value: Int, length: Int) -> String {
        var digits = [Character](repeating: "0", count: length)
        var rest = value
        for index in stride(from: length - 1, through: 0, by: -1) {
            digits[index] = alphabet[rest % 83]
            rest /= 83
        }
        return String(digits)
    }

    private static let sRGBToLinearTable: [Double] = (0...255).map { value in
        let x = Double(value) / 255
        return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
    }

    private static func linearToSRGB(_ value: Double) -> Int {
        let v = max(0, min(1, value))
        if v <= 0.0031308 { return Int(v * 12.92 * 255 + 0.5) }
        return Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }
}
