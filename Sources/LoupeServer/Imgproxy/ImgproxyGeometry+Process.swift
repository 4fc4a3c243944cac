import LoupeCodecs
import LoupeProcessing

extension ImgproxyGeometry: SourceScaledProcessing {
    /// An animation's frames, each through the same steps. The trim is left out, as imgproxy
    /// leaves it out for animations: it would cut each frame to its own content, and the
    /// frames must keep one size. All frames together may not grow past the larger of the
    /// source's frames and one result at the side limit, checked before any is made: enlarging
    /// or extending a small many-frame animation would otherwise multiply its memory.
    func process(frames: [Bitmap]) throws(ProcessingError) -> [Bitmap] {
        var geometry = self
        if frames.count > 1, options.trimThreshold != nil {
            var untrimmed = options
            untrimmed.trimThreshold = nil
            geometry = ImgproxyGeometry(options: untrimmed, filters: filters, resultLimit: resultLimit, cost: cost)
        }
        guard let first = frames.first else { return [] }
        // One plan for every frame: they share the canvas's size.
        let sourcePlan = try geometry.plan(sourceWidth: first.width, sourceHeight: first.height)
        if frames.count > 1, let plan = sourcePlan.geometry {
            let framed = framedSize(plan)
            // In Double: a plan's sizes before checkLimits may be far beyond any real image.
            let perFrame = max(Double(framed.width) * Double(framed.height), Double(plan.scaledWidth) * Double(plan.scaledHeight))
            let allowed = max(Double(first.width) * Double(first.height) * Double(frames.count), Double(resultLimit) * Double(resultLimit))
            guard perFrame * Double(frames.count) <= allowed else {
                throw .invalidParameter("\(frames.count) frames of \(framed.width)x\(framed.height) would exceed \(Int(allowed)) pixels in all")
            }
        }
        var result: [Bitmap] = []
        result.reserveCapacity(frames.count)
        for frame in frames { result.append(try geometry.process(frame, plan: sourcePlan)) }
        return result
    }

