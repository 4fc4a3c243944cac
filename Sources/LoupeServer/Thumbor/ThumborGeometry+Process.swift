import LoupeCaching
import LoupeCodecs
import LoupeProcessing

/// thumbor's geometry as the pipeline's processor: trim, the plan's crops and resizes, flips,
/// rotation, then the filters and `fill`'s canvas, in thumbor's order (transform, then the
/// filters that run after it).
struct ThumborGeometryStep: ImageProcessing {
    let geometry: ThumborGeometry
    /// `rotate(n)` as clockwise degrees (0, 90, 180, 270).
    let rotate: Int
    /// The pixel filters (blur, ...), after the transform and before `fill`.
    let filters: [any ImageProcessing]
    /// The server's largest result side: a plan past it and past the source is refused before
    /// its pixels are made.
    let resultLimit: Int
    /// The request's cost limit and what its URL adds to the geometry's cost, checked from the
    /// source's header before a pixel is decoded; `nil` checks nothing.
    var cost: RequestCostCheck?

    var identifier: String {
        "loupe.thumbor(\(geometry.resultKeyText);rot=\(rotate);limit=\(resultLimit);filters=\(filters.map(\.identifier).joined(separator: ","))"
            + (cost.map { ";cost=\($0.key)" } ?? "") + ")"
    }

    /// An animation's frames, each through the same steps, without the trim (it would cut each
    /// frame to its own content, and the frames must keep one size, as imgproxy leaves it out
    /// too), and with `smart`'s points found once, on the first frame (a cut that moved from
    /// frame to frame would shake). All frames together may not grow past the larger of the
    /// source's frames and one result at the side limit, checked before any is made.
    func process(frames: [Bitmap]) throws(ProcessingError) -> [Bitmap] {
        guard let first = frames.first else { return [] }
        guard frames.count > 1 else { return [try process(first)] }
        var untrimmed = geometry
        untrimmed.trim = nil
        let plan = untrimmed.plan(width: first.width, height: first.height)
        let allowed = max(Double(first.width) * Double(first.height) * Double(frames.count), Double(resultLimit) * Double(resultLimit))
        guard Double(plan.width) * Double(plan.height) * Double(frames.count) <= allowed else {
            throw .invalidParameter("\(frames.count) frames of \(plan.width)x\(plan.height) would exceed \(Int(allowed)) pixels in all")
        }
        untrimmed = try untrimmed.smartDetection(in: first).geometry
        let step = ThumborGeometryStep(geometry: untrimmed, rotate: rotate, filters: filters, resultLimit: resultLimit)
        var result: [Bitmap] = []
        result.reserveCapacity(frames.count)
        let cancellation = WorkCancellation.current
        for frame in frames {
            try cancellation?.check(ProcessingError.cancelled)
            result.append(try step.process(frame))
        }
        return result
    }

