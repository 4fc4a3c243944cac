import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// Cuts away a border of one colour: imgproxy's `trim`. The border colour is the given one,
    /// or the top-left pixel's; a pixel belongs to the border when no channel differs from it by
    /// more than the threshold. Transparent pixels are judged as if over magenta (255, 0, 255),
    /// as imgproxy does, so a transparent border trims with that colour or the corner's.
    public struct Trim: ImageProcessing {
        /// Largest per-channel difference (0...255) a border pixel may have from the colour.
        public let threshold: Double
        /// The border colour; `nil` for the top-left pixel's.
        public let color: RGBColor?
        /// Make the left and right borders cut the same (the smaller of the two).
        public let equalHorizontal: Bool
        /// Make the top and bottom borders cut the same (the smaller of the two).
        public let equalVertical: Bool

        /// A trim at `threshold` of `color` (or the corner's), optionally with equal sides.
        public init(threshold: Double = 10, color: RGBColor? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
            self.threshold = threshold
            self.color = color
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }

        public var identifier: String {
            "loupe.trim(\(threshold),\(color?.hex ?? "corner"),\(equalHorizontal ? "eh" : "-"),\(equalVertical ? "ev" : "-"))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            guard let box = try contentBox(of: bitmap) else { return bitmap }
            return try Crop(x: box.x, y: box.y, width: box.width, height: box.height).process(bitmap)
        }

        /// The rectangle left after the border is cut, or `nil` when nothing (or everything)
        /// would be cut.
        func contentBox(of bitmap: Bitmap) throws(ProcessingError) -> (x: Int, y: Int, width: Int, height: Int)? {
            let width = bitmap.width, height = bitmap.height
            guard width > 0, height > 0 else { return nil }
            func flattened(_ x: Int, _ y: Int) -> (Int, Int, Int) {
                let p = bitmap.pixel(x: x, y: y)
                let a = Int(p.a), rest = 255 - a
                // Over magenta, rounded as `Flatten` rounds.
                return ((Int(p.r) * a + 255 * rest + 127) / 255, (Int(p.g) * a + 127) / 255, (Int(p.b) * a + 255 * rest + 127) / 255)
            }
            let background = color.map { (Int($0.red), Int($0.green), Int($0.blue)) } ?? flattened(0, 0)
            let limit = threshold
            var minX = width, minY = height, maxX = -1, maxY = -1
            // Checked once per row.
            let cancellation = WorkCancellation.current
            for y in 0..<height {
                try cancellation?.check(ProcessingError.cancelled)
                for x in 0..<width {
                    let p = flattened(x, y)
                    let difference = max(abs(p.0 - background.0), abs(p.1 - background.1), abs(p.2 - background.2))
                    if Double(difference) > limit {
                        minX = min(minX, x)
                        maxX = max(maxX, x)
                        minY = min(minY, y)
                        maxY = max(maxY, y)
                    }
                }
            }
            guard maxX >= minX, maxY >= minY else { return nil }
            var left = minX, top = minY
            var boxWidth = maxX - minX + 1, boxHeight = maxY - minY + 1
            if equalHorizontal {
                // The sides keep the smaller border's width: the content stays centred as it was.
                let right = width - left - boxWidth
                if right > left { boxWidth += right - left } else if right < left { boxWidth += left - right; left = right }
            }
            if equalVertical {
                let bottom = height - top - boxHeight
                if bottom > top { boxHeight += bottom - top } else if bottom < top { boxHeight += top - bottom; top = bottom }
            }
            if left == 0, top == 0, boxWidth == width, boxHeight == height { return nil }
            return (left, top, boxWidth, boxHeight)
        }
    }
}
