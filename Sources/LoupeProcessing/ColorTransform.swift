import LoupeCodecs

extension ImageProcessors {
    /// A function of each pixel's red, green and blue together, in row order, alpha kept: what
    /// thumbor's cross-channel filters are — saturation, grayscale and noise make theirs in their
    /// own files (``saturation(factor:)``, ...). `make` gives one run its function, so a function
    /// with state (noise's generator) starts afresh on every image.
    public struct ColorTransform: ImageProcessing {
        /// The filter and its arguments, for the identifier.
        public let name: String
        let make: @Sendable () -> (_ red: inout Int, _ green: inout Int, _ blue: inout Int) -> Void

        public var identifier: String { "loupe.\(name)" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            try PixelBands.mapColors(bitmap, make())
        }
    }
}
