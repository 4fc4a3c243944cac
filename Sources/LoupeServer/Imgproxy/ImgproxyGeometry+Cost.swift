import LoupeCodecs
import LoupeProcessing

extension ImgproxyGeometry: CostEstimating, CostedGeometry {
    /// The geometry's steps and their costs on an upright `width`×`height` source decoded at
    /// `decodeScale` of its size, each under the URL option that asks for it, in the order
    /// ``process(_:sourceWidth:sourceHeight:)`` runs them; and the result's size.
    func estimatedSteps(width: Int, height: Int, decodeScale: Double = 1) -> (steps: [RequestCost.Step], width: Int, height: Int) {
        var steps: [RequestCost.Step] = []
        let scale = decodeScale.isFinite && decodeScale > 0 ? min(decodeScale, 1) : 1
        func decoded(_ side: Int) -> Int { max(1, Int((Double(side) * scale).rounded(.up))) }
        if let threshold = options.trimThreshold {
            // A trim reads the full decode; what it keeps is not known before, so the whole.
            steps.append(.init(option: "trim", cost: ImageProcessors.Trim(threshold: threshold).estimatedCost(width: width, height: height)))
        }
        let plan = self.plan(width: width, height: height)
        var (inputWidth, inputHeight) = (decoded(plan.sourceWidth), decoded(plan.sourceHeight))
        if plan.cropWidth > 0 || plan.cropHeight > 0 {
            let cropWidth = GeometryMath.minNonZero(plan.cropWidth, plan.sourceWidth)
            let cropHeight = GeometryMath.minNonZero(plan.cropHeight, plan.sourceHeight)
            (inputWidth, inputHeight) = (decoded(cropWidth), decoded(cropHeight))
            steps.append(.init(option: "crop", cost: .perPixel(1, bytes: 4, width: inputWidth, height: inputHeight)))
        }
        let cutWidth = GeometryMath.minNonZero(plan.resultCropWidth, plan.scaledWidth)
        let cutHeight = GeometryMath.minNonZero(plan.resultCropHeight, plan.scaledHeight)
        if plan.wScale != 1 || plan.hScale != 1 || scale < 1 {
            // Only the part the cut keeps is resampled when nothing turns the image first.
            let straight = options.rotate == 0 && !options.flipHorizontal && !options.flipVertical && options.gravity.anchor != .smart
            let kept = straight ? (Double(cutWidth) / Double(max(1, plan.scaledWidth)), Double(cutHeight) / Double(max(1, plan.scaledHeight))) : (1, 1)
            let resampled = ProcessingCost.resampling(
                width: max(1, Int((Double(inputWidth) * kept.0).rounded(.up))), height: max(1, Int((Double(inputHeight) * kept.1).rounded(.up))),
                outputWidth: straight ? cutWidth : plan.scaledWidth, outputHeight: straight ? cutHeight : plan.scaledHeight)
            steps.append(.init(option: scalingOption(plan), cost: resampled))
        }
        if options.rotate % 360 != 0 || options.flipHorizontal || options.flipVertical {
            steps.append(.init(option: "rotate", cost: .perPixel(1, bytes: 4, width: plan.scaledWidth, height: plan.scaledHeight)))
        }
        for filter in filters {
            guard let estimating = filter as? any CostEstimating else { continue }
            steps.append(.init(option: Self.option(of: filter), cost: estimating.estimatedCost(width: cutWidth, height: cutHeight)))
        }
        var (outWidth, outHeight) = (cutWidth, cutHeight)
        if options.extend, plan.targetWidth > outWidth || plan.targetHeight > outHeight {
            (outWidth, outHeight) = (max(outWidth, plan.targetWidth), max(outHeight, plan.targetHeight))
            steps.append(.init(option: "extend", cost: .perPixel(1, bytes: 4, width: outWidth, height: outHeight)))
        }
        if options.extendAspectRatio, plan.aspectWidth > outWidth || plan.aspectHeight > outHeight {
            (outWidth, outHeight) = (max(outWidth, plan.aspectWidth), max(outHeight, plan.aspectHeight))
            steps.append(.init(option: "extend_aspect_ratio", cost: .perPixel(1, bytes: 4, width: outWidth, height: outHeight)))
        }
        let framed = framedSize(plan)
        if framed.width != outWidth || framed.height != outHeight {
            steps.append(.init(option: "padding", cost: .perPixel(1, bytes: 4, width: framed.width, height: framed.height)))
        }
        return (steps, framed.width, framed.height)
    }

    /// The whole geometry's cost on a `width`×`height` image decoded at full size.
    func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        estimatedSteps(width: width, height: height).steps.reduce(.zero) { $0 + $1.cost }
    }

    /// The option a resample is charged to: what makes the image larger when it grows (dpr,
    /// zoom, a minimum size, or `enlarge`), else the resize.
    private func scalingOption(_ plan: Plan) -> String {
        guard plan.wScale > 1 || plan.hScale > 1 else { return "resize" }
        if options.dpr > 1 { return "dpr" }
        if options.zoomX > 1 || options.zoomY > 1 { return "zoom" }
        if options.minWidth > 0 || options.minHeight > 0 { return options.minWidth > 0 ? "min-width" : "min-height" }
        return "enlarge"
    }

    /// The URL option a filter comes from.
    static func option(of filter: any ImageProcessing) -> String {
        switch filter {
        case is ImageProcessors.GaussianBlur: "blur"
        case is ImageProcessors.Sharpen: "sharpen"
        case is ImageProcessors.Pixelate: "pixelate"
        default: filter.identifier
        }
    }
}
