import LoupeCaching
import LoupeCodecs

/// Where a watermark goes on the image: imgproxy's watermark positions (their URL names are the
/// raw values), the compass points, the centre, or tiled over the whole image.
public enum WatermarkPosition: String, Sendable, CaseIterable {
    case center = "ce", north = "no", south = "so", east = "ea", west = "we"
    case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
    /// Tiled from the top-left corner; the offsets are the spacing between tiles.
    case replicate = "re"

    /// The gravity anchor a single mark is placed at (imgproxy places it as it places a cut);
    /// nil for `replicate`.
    var anchor: Gravity.Anchor? {
        switch self {
        case .center: .center
        case .north: .north
        case .south: .south
        case .east: .east
        case .west: .west
        case .northEast: .northEast
        case .northWest: .northWest
        case .southEast: .southEast
        case .southWest: .southWest
        case .replicate: nil
        }
    }
}

/// Where and how large a watermark lands on an image of a given size: the pure part of
/// ``ImageProcessors.Watermark``, apart so it can be checked without pixels. imgproxy's rules: the mark is
/// fitted (enlarged too) into `scale` × the image's size, or kept as it is when `scale` is 0;
/// an offset of 1 or more is pixels (× `dpr`), below 1 a share of the image's side; east and
/// south count their offset inwards from their edge.
public enum WatermarkLayout {
    /// Where the mark is drawn.
    public enum Placement: Equatable, Sendable {
        /// Not drawn (entirely outside the image).
        case none
        /// Once, its top-left corner at `x`, `y` (may be partly outside the image).
        case single(x: Int, y: Int)
        /// Repeated every `cellWidth` × `cellHeight` pixels from the image's top-left corner,
        /// each copy `left`, `top` into its cell (the spacing split on both sides).
        case tiled(cellWidth: Int, cellHeight: Int, left: Int, top: Int)
    }

    /// The mark's size on an `imageWidth`×`imageHeight` image: fitted into the image's size ×
    /// `scale` (at least 1 pixel a side), or as it is for `scale` 0.
    public static func size(markWidth: Int, markHeight: Int, imageWidth: Int, imageHeight: Int,
                            scale: Double) -> (width: Int, height: Int) {
        guard scale > 0, markWidth > 0, markHeight > 0 else { return (markWidth, markHeight) }
        let boxWidth = max(GeometryMath.scaleToEven(imageWidth, scale), 1), boxHeight = max(GeometryMath.scaleToEven(imageHeight, scale), 1)
        let factor = min(Double(boxWidth) / Double(markWidth), Double(boxHeight) / Double(markHeight))
        return (max(1, GeometryMath.round(Double(markWidth) * factor)), max(1, GeometryMath.round(Double(markHeight) * factor)))
    }

    /// Where a `markWidth`×`markHeight` mark goes on an `imageWidth`×`imageHeight` image.
    public static func placement(imageWidth: Int, imageHeight: Int, markWidth: Int, markHeight: Int,
                                 position: WatermarkPosition, xOffset: Double, yOffset: Double, dpr: Double) -> Placement {
        guard imageWidth > 0, imageHeight > 0, markWidth > 0, markHeight > 0 else { return .none }
        guard let anchor = position.anchor else {
            // Spacing is never negative: a negative offset tiles edge to edge.
            let spaceX = max(0, GeometryMath.offset(xOffset, side: imageWidth, dpr: dpr))
            let spaceY = max(0, GeometryMath.offset(yOffset, side: imageHeight, dpr: dpr))
            return .tiled(cellWidth: markWidth + spaceX, cellHeight: markHeight + spaceY, left: spaceX / 2, top: spaceY / 2)
        }
        var (left, top) = Gravity(anchor, offsetX: xOffset, offsetY: yOffset)
            .unclampedPosition(width: imageWidth, height: imageHeight, innerWidth: markWidth, innerHeight: markHeight, dpr: dpr)
        // At least one pixel of the mark stays on the image.
        left = max(-markWidth + 1, min(left, imageWidth - 1))
        top = max(-markHeight + 1, min(top, imageHeight - 1))
        return .single(x: left, y: top)
    }
}

extension ImageProcessors {
    /// Draws a watermark image over the image: placed and scaled by ``WatermarkLayout``, its alpha
    /// multiplied by `opacity`, composited over the image (source-over, in premultiplied terms, so
    /// transparent parts of either side do not bleed colour). imgproxy's `watermark` option.
    public struct Watermark: ImageProcessing {
        /// The mark, as loaded (scaled per image when `scale` is not 0).
        public let mark: Bitmap
        /// Names the mark's content in ``identifier`` (e.g. a digest of its file), so that cached
        /// results change when the mark does.
        public let markIdentity: String
        /// 0...1: multiplies the mark's alpha.
        public let opacity: Double
        /// Where it goes.
        public let position: WatermarkPosition
        /// Offsets: pixels (× `dpr`) from 1 up, a share of the image's side below 1; spacing when tiled.
        public let xOffset: Double, yOffset: Double
        /// The mark's size relative to the image (0: as it is).
        public let scale: Double
        /// Multiplies pixel offsets (the URL's device pixel ratio).
        public let dpr: Double

