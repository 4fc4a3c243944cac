import LoupeProcessing

/// What a thumbor URL asks of the image's geometry: its manual crop, `fit-in` variant, target
/// size, flips, alignment, `smart`, `trim`, and the filters that act on the geometry (`upscale`,
/// `no_upscale`, `stretch`, `proportion`, `focal`, `fill`). One field of ``ProcessingOptions``
/// (declared by ``ThumborURL/fields``), so a thumbor URL runs through the service's one
/// pipeline, result cache and admission gate; ``plan(width:height:)`` computes thumbor's steps.
struct ThumborGeometry: Sendable, Equatable {
    /// A target side: pixels (0: proportional, or the source's when both are 0) or `orig`.
    enum Side: Sendable, Equatable {
        case pixels(Int)
        case original
    }

    /// `fit-in` and its variants: the image fits in the box (`full`: covers it), the box turned
    /// to the image's orientation when `adaptive`.
    enum FitIn: String, Sendable, Equatable {
        case none, fitIn = "fit-in", adaptive = "adaptive-fit-in", full = "full-fit-in", adaptiveFull = "adaptive-full-fit-in"

        var isAdaptive: Bool { self == .adaptive || self == .adaptiveFull }
        var isFull: Bool { self == .full || self == .adaptiveFull }
    }

    /// A rectangle by its edges, thumbor's `left x top : right x bottom`.
    struct Box: Sendable, Equatable {
        var left: Int, top: Int, right: Int, bottom: Int
    }

    /// A point the crop centres on, with its weight (thumbor's focal point).
    struct FocalPoint: Sendable, Equatable {
        var x: Int, y: Int, weight: Double
    }

    /// `trim`: which corner's colour is the border's, and how far a pixel may differ from it.
    struct Trim: Sendable, Equatable {
        var bottomRight = false
        var tolerance = 0
    }

    var trim: Trim?
    /// The manual crop (`AxB:CxD`), in source pixels; `nil`: none.
    var crop: Box?
    var fitIn = FitIn.none
    var width = Side.pixels(0), height = Side.pixels(0)
    var flipHorizontal = false, flipVertical = false
    /// `halign`: 0 left, 0.5 center, 1 right (thumbor's alignment shares).
    var horizontalAlignment = 0.5
    /// `valign`: 0 top, 0.5 middle, 1 bottom.
    var verticalAlignment = 0.5
    var smart = false
    /// `red_eye()`: the red eyes in the faces `smart` finds corrected, after the transform.
    var redEye = false
    /// `upscale()`: a fitted image smaller than the box is enlarged to it.
    var upscale = false
    /// `no_upscale()`: the target is no larger than the source.
    var noUpscale = false
    /// `stretch()`: resized to the target without cutting to its ratio.
    var stretch = false
    /// `proportion(p)`: the result scaled by `p` (0 < p ≤ 1).
    var proportion: Double?
    /// `focal(AxB:CxD)`: explicit focal points.
    var focalPoints: [FocalPoint] = []
    /// `fill(...)`: the result centred on a canvas of the asked size (its colour is the
    /// options' background; transparent without one).
    var fillsBox = false
    /// `fill(auto)` and `fill(blur)`: the canvas made from the image rather than the
    /// background's colour; `nil` for a colour.
    var fillStyle: ImageProcessors.Backdrop.Style?
    /// `fill(…, true)`: the image composited over the canvas rather than replacing it.
    var fillMerges = false

    /// The steps thumbor takes on an image of `width`×`height`: its manual crop and its cut to
    /// the target's ratio (each a box in the image as it is then), the resize, the flips and the
    /// canvas of `fill`.
    struct Plan: Sendable, Equatable {
        var crops: [Box] = []
        var resizes: [(width: Int, height: Int)] = []
        /// The requested box after `fit-in`, for `fill` (thumbor's request width and height).
        var fillWidth = 0, fillHeight = 0
        /// The manual crop, when it applies (also the first of ``crops``).
        var manualCrop: Box?
        /// The cut to the target's ratio around the focal points, when there is one (also the
        /// last of ``crops``): what `smart` places.
        var focusCrop: Box?
        /// The size after every step.
        var width = 0, height = 0

        static func == (lhs: Plan, rhs: Plan) -> Bool {
            lhs.crops == rhs.crops && lhs.resizes.map { [$0.width, $0.height] } == rhs.resizes.map { [$0.width, $0.height] }
                && (lhs.fillWidth, lhs.fillHeight, lhs.width, lhs.height) == (rhs.fillWidth, rhs.fillHeight, rhs.width, rhs.height)
        }
    }

