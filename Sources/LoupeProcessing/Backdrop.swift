import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// The image centred on a canvas made from itself (thumbor's `fill(auto)`, `fill(blur)` and
    /// `background_color(auto)`): painted in the image's average colour, or thumbor's blur of the
    /// image stretched to the canvas. The image is centred as thumbor pastes it (the free space
    /// halved, rounded down) and either replaces the canvas where it lies or, with `merges`, is
    /// composited over it (straight alpha, "over", in thumbor's arithmetic).
    public struct Backdrop: ImageProcessing {
        /// What the canvas is painted with.
        public enum Style: Sendable, Equatable {
            /// The mean of every pixel's red, green and blue (truncated), opaque.
            case averageColor
            /// The image blurred as thumbor's `blur(radius)` blurs it (`ThumborBlur`: the Gaussian cut
            /// at the radius), at the image's size, then stretched to the canvas.
            case blurred(radius: Int)
        }

        /// The canvas size; `nil` for the image's own.
        public let width: Int?, height: Int?
        public let style: Style
        /// Whether the image is composited over the canvas rather than replacing it.
        public let merges: Bool

        /// A canvas of `width`×`height` (the image's own size where `nil`) in `style`.
        public init(width: Int?, height: Int?, style: Style, merges: Bool) {
            self.width = width
            self.height = height
            self.style = style
            self.merges = merges
        }

        public var identifier: String {
            let style = switch self.style {
            case .averageColor: "average"
            case .blurred(let radius): "blur\(radius)"
            }
            return "loupe.backdrop(\(width.map(String.init) ?? "-")x\(height.map(String.init) ?? "-"),\(style),\(merges))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let canvasWidth = max(width ?? bitmap.width, 1), canvasHeight = max(height ?? bitmap.height, 1)
            try Resize.checkResultSize(width: canvasWidth, height: canvasHeight)
            let canvas: Bitmap
            switch style {
            case .averageColor:
                let color = Self.average(bitmap)
                canvas = try Extend(width: canvasWidth, height: canvasHeight, x: canvasWidth, y: canvasHeight,
                                    fill: (color.red, color.green, color.blue, 255)).process(bitmap)
            case .blurred(let radius):
                guard let blur = ThumborBlur(radius: radius) else { throw .invalidParameter("a blurred canvas's radius of \(radius)") }
                // thumbor pastes the image onto a transparent canvas before its straight-alpha blur,
                // which turns the hidden colour of every clear pixel black; without that, the blur
                // would spread those hidden colours into the visible ones.
                let cleared = bitmap.hasTransparency ? try Self.paste(bitmap, onto: Self.clear(like: bitmap), x: 0, y: 0, merges: true) : bitmap
                let blurred = try blur.process(cleared)
                canvas = try Resize(width: canvasWidth, height: canvasHeight, mode: .exact, allowsUpscaling: true).process(blurred)
            }
            return try Self.paste(bitmap, onto: canvas, x: (canvasWidth - bitmap.width) / 2, y: (canvasHeight - bitmap.height) / 2,
                                  merges: merges)
        }

        /// The mean red, green and blue of every pixel, transparent ones included, as thumbor's
        /// `fill(auto)` takes it.
        static func average(_ bitmap: Bitmap) -> RGBColor {
            var sums = (0, 0, 0)
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let o = y * bitmap.bytesPerRow + x * 4
                    sums.0 += Int(bitmap.pixels[o])
                    sums.1 += Int(bitmap.pixels[o + 1])
                    sums.2 += Int(bitmap.pixels[o + 2])
                }
            }
            let count = max(bitmap.width * bitmap.height, 1)
            return RGBColor(red: UInt8(sums.0 / count), green: UInt8(sums.1 / count), blue: UInt8(sums.2 / count))
        }

        /// `image` on `canvas` with its top left at (`x`, `y`), the part outside dropped.
        static func paste(_ image: Bitmap, onto canvas: Bitmap, x: Int, y: Int, merges: Bool) throws(ProcessingError) -> Bitmap {
            var pixels = canvas.pixels
            try paste(image, into: &pixels, width: canvas.width, height: canvas.height, bytesPerRow: canvas.bytesPerRow, x: x, y: y, merges: merges)
            return try bitmap(pixels, like: canvas)
        }

        /// `image` written into the canvas `pixels` (`width`×`height`, `bytesPerRow` apart) at
        /// (`x`, `y`): replacing the canvas, or with `merges` composited over it (straight alpha).
        static func paste(_ image: Bitmap, into pixels: inout [UInt8], width: Int, height: Int, bytesPerRow: Int, x: Int, y: Int,
                          merges: Bool) throws(ProcessingError) {
            let cancellation = WorkCancellation.current
            for row in stride(from: max(0, y), to: min(height, y + image.height), by: 1) {
                if row % PixelBands.rows == 0 { try cancellation?.check(ProcessingError.cancelled) }
                for column in stride(from: max(0, x), to: min(width, x + image.width), by: 1) {
                    let i = (row - y) * image.bytesPerRow + (column - x) * 4, o = row * bytesPerRow + column * 4
                    guard merges, image.pixels[i + 3] < 255 else {
                        for channel in 0..<4 { pixels[o + channel] = image.pixels[i + channel] }
                        continue
                    }
                    composite(image.pixels, at: i, over: &pixels, at: o)
                }
            }
        }

        /// The RGBA pixel at `top[t]` over the one at `bottom[b]` (straight alpha) in thumbor's
        /// arithmetic (its `_composite` filter, which each of its merging pastes runs): doubles over
        /// the two transparencies, each result truncated. The truncation shows: a nearly opaque pixel
        /// over a translucent one comes out 254, not 255.
        static func composite(_ top: [UInt8], at t: Int, over bottom: inout [UInt8], at b: Int) {
            let topClear = Double(255 - Int(top[t + 3])) / 255, bottomClear = Double(255 - Int(bottom[b + 3])) / 255
            let bothClear = topClear * bottomClear
            let covered = 1 - bothClear
            let scale = covered <= 1e-12 ? 1 : 1 / covered
            for channel in 0..<3 {
                let value = scale * ((1 - topClear) * Double(top[t + channel]) + (1 - bottomClear) * Double(bottom[b + channel]) * topClear)
                bottom[b + channel] = UInt8(min(max(value, 0), 255))
            }
            bottom[b + 3] = UInt8(min(max(255 - 255 * bothClear, 0), 255))
        }

        /// A fully transparent black bitmap of `shape`'s size and row length.
        static func clear(like shape: Bitmap) throws(ProcessingError) -> Bitmap {
            try bitmap([UInt8](repeating: 0, count: shape.bytesPerRow * shape.height), like: shape)
        }

        /// `pixels` as a bitmap of `shape`'s size and row length.
        static func bitmap(_ pixels: [UInt8], like shape: Bitmap) throws(ProcessingError) -> Bitmap {
            do {
                return try Bitmap(width: shape.width, height: shape.height, bytesPerRow: shape.bytesPerRow, pixels: pixels)
            } catch {
                throw .invalidSize(width: shape.width, height: shape.height)
            }
        }
    }
}
