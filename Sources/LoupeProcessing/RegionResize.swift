import LoupeCodecs

extension ImageProcessors {
    /// Resamples one rectangle of the image (in source pixels, may be fractional) to a given size:
    /// a resize followed by a cut, done in one pass that reads only the rows and columns the cut
    /// needs. The filter's taps near the rectangle's edges still read the pixels around it, as
    /// they would in a resize of the whole image, so the result matches resize-then-cut.
    public struct RegionResize: ImageProcessing {
        /// The rectangle's left edge.
        public let x: Double
        /// The rectangle's top edge.
        public let y: Double
        /// The rectangle's width.
        public let width: Double
        /// The rectangle's height.
        public let height: Double
        /// Output width in pixels.
        public let outputWidth: Int
        /// Output height in pixels.
        public let outputHeight: Int
        /// The windowed filter.
        public let filter: ResamplingFilter

        /// Maps the rectangle at (`x`, `y`), `width`×`height` source pixels, onto
        /// `outputWidth`×`outputHeight` pixels.
        public init(x: Double, y: Double, width: Double, height: Double, outputWidth: Int, outputHeight: Int,
                    filter: ResamplingFilter = .lanczos3) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.outputWidth = outputWidth
            self.outputHeight = outputHeight
            self.filter = filter
        }

        public var identifier: String {
            "loupe.region(\(x),\(y),\(width),\(height),\(outputWidth)x\(outputHeight),\(filter.rawValue))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            try Resize.checkResultSize(width: outputWidth, height: outputHeight)
            // The rectangle must lie inside the image (a little rounding slack is clamped away).
            let w = Double(bitmap.width), h = Double(bitmap.height)
            guard x.isFinite, y.isFinite, width.isFinite, height.isFinite, width > 0, height > 0,
                  x >= -0.5, y >= -0.5, x + width <= w + 0.5, y + height <= h + 0.5 else {
                throw .invalidParameter("region \(width)x\(height) at (\(x), \(y)) is not inside the \(bitmap.width)x\(bitmap.height) image")
            }
            let left = min(max(0, x), w), top = min(max(0, y), h)
            let region = Resampler.Region(x: left, y: top, width: min(width, w - left), height: min(height, h - top))
            return try Resampler(filter: filter, reducingGap: 2).resample(bitmap, region: region, width: outputWidth, height: outputHeight)
        }
    }
}
