import LoupeCodecs
import LoupeProcessing

extension ImgproxyGeometry {
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
            geometry = ImgproxyGeometry(options: untrimmed, filters: filters, resultLimit: resultLimit)
        }
        if frames.count > 1, let first = frames.first {
            let plan = geometry.plan(width: first.width, height: first.height)
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
        for frame in frames { result.append(try geometry.process(frame)) }
        return result
    }

    func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
        var image = bitmap
        if let threshold = options.trimThreshold {
            image = try Trim(threshold: threshold, color: options.trimColor, equalHorizontal: options.trimEqualHorizontal,
                             equalVertical: options.trimEqualVertical).process(image)
        }
        let plan = self.plan(width: image.width, height: image.height)
        try checkLimits(plan, sourceWidth: image.width, sourceHeight: image.height)
        let turned = options.rotate % 180 != 0

        // The crop, on the image before it is turned: its size and gravity turned back.
        if plan.cropWidth > 0 || plan.cropHeight > 0 {
            let gravity = (options.cropGravity ?? options.gravity)
                .beforeRotation(degrees: options.rotate, flipX: options.flipHorizontal, flipY: options.flipVertical)
            image = try Self.cut(image, width: turned ? plan.cropHeight : plan.cropWidth, height: turned ? plan.cropWidth : plan.cropHeight,
                                 gravity: gravity, dpr: 1)
        }
        if plan.wScale != 1 || plan.hScale != 1 {
            let (wScale, hScale) = turned ? (plan.hScale, plan.wScale) : (plan.wScale, plan.hScale)
            let width = max(1, GeometryMath.round(Double(image.width) * wScale))
            let height = max(1, GeometryMath.round(Double(image.height) * hScale))
            let cutWidth = GeometryMath.minNonZero(plan.resultCropWidth, width)
            let cutHeight = GeometryMath.minNonZero(plan.resultCropHeight, height)
            if options.rotate == 0, !options.flipHorizontal, !options.flipVertical, options.gravity.kind != .smart,
               cutWidth < width || cutHeight < height {
                // The scale and the cut to the result box at once: only the pixels the cut
                // keeps are resampled (the cut below then has nothing left to do).
                let origin = options.gravity.position(width: width, height: height, innerWidth: cutWidth, innerHeight: cutHeight,
                                                      dpr: plan.dprScale)
                let scaleX = Double(image.width) / Double(width), scaleY = Double(image.height) / Double(height)
                image = try RegionResize(x: Double(origin.x) * scaleX, y: Double(origin.y) * scaleY, width: Double(cutWidth) * scaleX,
                                         height: Double(cutHeight) * scaleY, outputWidth: cutWidth, outputHeight: cutHeight).process(image)
            } else if width != image.width || height != image.height {
                image = try Resize(width: width, height: height, mode: .exact, allowsUpscaling: true).process(image)
            }
        }
        if options.rotate % 360 != 0 || options.flipHorizontal || options.flipVertical {
            image = try RotateFlip(degrees: options.rotate, flipHorizontal: options.flipHorizontal,
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
            image = try Extend(width: image.width + padding.left + padding.right, height: image.height + padding.top + padding.bottom,
                               x: padding.left, y: padding.top).process(image)
        }
        return image
    }

    /// Refuses, before anything is allocated, a result that the options would make larger than
    /// the server's limit and than the source.
    func checkLimits(_ plan: Plan, sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) {
        let framed = framedSize(plan)
        let largest = max(framed.width, framed.height, plan.scaledWidth, plan.scaledHeight)
        guard largest > resultLimit, largest > max(sourceWidth, sourceHeight) else { return }
        throw .invalidParameter("the result (\(framed.width)x\(framed.height)) would exceed \(resultLimit) pixels per side")
    }

    /// imgproxy's cut: a `width`×`height` window (0: the whole side) placed by `gravity`; none
    /// when the window holds the whole image.
    static func cut(_ image: Bitmap, width: Int, height: Int, gravity: ImgproxyGravity, dpr: Double) throws(ProcessingError) -> Bitmap {
        guard width > 0 || height > 0 else { return image }
        let cutWidth = GeometryMath.minNonZero(width, image.width), cutHeight = GeometryMath.minNonZero(height, image.height)
        guard cutWidth < image.width || cutHeight < image.height else { return image }
        if gravity.kind == .smart { return try SmartCut(width: cutWidth, height: cutHeight).process(image) }
        let origin = gravity.position(width: image.width, height: image.height, innerWidth: cutWidth, innerHeight: cutHeight, dpr: dpr)
        return try Crop(x: origin.x, y: origin.y, width: cutWidth, height: cutHeight).process(image)
    }

    /// imgproxy's embedding: the image on a transparent `width`×`height` canvas (0: its own
    /// side) placed by `gravity`; none when the canvas is not larger.
    static func embed(_ image: Bitmap, width: Int, height: Int, gravity: ImgproxyGravity, dpr: Double) throws(ProcessingError) -> Bitmap {
        guard width > image.width || height > image.height else { return image }
        let canvasWidth = width > 0 ? width : image.width, canvasHeight = height > 0 ? height : image.height
        let origin = gravity.position(width: canvasWidth, height: canvasHeight, innerWidth: image.width, innerHeight: image.height, dpr: dpr)
        return try Extend(width: canvasWidth, height: canvasHeight, x: origin.x, y: origin.y).process(image)
    }
}