    func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
        try process(bitmap, plan: plan(sourceWidth: bitmap.width, sourceHeight: bitmap.height))
    }

    /// The geometry for one source, planned once: from the header when the pipeline decodes
    /// for this processor, so the plan and its limits run before the decode and not again.
    struct SourcePlan: Sendable {
        /// The source's upright size.
        var sourceWidth: Int, sourceHeight: Int
        /// The sizes; `nil` when a trim comes first, whose result they depend on (planned then
        /// on the trimmed image).
        var geometry: Plan?
    }

    /// The plan for a `sourceWidth`×`sourceHeight` source (as decoded, before the rotation),
    /// its result checked against the limits.
    func plan(sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) -> SourcePlan {
        guard options.trimThreshold == nil else { return SourcePlan(sourceWidth: sourceWidth, sourceHeight: sourceHeight) }
        let plan = plan(width: sourceWidth, height: sourceHeight)
        try checkLimits(plan, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        return SourcePlan(sourceWidth: sourceWidth, sourceHeight: sourceHeight, geometry: plan)
    }

    /// The plan's scale (the larger of its two axes): the result needs no finer pixels than
    /// that, whatever is cut, rotated, extended or padded around it. Trim and a smart crop
    /// read the source's pixels themselves, so they take the full decode (imgproxy, too,
    /// loads a trimmed image without shrinking it).
    func minimumSourceScale(for plan: SourcePlan) -> Double {
        guard scalesOnLoad, let geometry = plan.geometry, plan.sourceWidth > 0, plan.sourceHeight > 0 else { return 1 }
        let scale = max(geometry.wScale, geometry.hScale)
        return scale.isFinite && scale > 0 ? min(scale, 1) : 1
    }

    /// The request's cost on this source, from its header alone, against its limit. A result
    /// over the size limits is left to those (imgproxy's `max_result_dimension` error, raised
    /// before the result is allocated), which name the cause more exactly than its cost would.
    func checkSource(_ metadata: ImageMetadata, bytes: Int, maximumFrames: Int) throws {
        try options.sourceLimits.check(metadata, bytes: bytes, maximumFrames: maximumFrames)
        guard let cost else { return }
        let (width, height) = RequestCostCheck.uprightSize(of: metadata)
        guard (try? checkLimits(plan(width: width, height: height), sourceWidth: width, sourceHeight: height)) != nil else { return }
        try cost.check(self, source: metadata, maximumFrames: maximumFrames)
    }

    /// Whether these options may run on a smaller decode of the source.
    private var scalesOnLoad: Bool {
        let crops = options.cropWidth != 0 || options.cropHeight != 0
        return options.trimThreshold == nil && !(crops && (options.cropGravity ?? options.gravity).anchor == .smart)
    }

    func process(_ bitmap: Bitmap, plan sourcePlan: SourcePlan) throws(ProcessingError) -> Bitmap {
        var image = bitmap
        let (sourceWidth, sourceHeight) = (sourcePlan.sourceWidth, sourcePlan.sourceHeight)
        // A decode smaller than the source: the plan is the source's, and `region` is the part
        // of the decode that the image so far (`width`×`height` source pixels) covers; it is
        // resampled once, by the scale, so the cut before it costs nothing.
        let decodedSmaller = scalesOnLoad && bitmap.width <= sourceWidth && bitmap.height <= sourceHeight
            && (bitmap.width < sourceWidth || bitmap.height < sourceHeight)
        var region: Region? = decodedSmaller ? Region(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height)) : nil
        var (width, height) = decodedSmaller ? (sourceWidth, sourceHeight) : (image.width, image.height)
        if let threshold = options.trimThreshold {
            image = try ImageProcessors.Trim(threshold: threshold, color: options.trimColor, equalHorizontal: options.trimEqualHorizontal,
                             equalVertical: options.trimEqualVertical).process(image)
            (width, height) = (image.width, image.height)
        }
        let plan: Plan
        if let planned = sourcePlan.geometry {
            plan = planned
        } else {
            plan = self.plan(width: width, height: height)
            try checkLimits(plan, sourceWidth: width, sourceHeight: height)
        }
        let turned = options.rotate % 180 != 0

        // The crop, on the image before it is turned: its size and gravity turned back.
        if plan.cropWidth > 0 || plan.cropHeight > 0 {
            let gravity = (options.cropGravity ?? options.gravity)
                .beforeRotation(degrees: options.rotate, flipX: options.flipHorizontal, flipY: options.flipVertical)
            let cropWidth = turned ? plan.cropHeight : plan.cropWidth, cropHeight = turned ? plan.cropWidth : plan.cropHeight
            if let whole = region {
                if let window = Self.window(width: width, height: height, cutWidth: cropWidth, cutHeight: cropHeight, gravity: gravity, dpr: 1) {
                    region = whole.part(x: window.x, y: window.y, width: window.width, height: window.height, of: (width, height))
                    (width, height) = (window.width, window.height)
                }
            } else {
                image = try Self.cut(image, width: cropWidth, height: cropHeight, gravity: gravity, dpr: 1)
                (width, height) = (image.width, image.height)
            }
        }
        if plan.wScale != 1 || plan.hScale != 1 || region != nil {
            let (wScale, hScale) = turned ? (plan.hScale, plan.wScale) : (plan.wScale, plan.hScale)
            let scaledWidth = max(1, GeometryMath.round(Double(width) * wScale))
            let scaledHeight = max(1, GeometryMath.round(Double(height) * hScale))
            let cutWidth = GeometryMath.minNonZero(plan.resultCropWidth, scaledWidth)
            let cutHeight = GeometryMath.minNonZero(plan.resultCropHeight, scaledHeight)
            let source = region ?? Region(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
            if options.rotate == 0, !options.flipHorizontal, !options.flipVertical, options.gravity.anchor != .smart,
               cutWidth < scaledWidth || cutHeight < scaledHeight {
                // The scale and the cut to the result box at once: only the pixels the cut
                // keeps are resampled (the cut below then has nothing left to do).
                let origin = options.gravity.position(width: scaledWidth, height: scaledHeight, innerWidth: cutWidth, innerHeight: cutHeight,
                                                      dpr: plan.dprScale)
                let kept = source.part(x: origin.x, y: origin.y, width: cutWidth, height: cutHeight, of: (scaledWidth, scaledHeight))
                image = try ImageProcessors.RegionResize(x: kept.x, y: kept.y, width: kept.width, height: kept.height,
                                         outputWidth: cutWidth, outputHeight: cutHeight).process(image)
            } else if region != nil {
                image = try ImageProcessors.RegionResize(x: source.x, y: source.y, width: source.width, height: source.height,
                                         outputWidth: scaledWidth, outputHeight: scaledHeight).process(image)
            } else if scaledWidth != image.width || scaledHeight != image.height {
                image = try ImageProcessors.Resize(width: scaledWidth, height: scaledHeight, mode: .exact, allowsUpscaling: true).process(image)
            }
            region = nil
        }
        if options.rotate % 360 != 0 || options.flipHorizontal || options.flipVertical {
            image = try ImageProcessors.RotateFlip(degrees: options.rotate, flipHorizontal: options.flipHorizontal,
                                   flipVertical: options.flipVertical).process(image)
        }
        image = try Self.cut(image, width: plan.resultCropWidth, height: plan.resultCropHeight, gravity: options.gravity, dpr: plan.dprScale)
        for filter in filters { image = try filter.process(image) }
        if options.extend {
            image = try Self.embed(image, width: plan.targetWidth, height: plan.targetHeight, gravity: options.extendGravity, dpr: plan.dprScale)
        }
        if options.extendAspectRatio, plan.aspectWidth > 0, plan.aspectHeight > 0 {
            image = try Self.embed(image, width: plan.aspectWidth, height: plan.aspectHeight,
                                   gravity: options.extendAspectRatioGravity, dpr: plan.dprScale)
        }
        let padding = scaledPadding(plan)
        if padding.top != 0 || padding.right != 0 || padding.bottom != 0 || padding.left != 0 {
            image = try ImageProcessors.Extend(width: image.width + padding.left + padding.right, height: image.height + padding.top + padding.bottom,
                               x: padding.left, y: padding.top).process(image)
        }
        return image
    }

    /// A rectangle of the decoded pixels (fractional where the decode is smaller than the
    /// source), standing for a whole image of some size in source pixels.
    struct Region {
        var x: Double, y: Double, width: Double, height: Double

        /// The part of this rectangle that the window (`x`, `y`, `width`×`height`) of the
        /// `size` image it stands for covers.
        func part(x left: Int, y top: Int, width partWidth: Int, height partHeight: Int, of size: (width: Int, height: Int)) -> Region {
            let scaleX = width / Double(max(1, size.width)), scaleY = height / Double(max(1, size.height))
            return Region(x: x + Double(left) * scaleX, y: y + Double(top) * scaleY,
                          width: Double(partWidth) * scaleX, height: Double(partHeight) * scaleY)
        }
    }

    /// Refuses, before anything is allocated, a result that the options would make larger than
    /// the server's limit and than the source.
    func checkLimits(_ plan: Plan, sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) {
        let framed = framedSize(plan)
        let largest = max(framed.width, framed.height, plan.scaledWidth, plan.scaledHeight)
        guard largest > resultLimit, largest > max(sourceWidth, sourceHeight) else { return }
        // The scaled image before its cut may be what is too long: the message names it then.
        if max(plan.scaledWidth, plan.scaledHeight) > max(framed.width, framed.height) {
            throw .invalidParameter("the image scaled to \(plan.scaledWidth)x\(plan.scaledHeight) (before its cut to \(framed.width)x\(framed.height)) "
                + "would exceed \(resultLimit) pixels per side")
        }
        throw .invalidParameter("the result (\(framed.width)x\(framed.height)) would exceed \(resultLimit) pixels per side")
    }

    /// imgproxy's cut: a `width`×`height` window (0: the whole side) placed by `gravity`; none
    /// when the window holds the whole image.
    static func cut(_ image: Bitmap, width: Int, height: Int, gravity: Gravity, dpr: Double) throws(ProcessingError) -> Bitmap {
        guard width > 0 || height > 0 else { return image }
        if gravity.anchor == .smart {
            let cutWidth = GeometryMath.minNonZero(width, image.width), cutHeight = GeometryMath.minNonZero(height, image.height)
            guard cutWidth < image.width || cutHeight < image.height else { return image }
            return try ImageProcessors.SmartCut(width: cutWidth, height: cutHeight).process(image)
        }
        guard let window = window(width: image.width, height: image.height, cutWidth: width, cutHeight: height, gravity: gravity, dpr: dpr)
        else { return image }
        return try ImageProcessors.Crop(x: window.x, y: window.y, width: window.width, height: window.height).process(image)
    }

    /// Where imgproxy's cut of a `cutWidth`×`cutHeight` window (0: the whole side) lies in a
    /// `width`×`height` image, placed by `gravity` (not smart); nil when it holds the whole image.
    static func window(width: Int, height: Int, cutWidth: Int, cutHeight: Int, gravity: Gravity,
                       dpr: Double) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard cutWidth > 0 || cutHeight > 0 else { return nil }
        let innerWidth = GeometryMath.minNonZero(cutWidth, width), innerHeight = GeometryMath.minNonZero(cutHeight, height)
        guard innerWidth < width || innerHeight < height else { return nil }
        let origin = gravity.position(width: width, height: height, innerWidth: innerWidth, innerHeight: innerHeight, dpr: dpr)
        return (origin.x, origin.y, innerWidth, innerHeight)
    }

    /// imgproxy's embedding: the image on a transparent `width`×`height` canvas (0: its own
    /// side) placed by `gravity`; none when the canvas is not larger.
    static func embed(_ image: Bitmap, width: Int, height: Int, gravity: Gravity, dpr: Double) throws(ProcessingError) -> Bitmap {
        guard width > image.width || height > image.height else { return image }
        let canvasWidth = width > 0 ? width : image.width, canvasHeight = height > 0 ? height : image.height
        let origin = gravity.position(width: canvasWidth, height: canvasHeight, innerWidth: image.width, innerHeight: image.height, dpr: dpr)
        return try ImageProcessors.Extend(width: canvasWidth, height: canvasHeight, x: origin.x, y: origin.y).process(image)
    }
}
