import LoupeCodecs

// What each processor costs, from its input's size and its parameters: the loops and buffers of
// its `process`, counted. Kept beside each other so that the weights stay comparable.

extension GaussianBlur: CostEstimating {
    /// Two passes of the kernel (about 6σ taps) over every pixel, through a buffer of four
    /// floats a pixel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        let taps = Double(2 * max(1, Int((3 * min(max(sigma, 0), Self.maximumSigma)).rounded(.up))) + 1)
        return .perPixel(2 * taps + 2, bytes: 16 + 4, width: width, height: height)
    }
}

extension Sharpen: CostEstimating {
    /// A conversion to L*a*b* and back (about 30 operations a pixel), two passes of the mask's
    /// kernel, through buffers of four floats and one float a pixel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        guard sigma > 0 else { return .zero }
        let taps = Double(Self.kernel(sigma: min(sigma, Self.maximumSigma)).count)
        return .perPixel(2 * taps + 30, bytes: 16 + 4 + 4, width: width, height: height)
    }
}

extension Pixelate: CostEstimating {
    /// A few passes over the image, whatever the block size.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        size > 1 ? .perPixel(3, bytes: 4, width: width, height: height) : .zero
    }
}

extension Trim: CostEstimating {
    /// A scan of every pixel, then at most a copy of the whole image.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(3, bytes: 4, width: width, height: height)
    }
}

extension Flatten: CostEstimating {
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(2, bytes: 4, width: width, height: height)
    }
}

extension Extend: CostEstimating {
    /// The canvas filled, the image copied onto it.
    public func estimatedCost(width _: Int, height _: Int) -> ProcessingCost {
        .perPixel(1, bytes: 4, width: width, height: height)
    }
}

extension RotateFlip: CostEstimating {
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(1, bytes: 4, width: width, height: height)
    }
}

extension Crop: CostEstimating {
    public func estimatedCost(width _: Int, height _: Int) -> ProcessingCost {
        .perPixel(1, bytes: 4, width: width, height: height)
    }
}

extension RegionResize: CostEstimating {
    /// Resampling the rectangle (at most the whole input) to the output size.
    public func estimatedCost(width inputWidth: Int, height inputHeight: Int) -> ProcessingCost {
        let regionWidth = min(Double(inputWidth), max(1, width.isFinite ? width : 1))
        let regionHeight = min(Double(inputHeight), max(1, height.isFinite ? height : 1))
        return .resampling(width: Int(regionWidth.rounded(.up)), height: Int(regionHeight.rounded(.up)), outputWidth: outputWidth,
                           outputHeight: outputHeight, filter: filter)
    }
}

extension Resize: CostEstimating {
    public func estimatedCost(width inputWidth: Int, height inputHeight: Int) -> ProcessingCost {
        guard inputWidth > 0, inputHeight > 0 else { return .zero }
        let plan = plan(sourceWidth: inputWidth, sourceHeight: inputHeight)
        return .resampling(width: Int(plan.region.width.rounded(.up)), height: Int(plan.region.height.rounded(.up)),
                           outputWidth: plan.width, outputHeight: plan.height, filter: filter)
    }
}

extension Watermark: CostEstimating {
    /// The image copied, the mark scaled to its size on this image (refused past four times
    /// the image when it runs) and drawn: at most once over every pixel, when tiled.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        guard opacity > 0 else { return .zero }
        let size = WatermarkLayout.size(markWidth: mark.width, markHeight: mark.height, imageWidth: width, imageHeight: height, scale: scale)
        let image = ProcessingCost.perPixel(3, bytes: 4, width: width, height: height)
        guard size.width != mark.width || size.height != mark.height else { return image }
        return image + .resampling(width: mark.width, height: mark.height, outputWidth: size.width, outputHeight: size.height)
    }
}
