import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `red_eye()`: inside each face box, the eyes OpenCV's eye cascade finds, and in each
    /// eye the largest region much redder than its green and blue, painted their mean (OpenCV's
    /// contour, closing and dilation as thumbor applies them: `lv_red_eye` in libLoupeVision).
    /// Without OpenCV, or without faces, the image is left as it is, as thumbor leaves it.
    public struct RedEye: ImageProcessing {
        /// A face's box in the image's pixels.
        public struct Box: Sendable, Hashable {
            public var x: Int, y: Int, width: Int, height: Int

            /// The box at (`x`, `y`) of `width`×`height`.
            public init(x: Int, y: Int, width: Int, height: Int) {
                (self.x, self.y, self.width, self.height) = (x, y, width, height)
            }
        }

        /// Where Debian's `opencv-data` puts OpenCV's eye cascade (thumbor ships the same file).
        public static let defaultEyeCascade = FocalPointDetection.cascadeFolder + "/haarcascade_eye.xml"

        /// The faces the eyes are looked for in.
        public let faces: [Box]
        /// The eye cascade file.
        public let eyeCascade: String

        /// Red-eye removal in `faces`, eyes found with the cascade in `eyeCascade`.
        public init(faces: [Box], eyeCascade: String = RedEye.defaultEyeCascade) {
            self.faces = faces
            self.eyeCascade = eyeCascade
        }

        public var identifier: String {
            "loupe.redeye(\(faces.map { "\($0.x),\($0.y),\($0.width),\($0.height)" }.joined(separator: "|")))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            guard !faces.isEmpty, case .success(let library) = VisionLibrary.shared else { return bitmap }
            var pixels = bitmap.pixels
            let boxes = faces.flatMap { [$0.x, $0.y, $0.width, $0.height].map { Int32(clamping: $0) } }
            do {
                _ = try library.redEye(in: &pixels, width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow, faces: boxes,
                                       eyeCascadePath: eyeCascade)
            } catch {
                // thumbor ignores what goes wrong in a detection (IGNORE_SMART_ERRORS, its default).
                return bitmap
            }
            return try Backdrop.bitmap(pixels, like: bitmap)
        }
    }
}

extension ImageProcessors.RedEye: CostEstimating {
    /// The eye cascade over each face (at most the image) and the eyes' masks.
    public func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        let area = faces.reduce(0.0) { $0 + Double(max(0, $1.width)) * Double(max(0, $1.height)) }
        let bounded = min(area, Double(max(0, width)) * Double(max(0, height)))
        return ProcessingCost(operations: bounded * FocalPointDetection.operationsPerCopyPixel, bytes: bounded * 4)
    }
}
