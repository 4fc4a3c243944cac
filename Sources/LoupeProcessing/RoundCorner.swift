import Foundation
import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `round_corner(a|b,r,g,b[,transparent])`: the outside of an elliptical arc of radii
    /// `a` (across) and `b` (down) at each corner painted in the colour, and made transparent too
    /// when asked; radii past half the image's side are that half. The arc is thumbor's: on each
    /// row at `y` from the corner's inner edge, the `a·√(b²−y²)/b` pixels outside it (truncated)
    /// are painted; on the right-hand corners one pixel fewer, as thumbor mirrors them. thumbor
    /// blends a pixel or two along the arc into the colour; Loupe paints whole pixels.
    public struct RoundCorner: ImageProcessing {
        /// The horizontal and vertical radii.
        public let radiusX: Int, radiusY: Int
        /// What the outside of the arcs becomes: the colour, and alpha 0 when made transparent
        /// (`nil`: alpha kept).
        let paint: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8?)

        /// Corners rounded with radii `radiusX` and `radiusY`, painted `color` outside, and made
        /// transparent there when `transparent`.
        public init(radiusX: Int, radiusY: Int, color: RGBColor, transparent: Bool) {
            (self.radiusX, self.radiusY) = (radiusX, radiusY)
            paint = (color.red, color.green, color.blue, transparent ? 0 : nil)
        }

        public var identifier: String {
            "loupe.round_corner(\(radiusX),\(radiusY),\(paint.red),\(paint.green),\(paint.blue),\(paint.alpha.map(String.init) ?? "-"))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let width = bitmap.width, height = bitmap.height
            let a = min(max(radiusX, 0), width / 2), b = min(max(radiusY, 0), height / 2)
            guard a > 0, b > 0 else { return bitmap }
            var pixels = bitmap.pixels
            let stride = bitmap.bytesPerRow
            let cancellation = WorkCancellation.current
            func fill(_ x: Int, _ y: Int) {
                let o = y * stride + x * 4
                pixels[o] = paint.red
                pixels[o + 1] = paint.green
                pixels[o + 2] = paint.blue
                if let alpha = paint.alpha { pixels[o + 3] = alpha }
            }
            for y in 0...b {
                if y % PixelBands.rows == 0 { try cancellation?.check(ProcessingError.cancelled) }
                let arc = -(Float(a) * Float(sqrt(Double(b * b - y * y)))) / Float(b)
                let outside = Int(arc + Float(a))
                let top = b - y, bottom = height - b + y - 1
                for x in 0..<max(outside, 0) {
                    fill(x, top)
                    fill(x, bottom)
                    if x > 0 {
                        fill(width - x, top)
                        fill(width - x, bottom)
                    }
                }
            }
            return try Backdrop.bitmap(pixels, like: bitmap)
        }
    }
}
