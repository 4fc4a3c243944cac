import LoupeCodecs

extension ImageProcessors {
    /// Turns the image clockwise by a multiple of 90° and then mirrors it: imgproxy's `rotate` and
    /// `flip`, in its order (rotation first).
    public struct RotateFlip: ImageProcessing {
        /// Clockwise quarter turns, 0...3.
        public let quarterTurns: Int
        /// Mirror left to right (after the rotation).
        public let flipHorizontal: Bool
        /// Mirror top to bottom (after the rotation).
        public let flipVertical: Bool

        /// Rotates by `degrees` clockwise (a multiple of 90, any sign; others round down to one),
        /// then flips.
        public init(degrees: Int, flipHorizontal: Bool = false, flipVertical: Bool = false) {
            quarterTurns = ((degrees / 90) % 4 + 4) % 4
            self.flipHorizontal = flipHorizontal
            self.flipVertical = flipVertical
        }

        public var identifier: String {
            "loupe.rotateflip(\(quarterTurns * 90),\(flipHorizontal ? "h" : "-"),\(flipVertical ? "v" : "-"))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            // EXIF's orientations are exactly these transforms (a stored image turned upright), so
            // the codecs' transform does the pixel work.
            var image = bitmap
            switch quarterTurns {
            case 1: image = ExifOrientation.right.apply(to: image)
            case 2: image = ExifOrientation.down.apply(to: image)
            case 3: image = ExifOrientation.left.apply(to: image)
            default: break
            }
            if flipHorizontal { image = ExifOrientation.upMirrored.apply(to: image) }
            if flipVertical { image = ExifOrientation.downMirrored.apply(to: image) }
            return image
        }
    }
}
