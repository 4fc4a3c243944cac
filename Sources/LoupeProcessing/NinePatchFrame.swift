import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `frame(url)`: the image framed by a nine-patch, Android's stretchable picture — a
    /// one-pixel border whose opaque black pixels mark, along the top and left edges, the columns
    /// and rows that stretch, and along the bottom and right edges, where the content goes (the
    /// padding is the unmarked run before and after the marks).
    ///
    /// As thumbor's `_nine_patch` does it: the image is pasted at the padding's offset on an opaque
    /// white canvas larger by the padding; then the nine-patch (without its border) is cut into
    /// runs of stretchy and fixed rows and columns, the fixed ones kept at their size and the
    /// stretchy ones sharing what the canvas has beyond the fixed ones in proportion to their size,
    /// and each cell is scaled to its place (bilinear, thumbor's sampling) and composited over the
    /// canvas with thumbor's formula (the canvas's own alpha kept).
    public struct NinePatchFrame: ImageProcessing {
        /// The nine-patch, straight RGBA, its marker border included.
        public let ninePatch: Bitmap
        /// Names the nine-patch's pixels in the identifier (a digest of its bytes).
        public let ninePatchIdentity: String

        /// A frame made of `ninePatch`, named `identity` in cache keys.
        public init(ninePatch: Bitmap, identity: String) {
            (self.ninePatch, ninePatchIdentity) = (ninePatch, identity)
        }

        public var identifier: String { "loupe.ninepatch(\(ninePatchIdentity))" }

        /// Opaque black: a marker.
        func isMarker(_ x: Int, _ y: Int) -> Bool {
            let pixel = ninePatch.pixel(x: x, y: y)
            return pixel.r == 0 && pixel.g == 0 && pixel.b == 0 && pixel.a == 255
        }

        /// The content's padding: the unmarked pixels of the bottom edge before and after its marks
        /// (left, right), and of the right edge (top, bottom); 0 where an edge has no mark.
        public var padding: (left: Int, top: Int, right: Int, bottom: Int) {
            let width = ninePatch.width, height = ninePatch.height
            guard width >= 3, height >= 3 else { return (0, 0, 0, 0) }
            let columns = 1..<(width - 1), rows = 1..<(height - 1)
            let left = columns.first { isMarker($0, height - 1) }.map { $0 - 1 } ?? 0
            let right = columns.last { isMarker($0, height - 1) }.map { width - 2 - $0 } ?? 0
            let top = rows.first { isMarker(width - 1, $0) }.map { $0 - 1 } ?? 0
            let bottom = rows.last { isMarker(width - 1, $0) }.map { height - 2 - $0 } ?? 0
            return (left, top, right, bottom)
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let padding = self.padding
            let width = bitmap.width + padding.left + padding.right, height = bitmap.height + padding.top + padding.bottom
            try Resize.checkResultSize(width: width, height: height)
            var canvas = [UInt8](repeating: 255, count: width * height * 4)
            try Backdrop.paste(bitmap, into: &canvas, width: width, height: height, bytesPerRow: width * 4, x: padding.left, y: padding.top, merges: true)
            guard ninePatch.width >= 3, ninePatch.height >= 3 else { return try Self.bitmap(canvas, width: width, height: height) }
            let columns = runs(length: ninePatch.width, target: width) { isMarker($0, 0) }
            let rows = runs(length: ninePatch.height, target: height) { isMarker(0, $0) }
            let cancellation = WorkCancellation.current
            for row in rows {
                try cancellation?.check(ProcessingError.cancelled)
                for column in columns {
                    paste(column: column, row: row, into: &canvas, width: width, height: height)
                }
            }
            return try Self.bitmap(canvas, width: width, height: height)
        }

        /// One run of rows or columns: where it is in the nine-patch and where it goes.
        struct Run {
            var source: Int, sourceLength: Int
            var target: Int, targetLength: Int
        }

        /// The runs of equal stretchiness between the border's first and last pixel, and their
        /// places along a side of `target` pixels.
        func runs(length: Int, target: Int, isStretchy: (Int) -> Bool) -> [Run] {
            let inner = 1..<(length - 1)
            let stretchy = inner.filter(isStretchy).count
            let shared = max(0, target - (length - 2 - stretchy))
            var runs: [Run] = []
            var start = 1, place = 0
            while start < length - 1 {
                let kind = isStretchy(start)
                var end = start + 1
                while end < length - 1, isStretchy(end) == kind { end += 1 }
                let size = end - start
                let placed = kind ? Int(Double(size) / Double(stretchy) * Double(shared) + 0.5) : size
                runs.append(Run(source: start, sourceLength: size, target: place, targetLength: placed))
                place += placed
                start = end
            }
            return runs
        }

        /// thumbor's `paste_rectangle`: the cell scaled bilinearly (source step (n − 1) / m) and
        /// composited over the canvas; a cell that would overflow the canvas is skipped whole.
        func paste(column: Run, row: Run, into canvas: inout [UInt8], width: Int, height: Int) {
            guard column.target + column.targetLength <= width, row.target + row.targetLength <= height else { return }
            let xRatio = Double(column.sourceLength - 1) / Double(column.targetLength)
            let yRatio = Double(row.sourceLength - 1) / Double(row.targetLength)
            for y in 0..<row.targetLength {
                let sourceY = Int(yRatio * Double(y))
                let yFraction = yRatio * Double(y) - Double(sourceY)
                for x in 0..<column.targetLength {
                    let sourceX = Int(xRatio * Double(x)), xFraction = xRatio * Double(x) - Double(sourceX)
                    let sample = { (channel: Int) in
                        self.interpolate(column.source + sourceX, row.source + sourceY, xFraction, yFraction, channel)
                    }
                    let offset = ((row.target + y) * width + column.target + x) * 4
                    // thumbor's transparencies: 255 − alpha.
                    let sourceClear = Double(255 - sample(3)) / 255, targetClear = Double(255 - Int(canvas[offset + 3])) / 255
                    for channel in 0..<3 {
                        let value = (1 - sourceClear) * Double(sample(channel)) + (1 - targetClear) * Double(canvas[offset + channel]) * sourceClear
                        canvas[offset + channel] = Self.clamped(value)
                    }
                }
            }
        }

        /// A channel at (x, y) mixed with its right, lower and lower-right neighbours by the
        /// fractions; exactly the pixel's when the four agree (no rounding where nothing mixes).
        func interpolate(_ x: Int, _ y: Int, _ xFraction: Double, _ yFraction: Double, _ channel: Int) -> Int {
            func value(_ x: Int, _ y: Int) -> Int {
                Int(ninePatch.pixels[min(y, ninePatch.height - 1) * ninePatch.bytesPerRow + min(x, ninePatch.width - 1) * 4 + channel])
            }
            let a = value(x, y), b = value(x + 1, y), c = value(x, y + 1), d = value(x + 1, y + 1)
            if a == b, a == c, a == d { return a }
            let mixed = Double(a) * (1 - xFraction) * (1 - yFraction) + Double(b) * xFraction * (1 - yFraction)
                + Double(c) * (1 - xFraction) * yFraction + Double(d) * xFraction * yFraction
            return Int(Self.clamped(mixed))
        }

        /// thumbor's `ADJUST_COLOR_DOUBLE`: clamped to 0…255, truncated.
        static func clamped(_ value: Double) -> UInt8 { value > 255 ? 255 : value < 0 ? 0 : UInt8(value) }

        static func bitmap(_ pixels: [UInt8], width: Int, height: Int) throws(ProcessingError) -> Bitmap {
            do {
                return try Bitmap(width: width, height: height, pixels: pixels)
            } catch {
                throw .invalidParameter("a framed image of \(width)x\(height) cannot be made")
            }
        }
    }
}

extension ImageProcessors.NinePatchFrame: CostEstimating {
    /// The canvas written once and the nine-patch's cells sampled over it (four neighbours a
    /// channel).
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        let padding = self.padding
        return .perPixel(20, bytes: 4, width: width + padding.left + padding.right, height: height + padding.top + padding.bottom)
    }
}
