import LoupeCodecs

extension ImageProcessors {
    /// A lookup table per channel: each pixel's red, green and blue replaced by their tables'
    /// entries, alpha kept. What thumbor's per-channel filters are once their arithmetic has run
    /// over the 256 values a channel can hold — brightness, contrast, rgb, colorize and curve make
    /// theirs in their own files (``brightness(percent:)``, ...).
    public struct ChannelTables: ImageProcessing {
        /// The filter and its arguments, for the identifier.
        public let name: String
        /// 256 entries each, 0...255.
        let red: [UInt8], green: [UInt8], blue: [UInt8]

        /// Tables from what each channel's value becomes (clamped to 0...255), named `name` (the
        /// filter and every argument, so that the identifier names the tables).
        init(name: String, red: (Int) -> Int, green: (Int) -> Int, blue: (Int) -> Int) {
            self.name = name
            let values = 0..<256
            self.red = values.map { PixelBands.clamp(red($0)) }
            self.green = values.map { PixelBands.clamp(green($0)) }
            self.blue = values.map { PixelBands.clamp(blue($0)) }
        }

        public var identifier: String { "loupe.\(name)" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            try PixelBands.mapColors(bitmap) { r, g, b in
                r = Int(red[r])
                g = Int(green[g])
                b = Int(blue[b])
            }
        }
    }
}
