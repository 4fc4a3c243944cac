import Foundation
import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `watermark(url,x,y,alpha[,w_ratio[,h_ratio]])`: a mark made `alpha` percent more
    /// transparent, optionally fitted into a share of the image's width and/or height, then
    /// composited over the image at a position per axis — pixels from the left/top, from the
    /// right/bottom when negative (`-0` is flush with the far edge), a percent of the side (`30p`),
    /// `center`, or `repeat` (tiled across the axis, evenly spaced; when both axes repeat more than
    /// 100 times, a grid of at most 6×6). thumbor's arithmetic throughout: Python's rounding of
    /// percents, truncation of centred positions, its spacing of repeats.
    public struct PositionedWatermark: ImageProcessing {
        /// Where the mark goes along one axis.
        public enum Position: Sendable, Equatable {
            /// `n` pixels from the start, or from the end (`-n`) when `fromEnd`.
            case pixels(Int, fromEnd: Bool)
            /// `n` percent of the side from the start, or from the end (`-np`).
            case percent(Int, fromEnd: Bool)
            case center
            case `repeat`

            /// As thumbor's URL spells it: `30`, `-30`, `30p`, `-30p`, `center`, `repeat`.
            public var text: String {
                switch self {
                case .pixels(let value, let fromEnd): (fromEnd ? "-" : "") + String(value)
                case .percent(let value, let fromEnd): (fromEnd ? "-" : "") + String(value) + "p"
                case .center: "center"
                case .repeat: "repeat"
                }
            }
        }

        /// The mark, straight RGBA. However small it is, its pastes stay bounded: a repeat along one
        /// axis covers that axis once, and a grid of two repeating axes is capped as thumbor caps it.
        public let mark: Bitmap
        /// Names the mark's pixels in the identifier (a digest of its bytes).
        public let markIdentity: String
        /// Where the mark goes across and down.
        public let position: (x: Position, y: Position)
        /// Percent of opacity taken away (0 keeps the mark as it is, 100 and more makes it vanish).
        public let alpha: Int
        /// The largest share of the image's width and height the mark may take (`nil`: no bound
        /// on that side; both `nil`: the mark's own size).
        public let fit: (width: Double?, height: Double?)

        /// `mark` at (`x`, `y`), `alpha` percent more transparent, within the shares given.
        public init(mark: Bitmap, markIdentity: String, x: Position, y: Position, alpha: Int, widthRatio: Double?, heightRatio: Double?) {
            (self.mark, self.markIdentity) = (mark, markIdentity)
            position = (x, y)
            self.alpha = alpha
            fit = (widthRatio, heightRatio)
        }

        public var identifier: String {
            "loupe.thumbor-watermark(\(markIdentity),\(position.x.text),\(position.y.text),\(alpha),\(fit.width.map { "\($0)" } ?? "-"),\(fit.height.map { "\($0)" } ?? "-"))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            let width = bitmap.width, height = bitmap.height
            var mark = try faded()
            if fit.width != nil || fit.height != nil {
                let size = Self.fittedSize(image: (width, height), mark: (mark.width, mark.height), widthRatio: fit.width, heightRatio: fit.height)
                guard size.width > 0, size.height > 0 else { return bitmap }
                try Resize.checkResultSize(width: size.width, height: size.height)
                mark = try Resize(width: size.width, height: size.height, mode: .exact, allowsUpscaling: true).process(mark)
            }
            let columns = Self.placements(position.x, side: width, markSide: mark.width)
            let rows = Self.placements(position.y, side: height, markSide: mark.height)
            var grid = (columns.offsets, rows.offsets)
            if columns.repeats && rows.repeats && columns.offsets.count * rows.offsets.count > 100 {
                grid = (Self.cappedRepeat(side: width, markSide: mark.width), Self.cappedRepeat(side: height, markSide: mark.height))
            }
            var pixels = bitmap.pixels
            let cancellation = WorkCancellation.current
            for left in grid.0 {
                try cancellation?.check(ProcessingError.cancelled)
                for top in grid.1 {
                    try Backdrop.paste(mark, into: &pixels, width: width, height: height, bytesPerRow: bitmap.bytesPerRow, x: left, y: top, merges: true)
                }
            }
            return try Backdrop.bitmap(pixels, like: bitmap)
        }

        /// The mark with `alpha` percent of 255 taken from every pixel's opacity.
        func faded() throws(ProcessingError) -> Bitmap {
            let delta = 255 * alpha / 100
            guard delta != 0 else { return mark }
            var pixels = mark.pixels
            for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = UInt8(min(max(Int(pixels[index]) - delta, 0), 255)) }
            return try Backdrop.bitmap(pixels, like: mark)
        }

        /// thumbor's size for the mark within the shares of the image's sides: the mark's ratio
        /// kept, the side that binds decides, Python's rounding.
        static func fittedSize(image: (Int, Int), mark: (Int, Int), widthRatio: Double?, heightRatio: Double?) -> (width: Int, height: Int) {
            let markWidth = Double(mark.0), markHeight = Double(mark.1)
            guard markWidth > 0, markHeight > 0 else { return (0, 0) }
            var maxWidth = widthRatio.map { Double(image.0) * $0 } ?? 0
            var maxHeight = heightRatio.map { Double(image.1) * $0 } ?? 0
            if maxWidth == 0 { maxWidth = markWidth * maxHeight / markHeight }
            if maxHeight == 0 { maxHeight = markHeight * maxWidth / markWidth }
            guard maxWidth > 0, maxHeight > 0 else { return (0, 0) }
            if markWidth / maxWidth >= markHeight / maxHeight {
                return (Self.rounded(maxWidth), Self.rounded(markHeight * maxWidth / markWidth))
            }
            return (Self.rounded(markWidth * maxHeight / markHeight), Self.rounded(maxHeight))
        }

        /// Python's `round`: halves to even; held to a size no image reaches.
        static func rounded(_ value: Double) -> Int { Int(min(max(value.rounded(.toNearestOrEven), -1e9), 1e9)) }

        /// Where the mark starts along an axis of `side` pixels, once or repeated.
        static func placements(_ position: Position, side: Int, markSide: Int) -> (offsets: [Int], repeats: Bool) {
            switch position {
            case .pixels(let value, let fromEnd):
                return ([fromEnd ? side - markSide - value : value], false)
            case .percent(let value, let fromEnd):
                let pixels = rounded(Double(side) * Double(value) / 100 + 1e-5)
                return ([fromEnd ? side - markSide - pixels : pixels], false)
            case .center:
                return ([Int(Double(side - markSide) / 2)], false)
            case .repeat:
                guard markSide > 0 else { return ([], true) }
                var count = side / markSide, remainder = side % markSide
                if side < 2 * markSide {
                    count = (side + markSide - 1) / markSide
                    remainder = 10
                }
                let space = floorDivide(remainder, max(count, 2) - 1)
                return ((0..<count).map { $0 * (space + markSide) }, true)
            }
        }

        /// thumbor's grid when both axes repeat more than 100 times: at most 6 a side, spread over it.
        static func cappedRepeat(side: Int, markSide: Int) -> [Int] {
            let count = min(6, side / max(markSide, 1))
            let space = floorDivide(side - count * markSide, max(count, 2) - 1)
            return (0..<count).map { $0 * (space + markSide) }
        }

        static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
            let quotient = value / divisor
            return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
        }
    }
}
