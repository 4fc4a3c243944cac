import LoupeCodecs

extension ImageProcessors {
    /// Resizes into a box the way image services do (imgproxy's `resize` modes): either side of
    /// the box may be left open (0: it follows the aspect ratio), a `fill` is cut with a
    /// ``Gravity``, and enlarging is off unless asked for.
    ///
    /// ``Resize`` covers a fixed box with a centred cut; this is the service-facing form, so a URL's
    /// options map onto one processor whose identifier names all of them.
    public struct BoxResize: ImageProcessing {
        /// How the image maps onto the box.
        public enum Mode: String, Sendable, Hashable, CaseIterable {
            /// Inside the box, aspect ratio kept.
            case fit
            /// Covers the box, aspect ratio kept, the overflow cut at the gravity. Without
            /// enlarging, a smaller image gives a smaller result (never larger than the box).
            case fill
            /// As `fill`; a smaller image is cut to the box's aspect ratio at scale 1.
            case fillDown = "fill-down"
            /// Exactly the box; the aspect ratio may change.
            case force
            /// `fill` when the image and the box are both portrait or both landscape, else `fit`.
            case auto
        }

        /// Box width in pixels; 0 leaves it open.
        public let width: Int
        /// Box height in pixels; 0 leaves it open.
        public let height: Int
        /// How to map onto the box.
        public let mode: Mode
        /// Whether an image smaller than the box may be scaled up.
        public let enlarge: Bool
        /// Where `fill` and `fill-down` cut.
        public let gravity: Gravity
        /// The windowed filter.
        public let filter: ResamplingFilter

        /// A resize into `width`×`height` (0 for an open side; both 0 leaves the image as it is).
        public init(width: Int, height: Int, mode: Mode = .fit, enlarge: Bool = false, gravity: Gravity = .center,
                    filter: ResamplingFilter = .lanczos3) {
            self.width = width
            self.height = height
            self.mode = mode
            self.enlarge = enlarge
            self.gravity = gravity
            self.filter = filter
        }

        public var identifier: String {
            "loupe.box(\(width)x\(height),\(mode.rawValue),\(enlarge ? "up" : "noup"),\(gravity.identifier),\(filter.rawValue))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            try Resize.checkResultSize(width: width, height: height, allowingZero: true)
            guard width > 0 || height > 0 else { return bitmap }
            var plan = self.plan(sourceWidth: bitmap.width, sourceHeight: bitmap.height)
            if gravity.anchor == .smart {
                // The cut's size is the plan's; only where it sits depends on the pixels.
                let atScaleOne = Double(plan.width) == plan.region.width && Double(plan.height) == plan.region.height
                let origin = SmartCrop.origin(in: bitmap, cutWidth: plan.region.width, cutHeight: plan.region.height)
                plan.region.x = atScaleOne ? origin.x.rounded(.down) : origin.x
                plan.region.y = atScaleOne ? origin.y.rounded(.down) : origin.y
            }
            try Resize.checkResultSize(width: plan.width, height: plan.height, allowingZero: true)
            let region = plan.region
            if plan.width == bitmap.width, plan.height == bitmap.height,
               region.x == 0, region.y == 0, region.width == Double(bitmap.width), region.height == Double(bitmap.height) {
                return bitmap
            }
            if Double(plan.width) == region.width, Double(plan.height) == region.height,
               region.x == region.x.rounded(), region.y == region.y.rounded() {
                // Scale 1: a plain cut, exact and cheaper than resampling.
                return try Crop(x: Int(region.x), y: Int(region.y), width: plan.width, height: plan.height).process(bitmap)
            }
            return try Resampler(filter: filter, reducingGap: 2)
                .resample(bitmap, region: region, width: plan.width, height: plan.height)
        }

        /// The output size and the source region mapped onto it.
        func plan(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int, region: Resampler.Region) {
            let w = Double(sourceWidth), h = Double(sourceHeight)
            // An open side follows the image's aspect ratio.
            let tw = width > 0 ? Double(width) : w * Double(height) / h
            let th = height > 0 ? Double(height) : h * Double(width) / w
            func side(_ x: Double) -> Int { max(1, Int(x.rounded())) }
            let whole = Resampler.Region(x: 0, y: 0, width: w, height: h)

            var mode = self.mode
            if mode == .auto { mode = (w >= h) == (tw >= th) ? .fill : .fit }
            switch mode {
            case .fit, .auto:
                var scale = min(tw / w, th / h)
                if !enlarge { scale = min(scale, 1) }
                return (side(w * scale), side(h * scale), whole)
            case .force:
                return (enlarge ? side(tw) : min(side(tw), sourceWidth), enlarge ? side(th) : min(side(th), sourceHeight), whole)
            case .fill, .fillDown:
                var scale = max(tw / w, th / h)
                var outWidth = side(tw), outHeight = side(th)
                if !enlarge, scale > 1 {
                    scale = 1
                    if mode == .fillDown {
                        // The largest box of the target's aspect ratio inside the image.
                        let shrink = min(1, w / tw, h / th)
                        outWidth = min(sourceWidth, side(tw * shrink))
                        outHeight = min(sourceHeight, side(th * shrink))
                    } else {
                        outWidth = min(sourceWidth, outWidth)
                        outHeight = min(sourceHeight, outHeight)
                    }
                }
                let regionWidth = min(w, Double(outWidth) / scale), regionHeight = min(h, Double(outHeight) / scale)
                var x = gravity.origin(length: w, cut: regionWidth, scale: scale, horizontal: true)
                var y = gravity.origin(length: h, cut: regionHeight, scale: scale, horizontal: false)
                if scale == 1 {
                    // Whole pixels at scale 1, so the result is a plain cut.
                    x = x.rounded(.down)
                    y = y.rounded(.down)
                }
                return (outWidth, outHeight, Resampler.Region(x: x, y: y, width: regionWidth, height: regionHeight))
            }
        }
    }
}
