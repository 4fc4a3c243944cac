import LoupeCodecs

extension ImageProcessors {
    /// Scales a bitmap to a target size: high-quality downscaling (box pre-reduction by whole
    /// factors for large shrinks, then Lanczos-3 or Catmull-Rom on premultiplied pixels, so
    /// transparent pixels never tint their neighbours).
    ///
    /// It runs after the decoder's own shrinking (JPEG DCT scaling via
    /// `DecodingOptions.maxPixelSize`), so a 24 MP JPEG made into a 256 px thumbnail is decoded at
    /// 1/8 scale and only that is resampled here.
    public struct Resize: ImageProcessing {
        /// How the image maps onto the target box.
        public enum Mode: String, Sendable, Hashable {
            /// Scale to fit inside the box, keeping the aspect ratio (one side may be shorter).
            case fit
            /// Scale to cover the box, keeping the aspect ratio, and cut the overflow equally from
            /// both sides (centre crop). The result is exactly the box.
            case fill
            /// Scale each axis to the box independently (the aspect ratio may change).
            case exact
        }

        /// Largest output this step will allocate (256 MP): bigger targets are refused before any
        /// allocation.
        public static let maxPixelCount = 1 << 28

        /// Refuses a `width`×`height` result before it is allocated: a side under 1 (under 0 with
        /// `allowingZero`, for sizes where 0 means "from the other side"), or more pixels than
        /// ``maxPixelCount``. Every step that allocates its result checks the size here first.
        static func checkResultSize(width: Int, height: Int, allowingZero: Bool = false) throws(ProcessingError) {
            let least = allowingZero ? 0 : 1
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            guard width >= least, height >= least, !overflow, pixels <= maxPixelCount else {
                throw .invalidSize(width: width, height: height)
            }
        }

        /// Target width in pixels.
        public let width: Int
        /// Target height in pixels.
        public let height: Int
        /// How to map onto the target.
        public let mode: Mode
        /// Whether an image smaller than the target may be enlarged. When false (the default) a
        /// smaller image is never scaled up: `fit` keeps its size, `fill` centre-crops the largest
        /// region of the box's aspect ratio at scale 1, `exact` clamps each axis to the source size.
        public let allowsUpscaling: Bool
        /// The windowed filter.
        public let filter: ResamplingFilter

        /// Creates a resize to `width`×`height` (checked when it runs: both must be positive and
        /// their product at most `maxPixelCount`).
        public init(width: Int, height: Int, mode: Mode = .fit, allowsUpscaling: Bool = false,
                    filter: ResamplingFilter = .lanczos3) {
            self.width = width
            self.height = height
            self.mode = mode
            self.allowsUpscaling = allowsUpscaling
            self.filter = filter
        }

        /// A resize so that the longest side is at most `maxPixelSize` (a square `fit` box).
        public init(maxPixelSize: Int, filter: ResamplingFilter = .lanczos3) {
            self.init(width: maxPixelSize, height: maxPixelSize, mode: .fit, filter: filter)
        }

        public var identifier: String {
            "loupe.resize(\(width)x\(height),\(mode.rawValue),\(allowsUpscaling ? "up" : "noup"),\(filter.rawValue))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            try Self.checkResultSize(width: width, height: height)
            let plan = self.plan(sourceWidth: bitmap.width, sourceHeight: bitmap.height)
            let w = Double(bitmap.width), h = Double(bitmap.height)
            if plan.width == bitmap.width, plan.height == bitmap.height,
               plan.region.x == 0, plan.region.y == 0, plan.region.width == w, plan.region.height == h {
                return bitmap
            }
            if Double(plan.width) == plan.region.width, Double(plan.height) == plan.region.height {
                // Scale 1 in both axes (fill without upscaling): cutting is exact and cheaper.
                return try Crop(x: Int(plan.region.x), y: Int(plan.region.y), width: plan.width, height: plan.height).process(bitmap)
            }
            return try Resampler(filter: filter, reducingGap: 2)
                .resample(bitmap, region: plan.region, width: plan.width, height: plan.height)
        }

        /// Output size and the source region that maps onto it.
        func plan(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int, region: Resampler.Region) {
            let w = Double(sourceWidth), h = Double(sourceHeight)
            let tw = Double(width), th = Double(height)
            let whole = Resampler.Region(x: 0, y: 0, width: w, height: h)
            func side(_ x: Double) -> Int { max(1, Int(x.rounded())) }
            switch mode {
            case .fit:
                var scale = min(tw / w, th / h)
                if !allowsUpscaling { scale = min(scale, 1) }
                // The side that decides the scale hits the box exactly, free of rounding.
                return (scale == tw / w ? width : side(w * scale), scale == th / h ? height : side(h * scale), whole)
            case .fill:
                var scale = max(tw / w, th / h)
                var outWidth = width, outHeight = height
                if !allowsUpscaling, scale > 1 {
                    // The largest box of the target's aspect ratio inside the source, at scale 1.
                    scale = 1
                    let shrink = min(1, w / tw, h / th)
                    outWidth = min(sourceWidth, side(tw * shrink))
                    outHeight = min(sourceHeight, side(th * shrink))
                }
                let regionWidth = min(w, Double(outWidth) / scale), regionHeight = min(h, Double(outHeight) / scale)
                // At scale 1 the region is whole pixels, so the result is a plain crop.
                let region = Resampler.Region(x: ((w - regionWidth) / 2).rounded(.down), y: ((h - regionHeight) / 2).rounded(.down),
                                              width: regionWidth, height: regionHeight)
                return (outWidth, outHeight, region)
            case .exact:
                let outWidth = allowsUpscaling ? width : min(width, sourceWidth)
                let outHeight = allowsUpscaling ? height : min(height, sourceHeight)
                return (outWidth, outHeight, whole)
            }
        }
    }
}
