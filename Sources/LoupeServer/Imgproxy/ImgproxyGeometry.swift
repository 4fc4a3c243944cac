import LoupeCodecs
import LoupeProcessing

/// imgproxy's geometry for one URL's options: what size the image is scaled to, where it is
/// cut, how far it is extended and padded, computed as imgproxy computes it (same order, same
/// rounding), so a result has imgproxy's size for the same source and URL.
///
/// The sizes depend on the decoded image's, so the plan is made when the processor runs. The
/// order of work is imgproxy's: trim, crop, scale, rotate and flip, cut to the result box,
/// filters, extend, extend to the aspect ratio, padding.
struct ImgproxyGeometry: ImageProcessing {
    /// The URL's options (only the geometry ones are read).
    let options: ProcessingOptions
    /// Filters (blur, ...), run after the cut to the result box and before extend and padding.
    let filters: [any ImageProcessing]
    /// The server's largest result side: a result that extend, padding, zoom, dpr or enlarging
    /// would make larger than both this and the source is refused before it is allocated.
    let resultLimit: Int
    /// The request's cost limit and what its URL adds to the geometry's cost, checked from the
    /// source's header before a pixel is decoded; `nil` checks nothing.
    var cost: RequestCostCheck?

    var identifier: String {
        "loupe.imgproxy(\(options.geometryKey);limit=\(resultLimit);filters=\(filters.map(\.identifier).joined(separator: ","))"
            + (cost.map { ";cost=\($0.key)" } ?? "") + (options.sourceLimits.isEmpty ? "" : ";source=\(options.sourceLimits.key)") + ")"
    }

    /// The sizes imgproxy derives from the (trimmed) image's size and the options.
    struct Plan: Equatable {
        /// The image's size as the result is oriented (after the rotation).
        var sourceWidth = 0, sourceHeight = 0
        /// `crop`'s size in pixels (0: not cut on that side).
        var cropWidth = 0, cropHeight = 0
        var wScale = 1.0, hScale = 1.0, dprScale = 1.0
        /// The box asked for, after dpr and zoom (0: open).
        var targetWidth = 0, targetHeight = 0
        /// The image's size after the scale.
        var scaledWidth = 0, scaledHeight = 0
        /// The cut to the result box (0: open).
        var resultCropWidth = 0, resultCropHeight = 0
        /// `extend_aspect_ratio`'s canvas (0: none).
        var aspectWidth = 0, aspectHeight = 0
    }

    /// The plan for a `width`×`height` image (as decoded, before the rotation).
    func plan(width: Int, height: Int) -> Plan {
        var plan = Plan()
        let turned = options.rotate % 180 != 0
        plan.sourceWidth = turned ? height : width
        plan.sourceHeight = turned ? width : height
        plan.cropWidth = Self.cropSize(plan.sourceWidth, options.cropWidth)
        plan.cropHeight = Self.cropSize(plan.sourceHeight, options.cropHeight)
        let widthToScale = GeometryMath.minNonZero(plan.cropWidth, plan.sourceWidth)
        let heightToScale = GeometryMath.minNonZero(plan.cropHeight, plan.sourceHeight)
        calculateScale(&plan, widthToScale, heightToScale)
        calculateSizes(&plan, widthToScale, heightToScale)
        limitScale(&plan, widthToScale, heightToScale)
        return plan
    }