    /// Largest side a plan may resize to: a bound against arithmetic on absurd sizes; the
    /// service's result limit is checked on the plan before any pixel is made.
    static let largestSide = 1 << 20

    /// thumbor's transformer, step by step (`manual_crop`, target dimensions, focal points,
    /// `fit_in_resize` or `auto_crop` and `resize`, then `upscale` and `proportion`), with the
    /// image's size following each step as thumbor's engine's does.
    func plan(width sourceWidth: Int, height sourceHeight: Int) -> Plan {
        var plan = Plan()
        var size = (width: max(1, sourceWidth), height: max(1, sourceHeight))
        var requestWidth = width, requestHeight = height
        if noUpscale {
            // Before the transform, against the loaded image's size.
            if case .pixels(let w) = requestWidth { requestWidth = .pixels(min(w, size.width)) }
            if case .pixels(let h) = requestHeight { requestHeight = .pixels(min(h, size.height)) }
        }
        var points = focalPoints
        if let crop, crop.left > 0 || crop.top > 0 || crop.right > 0 || crop.bottom > 0 {
            let box = Box(left: min(max(crop.left, 0), size.width), top: min(max(crop.top, 0), size.height),
                          right: min(max(crop.right, 0), size.width), bottom: min(max(crop.bottom, 0), size.height))
            if box.left < box.right, box.top < box.bottom {
                plan.crops.append(box)
                plan.manualCrop = box
                size = (box.right - box.left, box.bottom - box.top)
                points = points.compactMap { point in
                    guard point.x >= crop.left, point.x <= crop.right, point.y >= crop.top, point.y <= crop.bottom else { return nil }
                    return FocalPoint(x: point.x - box.left, y: point.y - box.top, weight: point.weight)
                }
            }
        }
        var (targetWidth, targetHeight) = Self.targetDimensions(requestWidth, requestHeight, size)
        if points.isEmpty {
            points = [FocalPoint(x: Int(Double(size.width) * horizontalAlignment), y: Int(Double(size.height) * verticalAlignment), weight: 1)]
        }
        if fitIn != .none {
            var requested = (requestWidth, requestHeight)
            if fitIn.isAdaptive, (size.width < size.height && targetWidth > targetHeight) || (size.width > size.height && targetWidth < targetHeight) {
                requested = (requestHeight, requestWidth)
                (targetWidth, targetHeight) = (targetHeight, targetWidth)
            }
            let sign = fitIn.isFull ? -1.0 : 1.0
            let source = (Double(size.width), Double(size.height))
            if sign < 0 || targetWidth < source.0 || targetHeight < source.1, targetWidth > 0, targetHeight > 0 {
                let resize: (width: Double, height: Double)
                if source.0 / targetWidth * sign >= source.1 / targetHeight * sign {
                    resize = (targetWidth, (source.1 * targetWidth / source.0 + 1e-5).rounded(.toNearestOrEven))
                } else {
                    resize = ((source.0 * targetHeight / source.1 + 1e-5).rounded(.toNearestOrEven), targetHeight)
                }
                let fitWidth = requested.0 == .original ? size.width : requested.0.pixels
                let fitHeight = requested.1 == .original ? size.height : requested.1.pixels
                requested = (.pixels(Self.int(max(Double(fitWidth), resize.width))), .pixels(Self.int(max(Double(fitHeight), resize.height))))
                size = (Self.int(resize.width), Self.int(resize.height))
                plan.resizes.append(size)
            }
            (requestWidth, requestHeight) = requested
        } else {
            if !stretch, let cut = autoCrop(size: size, target: (targetWidth, targetHeight), points: points) {
                plan.crops.append(cut)
                plan.focusCrop = cut
                size = (cut.right - cut.left, cut.bottom - cut.top)
            }
            if targetWidth != Double(size.width) || targetHeight != Double(size.height) {
                size = (max(1, Self.int(targetWidth == 0 ? 1 : targetWidth)), max(1, Self.int(targetHeight == 0 ? 1 : targetHeight)))
                plan.resizes.append(size)
            }
        }
        let fill = (requestWidth == .original ? size.width : requestWidth.pixels, requestHeight == .original ? size.height : requestHeight.pixels)
        if upscale, fill.0 > 0, fill.1 > 0, size.width < fill.0, size.height < fill.1 {
            if Double(size.width) / Double(fill.0) >= Double(size.height) / Double(fill.1) {
                size = (fill.0, size.height * fill.0 / size.width)
            } else {
                size = (size.width * fill.1 / size.height, fill.1)
            }
            size = (max(1, size.width), max(1, size.height))
            plan.resizes.append(size)
        }
        if let proportion, proportion > 0, proportion <= 1 {
            let scaled = (Double(size.width) * proportion, Double(size.height) * proportion)
            if scaled.0 >= 1, scaled.1 >= 1 {
                size = (Self.int(scaled.0), Self.int(scaled.1))
                plan.resizes.append(size)
            }
        }
        plan.fillWidth = fill.0 != 0 ? fill.0 : size.width
        plan.fillHeight = fill.1 != 0 ? fill.1 : size.height
        (plan.width, plan.height) = fillsBox ? (max(plan.fillWidth, size.width), max(plan.fillHeight, size.height)) : size
        return plan
    }

