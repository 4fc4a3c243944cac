import LoupeCodecs
import LoupeProcessing

extension ThumborGeometryStep: CostedGeometry {
    /// thumbor's steps and their costs on an upright `width`×`height` source decoded at
    /// `decodeScale` of its size, each under the URL part that asks for it, in the order
    /// ``process(_:)`` runs them; and the result's size.
    func estimatedSteps(width: Int, height: Int, decodeScale: Double) -> (steps: [RequestCost.Step], width: Int, height: Int) {
        var steps: [RequestCost.Step] = []
        let scale = decodeScale.isFinite && decodeScale > 0 ? min(decodeScale, 1) : 1
        func decoded(_ side: Int) -> Int { max(1, Int((Double(side) * scale).rounded(.up))) }
        if let trim = geometry.trim {
            // What a trim keeps is not known before: the plan on the whole source.
            steps.append(.init(option: "trim", cost: ImageProcessors.Trim(threshold: Double(trim.tolerance)).estimatedCost(width: width, height: height)))
        }
        let plan = geometry.plan(width: width, height: height)
        if geometry.smart, plan.focusCrop != nil || geometry.redEye {
            steps.append(.init(option: "smart", cost: FocalPointDetection.estimatedCost(width: width, height: height)))
        }
        var (inputWidth, inputHeight) = (decoded(width), decoded(height))
        if let window = plan.crops.last {
            (inputWidth, inputHeight) = (decoded(window.right - window.left), decoded(window.bottom - window.top))
            steps.append(.init(option: "crop", cost: .perPixel(1, bytes: 4, width: inputWidth, height: inputHeight)))
        }
        for size in plan.resizes {
            let option = size.width > inputWidth || size.height > inputHeight ? "upscale" : "resize"
            steps.append(.init(option: option, cost: .resampling(width: inputWidth, height: inputHeight, outputWidth: size.width, outputHeight: size.height)))
            (inputWidth, inputHeight) = size
        }
        if geometry.flipHorizontal || geometry.flipVertical || rotate % 360 != 0 {
            steps.append(.init(option: rotate % 360 != 0 ? "rotate" : "flip", cost: .perPixel(1, bytes: 4, width: inputWidth, height: inputHeight)))
        }
        for filter in filters {
            guard let estimating = filter as? any CostEstimating else { continue }
            steps.append(.init(option: Self.filterName(of: filter), cost: estimating.estimatedCost(width: inputWidth, height: inputHeight)))
        }
        if geometry.fillsBox, plan.fillWidth > inputWidth || plan.fillHeight > inputHeight {
            let (canvasWidth, canvasHeight) = (max(plan.fillWidth, inputWidth), max(plan.fillHeight, inputHeight))
            let canvas: ProcessingCost = if let style = geometry.fillStyle {
                ImageProcessors.Backdrop(width: canvasWidth, height: canvasHeight, style: style, merges: geometry.fillMerges)
                    .estimatedCost(width: inputWidth, height: inputHeight)
            } else {
                .perPixel(1, bytes: 4, width: canvasWidth, height: canvasHeight)
            }
            steps.append(.init(option: "fill", cost: canvas))
        }
        return (steps, plan.width, plan.height)
    }

    /// The thumbor filter a pixel step comes from, as the URL names it.
    static func filterName(of filter: any ImageProcessing) -> String {
        switch filter {
        case is ImageProcessors.ThumborBlur, is ImageProcessors.GaussianBlur: "blur"
        case is ImageProcessors.Sharpen: "sharpen"
        case is ImageProcessors.Convolution: "convolution"
        case is ImageProcessors.RoundCorner: "round_corner"
        case is ImageProcessors.PositionedWatermark: "watermark"
        case is ImageProcessors.NinePatchFrame: "frame"
        case is ImageProcessors.Equalize: "equalize"
        default: "filters"
        }
    }
}
