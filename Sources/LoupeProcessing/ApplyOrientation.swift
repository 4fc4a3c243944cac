import LoupeCodecs

extension ImageProcessors {
    /// Turns a bitmap upright for an EXIF orientation (usually `DecodedImage.metadata.orientation`
    /// of a file decoded without `appliesOrientation`). The transform itself is the codecs'
    /// `ExifOrientation.apply(to:)`; this wraps it as a chainable, cacheable step.
    public struct ApplyOrientation: ImageProcessing {
        /// The orientation the stored pixels have.
        public let orientation: ExifOrientation

        /// Creates the step for `orientation`.
        public init(_ orientation: ExifOrientation) { self.orientation = orientation }

        public var identifier: String { "loupe.orient(\(orientation.rawValue))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            orientation.apply(to: bitmap)
        }
    }
}
