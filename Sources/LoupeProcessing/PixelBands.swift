import LoupeCaching
import LoupeCodecs

/// The walk the per-pixel colour filters share (thumbor's brightness, contrast, rgb, saturation,
/// colorize, noise, curve, grayscale): every pixel's red, green and blue through a transform, in
/// row order, alpha kept, into a new bitmap; a band of rows at a time, with the work's
/// cancellation checked between bands, so a cancelled request stops within one band.
enum PixelBands {
    /// Rows between two cancellation checks.
    static let rows = 64

    /// `bitmap` with each pixel's channels replaced by what `transform` leaves in them (values
    /// outside 0...255 are clamped, as thumbor's filters clamp them).
    static func mapColors(_ bitmap: Bitmap, _ transform: (_ red: inout Int, _ green: inout Int, _ blue: inout Int) -> Void)
        throws(ProcessingError) -> Bitmap {
        let width = bitmap.width, height = bitmap.height, stride = bitmap.bytesPerRow
        let cancellation = WorkCancellation.current
        return try Bitmap.make(width: width, height: height) { out throws(ProcessingError) in
            try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                for y in 0..<height {
                    if y % rows == 0 { try cancellation?.check(ProcessingError.cancelled) }
                    for x in 0..<width {
                        let i = y * stride + x * 4, o = (y * width + x) * 4
                        var red = Int(source[i]), green = Int(source[i + 1]), blue = Int(source[i + 2])
                        transform(&red, &green, &blue)
                        out[o] = clamp(red)
                        out[o + 1] = clamp(green)
                        out[o + 2] = clamp(blue)
                        out[o + 3] = source[i + 3]
                    }
                }
            }
        }
    }

    /// A channel value held to 0...255.
    static func clamp(_ value: Int) -> UInt8 { UInt8(min(max(value, 0), 255)) }

    /// `value` as C's `(int)` conversion makes it (towards zero), held to 0...255.
    static func clamp(_ value: Double) -> UInt8 { value.isFinite ? clamp(Int(max(min(value, 1e9), -1e9))) : 0 }
}
