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

    var identifier: String {
        "loupe.thumbor(\(geometry.resultKeyText);rot=\(rotate);limit=\(resultLimit);filters=\(filters.map(\.identifier).joined(separator: ",")))"
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
            image = try Trim(threshold: Double(trim.tolerance), color: color).process(image)
        }
        // The sizes do not depend on the focal points: checked before any detection.
        let sized = geometry.plan(width: image.width, height: image.height)
        let largest = max(sized.width, sized.height, sized.resizes.map { max($0.width, $0.height) }.max() ?? 0)
        guard largest <= resultLimit || largest <= max(bitmap.width, bitmap.height) else {
            throw .invalidParameter("the result (\(sized.width)x\(sized.height)) would exceed \(resultLimit) pixels per side")
        }
        let detection = try geometry.smartDetection(in: image)
        let focused = detection.geometry
        let detected = (width: image.width, height: image.height)
        let plan = geometry.smart ? focused.plan(width: image.width, height: image.height) : sized
        for box in plan.crops {
            image = try Crop(x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top).process(image)
        }
        for size in plan.resizes where size.width != image.width || size.height != image.height {
            image = try Resize(width: size.width, height: size.height, mode: .exact, allowsUpscaling: true).process(image)
        }
        if focused.redEye, !detection.faces.isEmpty {
            // Where the faces are now: thumbor's own filter reads their boxes in the source's
            // pixels after the transform, which holds only when nothing was cut or scaled.
            let faces = detection.faces.map {
                plan.place($0, width: detected.width, height: detected.height, resultWidth: image.width, resultHeight: image.height)
            }
            image = try RedEye(faces: faces).process(image)
        }
        if focused.flipHorizontal || focused.flipVertical || rotate % 360 != 0 {
            image = try RotateFlip(degrees: rotate, flipHorizontal: focused.flipHorizontal, flipVertical: focused.flipVertical).process(image)
        }
        for filter in filters { image = try filter.process(image) }
        if focused.fillsBox, plan.fillWidth > image.width || plan.fillHeight > image.height {
            // Centred as thumbor pastes it: the free space halved, rounded down.
            let width = max(plan.fillWidth, image.width), height = max(plan.fillHeight, image.height)
            if let style = focused.fillStyle {
                image = try Backdrop(width: width, height: height, style: style, merges: focused.fillMerges).process(image)
            } else {
                image = try Extend(width: width, height: height, x: (width - image.width) / 2, y: (height - image.height) / 2).process(image)
            }
        }
        return image
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
            case .blurred(let sigma): parts.append("fillblur=\(sigma)")
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