    func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
        var image = bitmap
        if let trim = geometry.trim {
            let corner = trim.bottomRight ? (image.width - 1, image.height - 1) : (0, 0)
            let offset = corner.1 * image.bytesPerRow + corner.0 * 4
            let color = RGBColor(red: image.pixels[offset], green: image.pixels[offset + 1], blue: image.pixels[offset + 2])
            image = try ImageProcessors.Trim(threshold: Double(trim.tolerance), color: color).process(image)
        }
        // The sizes do not depend on the focal points: checked before any detection.
        let sized = geometry.plan(width: image.width, height: image.height)
        try checkLimits(sized, sourceWidth: bitmap.width, sourceHeight: bitmap.height)
        let detection = try geometry.smartDetection(in: image)
        let focused = detection.geometry
        let detected = (width: image.width, height: image.height)
        let plan = geometry.smart ? focused.plan(width: image.width, height: image.height) : sized
        for box in plan.crops {
            image = try ImageProcessors.Crop(x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top).process(image)
        }
        for size in plan.resizes where size.width != image.width || size.height != image.height {
            image = try ImageProcessors.Resize(width: size.width, height: size.height, mode: .exact, allowsUpscaling: true).process(image)
        }
        if focused.redEye, !detection.faces.isEmpty {
            // Where the faces are now: thumbor's own filter reads their boxes in the source's
            // pixels after the transform, which holds only when nothing was cut or scaled.
            let faces = detection.faces.map {
                plan.place($0, width: detected.width, height: detected.height, resultWidth: image.width, resultHeight: image.height)
            }
            image = try ImageProcessors.RedEye(faces: faces).process(image)
        }
        return try finish(image, geometry: focused, plan: plan)
    }

    /// What follows the crops and resizes: flips and rotation, the filters, then `fill`'s canvas.
    private func finish(_ transformed: Bitmap, geometry focused: ThumborGeometry, plan: ThumborGeometry.Plan) throws(ProcessingError) -> Bitmap {
        var image = transformed
        if focused.flipHorizontal || focused.flipVertical || rotate % 360 != 0 {
            image = try ImageProcessors.RotateFlip(degrees: rotate, flipHorizontal: focused.flipHorizontal, flipVertical: focused.flipVertical).process(image)
        }
        for filter in filters { image = try filter.process(image) }
        if focused.fillsBox, plan.fillWidth > image.width || plan.fillHeight > image.height {
            // Centred as thumbor pastes it: the free space halved, rounded down.
            let width = max(plan.fillWidth, image.width), height = max(plan.fillHeight, image.height)
            if let style = focused.fillStyle {
                image = try ImageProcessors.Backdrop(width: width, height: height, style: style, merges: focused.fillMerges).process(image)
            } else {
                image = try ImageProcessors.Extend(width: width, height: height, x: (width - image.width) / 2, y: (height - image.height) / 2).process(image)
            }
        }
        return image
    }

    /// Refuses, before its pixels are made, a plan whose result or any resize along the way is
    /// longer than the server's limit and than the source.
    private func checkLimits(_ plan: ThumborGeometry.Plan, sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) {
        let largest = max(plan.width, plan.height, plan.resizes.map { max($0.width, $0.height) }.max() ?? 0)
        guard largest <= resultLimit || largest <= max(sourceWidth, sourceHeight) else {
            throw .invalidParameter("the result (\(plan.width)x\(plan.height)) would exceed \(resultLimit) pixels per side")
        }
    }
}

extension ThumborGeometryStep: SourceScaledProcessing {
    /// The geometry for one source, planned from its header before the decode.
    struct SourcePlan: Sendable {
        /// The source's upright size.
        var sourceWidth: Int, sourceHeight: Int
        /// The crops and resizes, when the source's size alone decides them; `nil` when pixels
        /// come first (a trim, or the detection of `smart` and `red_eye`), and the plan is made
        /// on the full decode as thumbor makes it.
        var sized: ThumborGeometry.Plan?
    }

