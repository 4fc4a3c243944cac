import LoupeCodecs

extension ImageProcessors {
    /// Composites the image over a solid colour, leaving it fully opaque: what a format without
    /// transparency (JPEG) needs, and imgproxy's `background` option.
    public struct Flatten: ImageProcessing {
        /// The colour under the image.
        public let background: RGBColor

        /// Flattens onto `background`.
        public init(background: RGBColor) {
            self.background = background
        }

        public var identifier: String { "loupe.flatten(\(background.hex))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            guard bitmap.hasDeepTransparency else { return bitmap }
            if let deep = bitmap.deepSamples { return try DeepPixelSteps.flatten(bitmap, samples: deep, background: background) }
            let width = bitmap.width
            let back = (Int(background.red), Int(background.green), Int(background.blue))
            return try Bitmap.make(width: width, height: bitmap.height) { out in
                bitmap.pixels.withUnsafeBufferPointer { source in
                    for y in 0..<bitmap.height {
                        let from = y * bitmap.bytesPerRow, to = y * width * 4
                        for x in 0..<width {
                            let i = from + x * 4, o = to + x * 4
                            let alpha = Int(source[i + 3]), rest = 255 - alpha
                            // Straight alpha: colour × α + background × (1 − α), rounded.
                            out[o] = UInt8((Int(source[i]) * alpha + back.0 * rest + 127) / 255)
                            out[o + 1] = UInt8((Int(source[i + 1]) * alpha + back.1 * rest + 127) / 255)
                            out[o + 2] = UInt8((Int(source[i + 2]) * alpha + back.2 * rest + 127) / 255)
                            out[o + 3] = 255
                        }
                    }
                }
            }
        }
    }
}
