import LoupeCodecs
import LoupeProcessing

/// `smart`: the focal points thumbor's detectors would add — faces, else corners
/// (``FocalPointDetection``) — which the cut to the target's ratio then centres on, as thumbor's
/// transformer centres it on their centre of mass; and the faces `red_eye()` corrects.
extension ThumborGeometry {
    /// The geometry with the points `smart` finds in `image` (already trimmed) added to its own
    /// `focal()` points, `smart` done; and the faces found, boxed as thumbor's `red_eye()` boxes
    /// them (its focal point ± half the face). Nothing is detected when neither a cut to the
    /// target's ratio (none with `fit-in`, `stretch`, or a ratio already the target's) nor
    /// `red_eye()` would use it. Without OpenCV (or when it fails), the point is the centre of
    /// the window with the most detail (edge energy, as imgproxy's smart gravity) instead of
    /// thumbor's alignment, which it falls back to (`IGNORE_SMART_ERRORS`, its default).
    func smartDetection(in image: Bitmap) throws(ProcessingError) -> (geometry: ThumborGeometry, faces: [ImageProcessors.RedEye.Box]) {
        guard smart else { return (self, []) }
        var focused = self
        focused.smart = false
        let plain = plan(width: image.width, height: image.height)
        guard plain.focusCrop != nil || redEye else { return (focused, []) }
        do {
            let found = try FocalPointDetection().detect(in: image)
            focused.focalPoints += found.map { FocalPoint(x: $0.x, y: $0.y, weight: $0.weight) }
            let faces = found.filter { $0.origin == .face }.map { face in
                ImageProcessors.RedEye.Box(x: Int(Double(face.x) - Double(face.width) / 2), y: Int(Double(face.y) - Double(face.height) / 2),
                           width: face.width, height: face.height)
            }
            return (focused, faces)
        } catch VisionFailure.cancelled {
            throw .cancelled
        } catch {
            if let cut = plain.focusCrop { focused.focalPoints.append(try energyFocus(in: image, manualCrop: plain.manualCrop, cut: cut)) }
            return (focused, [])
        }
    }

    /// The centre of the cut's window with the most detail inside the manual crop (the whole
    /// image without one), in the image's pixels.
    private func energyFocus(in image: Bitmap, manualCrop: Box?, cut: Box) throws(ProcessingError) -> FocalPoint {
        var region = image
        if let box = manualCrop {
            region = try ImageProcessors.Crop(x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top).process(image)
        }
        let width = cut.right - cut.left, height = cut.bottom - cut.top
        let window = FocalPointDetection.energyWindow(in: region, width: width, height: height)
        return FocalPoint(x: (manualCrop?.left ?? 0) + window.x + width / 2, y: (manualCrop?.top ?? 0) + window.y + height / 2, weight: 1)
    }
}

extension ThumborGeometry.Plan {
    /// `box`, in the pixels of the `width`×`height` image the plan was made for, moved by the
    /// plan's crops and scaled as its resizes scale the image to `resultWidth`×`resultHeight`.
    func place(_ box: ImageProcessors.RedEye.Box, width: Int, height: Int, resultWidth: Int, resultHeight: Int) -> ImageProcessors.RedEye.Box {
        var (x, y, size) = (box.x, box.y, (width: width, height: height))
        for crop in crops {
            x -= crop.left
            y -= crop.top
            size = (crop.right - crop.left, crop.bottom - crop.top)
        }
        let scaleX = Double(resultWidth) / Double(max(1, size.width)), scaleY = Double(resultHeight) / Double(max(1, size.height))
        return ImageProcessors.RedEye.Box(x: Int((Double(x) * scaleX).rounded(.down)), y: Int((Double(y) * scaleY).rounded(.down)),
                          width: Int((Double(box.width) * scaleX).rounded()), height: Int((Double(box.height) * scaleY).rounded()))
    }
}
