import LoupeCodecs

// What each processor costs, from its input's size and its parameters: the loops and buffers of
// its `process`, counted. Kept beside each other so that the weights stay comparable.

extension ImageProcessors.GaussianBlur: CostEstimating {
    /// Two passes of the kernel (about 6σ taps) over every pixel, through a buffer of four
    /// floats a pixel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        let taps = Double(2 * max(1, Int((3 * min(max(sigma, 0), Self.maximumSigma)).rounded(.up))) + 1)
        return .perPixel(2 * taps + 2, bytes: 16 + 4, width: width, height: height)
    }
}

extension ImageProcessors.ThumborBlur: CostEstimating {
    /// Two passes of the kernel (2 × radius + 1 taps) over every pixel's channels, through an
    /// image of four bytes a pixel and a row of doubles.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(2 * Double(2 * radius + 1) + 2, bytes: 4 + 4, width: width, height: height)
    }
}

extension ImageProcessors.Sharpen: CostEstimating {
    /// A conversion to L*a*b* and back (about 30 operations a pixel), two passes of the mask's
    /// kernel, through buffers of four floats and one float a pixel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        guard sigma > 0 else { return .zero }
        let taps = Double(Self.kernel(sigma: min(sigma, Self.maximumSigma)).count)
        return .perPixel(2 * taps + 30, bytes: 16 + 4 + 4, width: width, height: height)
    }
}

extension ImageProcessors.Pixelate: CostEstimating {
    /// A few passes over the image, whatever the block size.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        size > 1 ? .perPixel(3, bytes: 4, width: width, height: height) : .zero
    }
}

extension ImageProcessors.Trim: CostEstimating {
    /// A scan of every pixel, then at most a copy of the whole image.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(3, bytes: 4, width: width, height: height)
    }
}

extension ImageProcessors.Flatten: CostEstimating {
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(2, bytes: 4, width: width, height: height)
    }
}

extension ImageProcessors.Extend: CostEstimating {
    /// The canvas filled, the image copied onto it.
    public func estimatedCost(width _: Int, height _: Int) -> ProcessingCost {
        .perPixel(1, bytes: 4, width: width, height: height)
    }
}

extension ImageProcessors.RotateFlip: CostEstimating {
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(1, bytes: 4, width: width, height: height)
    }
}

extension ImageProcessors.Crop: CostEstimating {
    public func estimatedCost(width _: Int, height _: Int) -> ProcessingCost {
        .perPixel(1, bytes: 4, width: width, height: height)
    }
}

extension ImageProcessors.RegionResize: CostEstimating {
    /// Resampling the rectangle (at most the whole input) to the output size.
    public func estimatedCost(width inputWidth: Int, height inputHeight: Int) -> ProcessingCost {
        let regionWidth = min(Double(inputWidth), max(1, width.isFinite ? width : 1))
        let regionHeight = min(Double(inputHeight), max(1, height.isFinite ? height : 1))
        return .resampling(width: Int(regionWidth.rounded(.up)), height: Int(regionHeight.rounded(.up)), outputWidth: outputWidth,
                           outputHeight: outputHeight, filter: filter)
    }
}

extension ImageProcessors.Resize: CostEstimating {
    public func estimatedCost(width inputWidth: Int, height inputHeight: Int) -> ProcessingCost {
        guard inputWidth > 0, inputHeight > 0 else { return .zero }
        let plan = plan(sourceWidth: inputWidth, sourceHeight: inputHeight)
        return .resampling(width: Int(plan.region.width.rounded(.up)), height: Int(plan.region.height.rounded(.up)),
                           outputWidth: plan.width, outputHeight: plan.height, filter: filter)
    }
}

extension ImageProcessors.Watermark: CostEstimating {
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

// thumbor's colour filters: one pass over every pixel into a new bitmap.

extension ImageProcessors.ColorTransform: CostEstimating {
    /// A square root or a draw from a generator and a few multiplications a pixel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost { .perPixel(4, bytes: 4, width: width, height: height) }
}

extension ImageProcessors.ChannelTables: CostEstimating {
    /// A look-up a channel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost { .perPixel(2, bytes: 4, width: width, height: height) }
}

extension ImageProcessors.Convolution: CostEstimating {
    /// Every weight of the matrix over every pixel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(Double(weights.count) + 1, bytes: 4, width: width, height: height)
    }
}

extension ImageProcessors.RoundCorner: CostEstimating {
    /// A copy of the image; the corners are painted in place.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost { .perPixel(1, bytes: 4, width: width, height: height) }
}

extension ImageProcessors.Backdrop: CostEstimating {
    /// The canvas (and for a blurred one, the blur of the image and its stretch), then the paste.
    public func estimatedCost(width inputWidth: Int, height inputHeight: Int) -> ProcessingCost {
        let canvasWidth = width ?? inputWidth, canvasHeight = height ?? inputHeight
        var cost = ProcessingCost.perPixel(3, bytes: 4, width: canvasWidth, height: canvasHeight)
        if case .blurred(let radius) = style {
            let blur = ImageProcessors.ThumborBlur(radius: radius)?.estimatedCost(width: inputWidth, height: inputHeight) ?? .zero
            let stretch = ProcessingCost.resampling(width: inputWidth, height: inputHeight, outputWidth: canvasWidth, outputHeight: canvasHeight)
            cost = ProcessingCost(operations: cost.operations + blur.operations + stretch.operations, bytes: cost.bytes + blur.bytes + stretch.bytes)
        }
        return cost
    }
}

extension ImageProcessors.PositionedWatermark: CostEstimating {
    /// A copy of the image and of the mark, and at most one composite of every pixel per paste
    /// row or column (a repeat along one axis covers it once; a grid is at most 6×6 or 100).
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        let image = ProcessingCost.perPixel(1, bytes: 4, width: width, height: height)
        let marks = ProcessingCost.perPixel(8, bytes: 4, width: mark.width, height: mark.height)
        let pastes = ProcessingCost.perPixel(8 * 100, bytes: 0, width: min(width, mark.width), height: min(height, mark.height))
        return ProcessingCost(operations: image.operations + marks.operations + min(pastes.operations, image.operations * 8),
                              bytes: image.bytes + marks.bytes)
    }
}

extension ImageProcessors.Equalize: CostEstimating {
    /// A pass for the histograms, one through the tables.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost { .perPixel(4, bytes: 4, width: width, height: height) }
}


extension ImageProcessors.WaveletSharpen: CostEstimating {
    /// Five levels of two three-tap passes and a sum, per sharpened channel, through buffers of
    /// five floats a pixel.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        .perPixel(Double(Self.levels * 10 * (settings.luminanceOnly ? 1 : 3) + 10), bytes: 4 + 5 * 4 * 3, width: width, height: height)
    }
}