    func plan(sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) -> SourcePlan {
        var sourcePlan = SourcePlan(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        guard geometry.trim == nil else { return sourcePlan }
        let sized = geometry.plan(width: sourceWidth, height: sourceHeight)
        try checkLimits(sized, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        // `smart` detects only when there is a cut to place or red eyes to find.
        if !geometry.smart || (sized.focusCrop == nil && !geometry.redEye) { sourcePlan.sized = sized }
        return sourcePlan
    }

    /// The largest scale any of the plan's resizes takes the cropped source to (thumbor's PIL
    /// engine drafts a JPEG to its resize too, when nothing is cut before it).
    func minimumSourceScale(for plan: SourcePlan) -> Double {
        guard let sized = plan.sized, !sized.resizes.isEmpty else { return 1 }
        let cropped = Self.cropWindow(sized, sourceWidth: plan.sourceWidth, sourceHeight: plan.sourceHeight)
        let scale = sized.resizes.map { max(Double($0.width) / Double(max(1, cropped.width)), Double($0.height) / Double(max(1, cropped.height))) }.max() ?? 1
        return scale.isFinite && scale > 0 ? min(scale, 1) : 1
    }

    /// The request's cost on this source, from its header alone, against its limit. A plan over
    /// the size limit is left to that check, which names the cause more exactly.
    func checkSource(_ metadata: ImageMetadata, bytes: Int, maximumFrames: Int) throws {
        guard let cost else { return }
        let (width, height) = RequestCostCheck.uprightSize(of: metadata)
        guard (try? plan(sourceWidth: width, sourceHeight: height)) != nil else { return }
        try cost.check(self, source: metadata, maximumFrames: maximumFrames)
    }

    /// With a decode smaller than the source, the crops and the first resize are one resample of
    /// the part of the decode the crops keep; at full size, as thumbor does it step by step.
    func process(_ bitmap: Bitmap, plan sourcePlan: SourcePlan) throws(ProcessingError) -> Bitmap {
        let (sourceWidth, sourceHeight) = (sourcePlan.sourceWidth, sourcePlan.sourceHeight)
        guard let sized = sourcePlan.sized, let first = sized.resizes.first,
              bitmap.width <= sourceWidth, bitmap.height <= sourceHeight, bitmap.width < sourceWidth || bitmap.height < sourceHeight
        else { return try process(bitmap) }
        let window = Self.cropWindow(sized, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        let scaleX = Double(bitmap.width) / Double(sourceWidth), scaleY = Double(bitmap.height) / Double(sourceHeight)
        var image = try ImageProcessors.RegionResize(x: Double(window.x) * scaleX, y: Double(window.y) * scaleY,
                                     width: Double(window.width) * scaleX, height: Double(window.height) * scaleY,
                                     outputWidth: first.width, outputHeight: first.height).process(bitmap)
        for size in sized.resizes.dropFirst() where size.width != image.width || size.height != image.height {
            image = try ImageProcessors.Resize(width: size.width, height: size.height, mode: .exact, allowsUpscaling: true).process(image)
        }
        return try finish(image, geometry: geometry, plan: sized)
    }

    /// The part of the source the plan's crops keep (each crop is in the pixels of the one before).
    private static func cropWindow(_ plan: ThumborGeometry.Plan, sourceWidth: Int, sourceHeight: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        var window = (x: 0, y: 0, width: sourceWidth, height: sourceHeight)
        for box in plan.crops {
            window = (window.x + box.left, window.y + box.top, box.right - box.left, box.bottom - box.top)
        }
        return window
    }
}

extension ThumborGeometry: ResultKeyText {
    /// Every part, in one order, each only when away from its default.
    var resultKeyText: String {
        var parts: [String] = []
        if let trim { parts.append("trim=\(trim.bottomRight ? "br" : "tl"),\(trim.tolerance)") }
        if let crop { parts.append("crop=\(crop.left),\(crop.top),\(crop.right),\(crop.bottom)") }
        if fitIn != .none { parts.append("fit=\(fitIn.rawValue)") }
        parts.append("w=\(width.text),h=\(height.text)")
        if flipHorizontal { parts.append("fh") }
        if flipVertical { parts.append("fv") }
        if horizontalAlignment != 0.5 || verticalAlignment != 0.5 { parts.append("align=\(horizontalAlignment),\(verticalAlignment)") }
        if smart { parts.append("smart") }
        if redEye { parts.append("redeye") }
        if upscale { parts.append("up") }
        if noUpscale { parts.append("noup") }
        if stretch { parts.append("stretch") }
        if let proportion { parts.append("prop=\(proportion)") }
        if !focalPoints.isEmpty { parts.append("focal=" + focalPoints.map { "\($0.x),\($0.y),\($0.weight)" }.joined(separator: "|")) }
        if fillsBox { parts.append("fill") }
        if let fillStyle {
            switch fillStyle {
            case .averageColor: parts.append("fillauto")
            case .blurred(let radius): parts.append("fillblur=\(radius)")
            }
        }
        if fillMerges { parts.append("fillmerge") }
        return "{" + parts.joined(separator: ";") + "}"
    }
}

extension ThumborGeometry.Side {
    var text: String {
        switch self {
        case .pixels(let value): String(value)
        case .original: "orig"
        }
    }
}