        /// A watermark step; `markIdentity` must change whenever `mark`'s pixels do.
        public init(mark: Bitmap, markIdentity: String, opacity: Double, position: WatermarkPosition = .center,
                    xOffset: Double = 0, yOffset: Double = 0, scale: Double = 0, dpr: Double = 1) {
            self.mark = mark
            self.markIdentity = markIdentity
            self.opacity = min(max(opacity.isFinite ? opacity : 0, 0), 1)
            self.position = position
            self.xOffset = xOffset
            self.yOffset = yOffset
            self.scale = scale
            self.dpr = dpr
        }

        public var identifier: String {
            "loupe.watermark(\(markIdentity),\(opacity),\(position.rawValue),\(xOffset),\(yOffset),\(scale),\(dpr))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let alpha = Int((opacity * 255).rounded())
            guard alpha > 0 else { return bitmap }
            let size = WatermarkLayout.size(markWidth: mark.width, markHeight: mark.height, imageWidth: bitmap.width,
                                            imageHeight: bitmap.height, scale: scale)
            var scaled = mark
            if size.width != mark.width || size.height != mark.height {
                // A scale far above 1 would allocate a mark many times the image for pixels that
                // mostly fall off it: refused past four times the image's area.
                guard size.width * size.height <= max(4 * bitmap.width * bitmap.height, 1) else {
                    throw .invalidParameter("the watermark scale \(scale) makes the mark larger than four times the image")
                }
                scaled = try Resize(width: size.width, height: size.height, mode: .exact, allowsUpscaling: true).process(mark)
            }
            let placement = WatermarkLayout.placement(imageWidth: bitmap.width, imageHeight: bitmap.height, markWidth: scaled.width,
                                                      markHeight: scaled.height, position: position, xOffset: xOffset,
                                                      yOffset: yOffset, dpr: dpr)
            if let deep = bitmap.deepSamples {
                return try DeepPixelSteps.watermark(bitmap, samples: deep, mark: scaled, placement: placement, opacity: Double(alpha) / 255)
            }
            let width = bitmap.width, height = bitmap.height
            // Checked once per row the mark is drawn on (the copy under it is a memory move).
            let cancellation = WorkCancellation.current
            return try Bitmap.make(width: width, height: height) { out throws(ProcessingError) in
                try bitmap.pixels.withUnsafeBufferPointer { image throws(ProcessingError) in
                    try scaled.pixels.withUnsafeBufferPointer { markPixels throws(ProcessingError) in
                        let rowBytes = width * 4
                        for y in 0..<height {
                            let from = y * bitmap.bytesPerRow
                            _ = UnsafeMutableBufferPointer(rebasing: out[y * rowBytes..<(y + 1) * rowBytes])
                                .update(fromContentsOf: image[from..<from + rowBytes])
                        }
                        try Self.draw(markPixels, width: scaled.width, height: scaled.height, rowBytes: scaled.bytesPerRow,
                                      into: out, imageWidth: width, imageHeight: height, placement: placement, alpha: alpha,
                                      cancellation: cancellation)
                    }
                }
            }
        }

        /// Composites the mark over `out` (tightly packed) at each place `placement` names.
        private static func draw(_ mark: UnsafeBufferPointer<UInt8>, width: Int, height: Int, rowBytes: Int,
                                 into out: UnsafeMutableBufferPointer<UInt8>, imageWidth: Int, imageHeight: Int,
                                 placement: WatermarkLayout.Placement, alpha: Int, cancellation: WorkCancellation?) throws(ProcessingError) {
            func blend(markX: Int, markY: Int, x: Int, y: Int) {
                let m = markY * rowBytes + markX * 4, o = (y * imageWidth + x) * 4
                let source = (Int(mark[m + 3]) * alpha + 127) / 255
                guard source > 0 else { return }
                let destination = Int(out[o + 3]), rest = destination * (255 - source)
                // Premultiplied source-over, un-premultiplied into the straight-alpha bitmap.
                let total = source * 255 + rest
                for c in 0..<3 {
                    let value = Int(mark[m + c]) * source * 255 + Int(out[o + c]) * rest
                    out[o + c] = UInt8((value + total / 2) / total)
                }
                out[o + 3] = UInt8((total + 127) / 255)
            }
            switch placement {
            case .none:
                return
            case let .single(left, top):
                for y in stride(from: max(0, top), to: min(imageHeight, top + height), by: 1) {
                    try cancellation?.check(ProcessingError.cancelled)
                    for x in stride(from: max(0, left), to: min(imageWidth, left + width), by: 1) {
                        blend(markX: x - left, markY: y - top, x: x, y: y)
                    }
                }
            case let .tiled(cellWidth, cellHeight, left, top):
                for y in 0..<imageHeight {
                    try cancellation?.check(ProcessingError.cancelled)
                    let markY = y % cellHeight - top
                    guard markY >= 0, markY < height else { continue }
                    for x in 0..<imageWidth {
                        let markX = x % cellWidth - left
                        guard markX >= 0, markX < width else { continue }
                        blend(markX: markX, markY: markY, x: x, y: y)
                    }
                }
            }
        }
    }
}