    /// thumbor's target dimensions for a request on an image of `size`: both 0 keep the size,
    /// `orig` takes the side's, 0 is proportional to the other side.
    static func targetDimensions(_ width: Side, _ height: Side, _ size: (width: Int, height: Int)) -> (Double, Double) {
        let sourceWidth = Double(size.width), sourceHeight = Double(size.height)
        if width == .pixels(0), height == .pixels(0) { return (sourceWidth, sourceHeight) }
        let heightValue = height == .original ? sourceHeight : Double(height.pixels)
        let widthValue = width == .original ? sourceWidth : Double(width.pixels)
        let target0 = width == .pixels(0) ? heightValue * sourceWidth / sourceHeight : widthValue
        let target1 = height == .pixels(0) ? widthValue * sourceHeight / sourceWidth : heightValue
        return (target0, target1)
    }

    /// thumbor's `auto_crop`: the largest box of the target's ratio (ratios compared to two
    /// decimals) centred on the focal points' centre of mass, kept inside the image.
    func autoCrop(size: (width: Int, height: Int), target: (Double, Double), points: [FocalPoint]) -> Box? {
        let sourceWidth = Double(size.width), sourceHeight = Double(size.height)
        let targetWidth = target.0 == 0 ? 1 : target.0, targetHeight = target.1 == 0 ? 1 : target.1
        guard Self.pythonRound(sourceWidth / sourceHeight, digits: 2) != Self.pythonRound(targetWidth / targetHeight, digits: 2) else { return nil }
        var weight = 0.0, totalX = 0.0, totalY = 0.0
        for point in points {
            weight += point.weight
            totalX += Double(point.x) * point.weight
            totalY += Double(point.y) * point.weight
        }
        guard weight > 0 else { return nil }
        let focusX = (totalX / weight).rounded(.down), focusY = (totalY / weight).rounded(.down)
        let cropWidth: Int, cropHeight: Int
        if target.0 / sourceWidth > target.1 / sourceHeight {
            cropWidth = size.width
            cropHeight = Self.int((sourceWidth * target.1 / targetWidth).rounded(.toNearestOrEven))
        } else {
            cropWidth = Self.int((target.0 * sourceHeight / targetHeight).rounded(.up))
            cropHeight = size.height
        }
        let left = Self.int(min(max(focusX - Double(cropWidth) / 2, 0), Double(size.width - cropWidth)).rounded(.toNearestOrEven))
        let top = Self.int(min(max(focusY - Double(cropHeight) / 2, 0), Double(size.height - cropHeight)).rounded(.toNearestOrEven))
        return Box(left: left, top: top, right: min(left + cropWidth, size.width), bottom: min(top + cropHeight, size.height))
    }

    /// Python's `round(x, digits)`: half to even.
    static func pythonRound(_ value: Double, digits: Int) -> Double {
        let scale = Double(Int(pow10(digits)))
        return (value * scale).rounded(.toNearestOrEven) / scale
    }

    private static func pow10(_ digits: Int) -> Double { (0..<digits).reduce(1.0) { result, _ in result * 10 } }

    /// Python's `int(x)` on a size, bounded so that no arithmetic on it overflows.
    static func int(_ value: Double) -> Int {
        guard value.isFinite else { return largestSide }
        return Int(min(max(value, -Double(largestSide)), Double(largestSide)).rounded(.towardZero))
    }
}

extension ThumborGeometry.Side {
    /// The pixels of a `.pixels` side; `orig` reads as 0 where a number is needed.
    var pixels: Int {
        if case .pixels(let value) = self { return value }
        return 0
    }
}