    /// A crop argument in pixels: 0 is none, 1 or more is pixels, less is a share of the side.
    static func cropSize(_ side: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return GeometryMath.int(crop.rounded(.towardZero)) }
        return max(1, GeometryMath.scale(side, crop))
    }

    private func calculateScale(_ plan: inout Plan, _ widthToScale: Int, _ heightToScale: Int) {
        var wShrink = 1.0, hShrink = 1.0
        let sourceWidth = Double(widthToScale), sourceHeight = Double(heightToScale)
        let width = options.width, height = options.height
        let destinationWidth = width != 0 ? Double(width) : sourceWidth
        let destinationHeight = height != 0 ? Double(height) : sourceHeight
        if destinationWidth != sourceWidth { wShrink = sourceWidth / destinationWidth }
        if destinationHeight != sourceHeight { hShrink = sourceHeight / destinationHeight }
        if wShrink != 1 || hShrink != 1 {
            var mode = options.resizingType
            if mode == .auto {
                let sourceLandscape = sourceWidth - sourceHeight >= 0, boxLandscape = destinationWidth - destinationHeight >= 0
                mode = sourceLandscape == boxLandscape ? .fill : .fit
            }
            if width == 0, mode != .force {
                wShrink = hShrink
            } else if height == 0, mode != .force {
                hShrink = wShrink
            } else if mode == .fit {
                wShrink = max(wShrink, hShrink)
                hShrink = wShrink
            } else if mode == .fill || mode == .fillDown {
                wShrink = min(wShrink, hShrink)
                hShrink = wShrink
            }
        }
        wShrink /= options.zoomX
        hShrink /= options.zoomY
        plan.dprScale = options.dpr
        if !options.enlarge {
            let minShrink = min(wShrink, hShrink)
            if minShrink < 1 {
                wShrink /= minShrink
                hShrink /= minShrink
                // The box cannot be reached without enlarging: a dpr below 1 would move the
                // result further from it, so it is compensated (not when extending, where the
                // composition must not depend on the dpr).
                if !options.extend { plan.dprScale /= minShrink }
            }
            plan.dprScale = min(plan.dprScale, min(wShrink, hShrink))
        }
        if options.minWidth > 0 {
            let minShrink = sourceWidth / Double(options.minWidth)
            if minShrink < wShrink {
                hShrink /= wShrink / minShrink
                wShrink = minShrink
            }
        }
        if options.minHeight > 0 {
            let minShrink = sourceHeight / Double(options.minHeight)
            if minShrink < hShrink {
                wShrink /= hShrink / minShrink
                hShrink = minShrink
            }
        }
        wShrink /= plan.dprScale
        hShrink /= plan.dprScale
        wShrink = min(wShrink, sourceWidth)
        hShrink = min(hShrink, sourceHeight)
        plan.wScale = 1 / wShrink
        plan.hScale = 1 / hShrink
    }

    private func calculateSizes(_ plan: inout Plan, _ widthToScale: Int, _ heightToScale: Int) {
        plan.targetWidth = GeometryMath.scale(options.width, plan.dprScale * options.zoomX)
        plan.targetHeight = GeometryMath.scale(options.height, plan.dprScale * options.zoomY)
        plan.scaledWidth = GeometryMath.scale(widthToScale, plan.wScale)
        plan.scaledHeight = GeometryMath.scale(heightToScale, plan.hScale)
        plan.resultCropWidth = plan.targetWidth
        plan.resultCropHeight = plan.targetHeight
        if options.resizingType == .fillDown, !options.enlarge, plan.scaledWidth > 0, plan.scaledHeight > 0 {
            let diffW = Double(plan.targetWidth) / Double(plan.scaledWidth)
            let diffH = Double(plan.targetHeight) / Double(plan.scaledHeight)
            if diffW > diffH, diffW > 1 {
                // The largest box of the asked aspect ratio the scaled image holds.
                plan.resultCropHeight = GeometryMath.scale(plan.scaledWidth, Double(plan.targetHeight) / Double(plan.targetWidth))
                plan.resultCropWidth = plan.scaledWidth
            } else if diffH > diffW, diffH > 1 {
                plan.resultCropWidth = GeometryMath.scale(plan.scaledHeight, Double(plan.targetWidth) / Double(plan.targetHeight))
                plan.resultCropHeight = plan.scaledHeight
            }
        }
        if options.extendAspectRatio, plan.targetWidth > 0, plan.targetHeight > 0 {
            let outWidth = GeometryMath.minNonZero(plan.scaledWidth, plan.resultCropWidth)
            let outHeight = GeometryMath.minNonZero(plan.scaledHeight, plan.resultCropHeight)
            guard outWidth > 0, outHeight > 0 else { return }
            let diffW = Double(plan.targetWidth) / Double(outWidth)
            let diffH = Double(plan.targetHeight) / Double(outHeight)
            if diffH > diffW {
                plan.aspectHeight = GeometryMath.scale(outWidth, Double(plan.targetHeight) / Double(plan.targetWidth))
                plan.aspectWidth = outWidth
            } else if diffW > diffH {
                plan.aspectWidth = GeometryMath.scale(outHeight, Double(plan.targetWidth) / Double(plan.targetHeight))
                plan.aspectHeight = outHeight
            }
        }
    }

    /// The URL's `max_result_dimension`: the whole result (extend and padding included) is
    /// scaled down to fit it, as imgproxy does.
    private func limitScale(_ plan: inout Plan, _ widthToScale: Int, _ heightToScale: Int) {
        guard let limit = options.maxResultDimension, limit > 0 else { return }
        let (outWidth, outHeight) = framedSize(plan)
        guard outWidth > limit || outHeight > limit else { return }
        let downScale = Double(limit) / Double(max(outWidth, outHeight))
        plan.wScale = max(plan.wScale * downScale, 1 / Double(max(1, widthToScale)))
        plan.hScale = max(plan.hScale * downScale, 1 / Double(max(1, heightToScale)))
        plan.dprScale *= downScale
        calculateSizes(&plan, widthToScale, heightToScale)
    }

    /// The result's size the plan predicts: the cut, then extend or the aspect ratio's canvas,
    /// then padding.
    func framedSize(_ plan: Plan) -> (width: Int, height: Int) {
        var outWidth = GeometryMath.minNonZero(plan.scaledWidth, plan.resultCropWidth)
        var outHeight = GeometryMath.minNonZero(plan.scaledHeight, plan.resultCropHeight)
        if options.extend {
            outWidth = max(outWidth, plan.targetWidth)
            outHeight = max(outHeight, plan.targetHeight)
        } else if options.extendAspectRatio {
            outWidth = max(outWidth, plan.aspectWidth)
            outHeight = max(outHeight, plan.aspectHeight)
        }
        let padding = scaledPadding(plan)
        return (outWidth + padding.left + padding.right, outHeight + padding.top + padding.bottom)
    }

    /// `padding` in result pixels (scaled by the dpr, halves to even).
    func scaledPadding(_ plan: Plan) -> (top: Int, right: Int, bottom: Int, left: Int) {
        (GeometryMath.scaleToEven(options.paddingTop, plan.dprScale), GeometryMath.scaleToEven(options.paddingRight, plan.dprScale),
         GeometryMath.scaleToEven(options.paddingBottom, plan.dprScale), GeometryMath.scaleToEven(options.paddingLeft, plan.dprScale))
    }
}
