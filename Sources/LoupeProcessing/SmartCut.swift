import LoupeCodecs

extension ImageProcessors {
    /// Cuts a window of a given size, at scale 1, where the image has the most detail (the same
    /// measure as `BoxResize`'s smart gravity): imgproxy's `crop` and fill cut with `g:sm`.
    public struct SmartCut: ImageProcessing {
        /// Window width (clamped to the image).
        public let width: Int
        /// Window height (clamped to the image).
        public let height: Int

        /// A `width`×`height` window.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        public var identifier: String { "loupe.smartcut(\(width)x\(height))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let cutWidth = min(max(1, width), bitmap.width), cutHeight = min(max(1, height), bitmap.height)
            let origin = SmartCrop.origin(in: bitmap, cutWidth: Double(cutWidth), cutHeight: Double(cutHeight))
            let x = min(max(0, Int(origin.x.rounded(.down))), bitmap.width - cutWidth)
            let y = min(max(0, Int(origin.y.rounded(.down))), bitmap.height - cutHeight)
            return try Crop(x: x, y: y, width: cutWidth, height: cutHeight).process(bitmap)
        }
    }
}
