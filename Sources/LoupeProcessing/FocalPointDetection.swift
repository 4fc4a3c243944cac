import Foundation
import LoupeCaching
import LoupeCodecs

/// What thumbor's smart crop centres on, found as thumbor's detectors find it: faces with
/// OpenCV's frontal-face cascade (thumbor's face detector: scale factor 1.2, 4 neighbours, faces
/// at least 1/15 of the short side and 20 pixels), and only when there is none, corners (its
/// feature detector: `goodFeaturesToTrack`, 20 corners of quality 0.04, 1 pixel apart).
///
/// Both run on a ``GreyImage`` copy of bounded size, so a request's detection time is bounded
/// whatever the source's size, and report in the image's own pixels. OpenCV is reached through
/// libLoupeVision, opened on first use (``VisionLibrary``); without it, ``detect(in:)`` throws
/// ``VisionFailure/unavailable(_:)`` and the caller falls back (``energyWindow(in:width:height:)``).
public struct FocalPointDetection: Sendable {
    /// A point the crop centres on.
    public struct Focus: Sendable, Equatable {
        /// Which detector found it.
        public enum Origin: String, Sendable {
            case face, feature
        }

        /// thumbor's focal point: the box's centre, a face's raised by thumbor's hair offset.
        public let x: Int, y: Int
        /// The box found, in the image's pixels (a feature's is 1×1 at the point).
        public let boxX: Int, boxY: Int, width: Int, height: Int
        /// Its weight in the centre of mass: a face's area, 1 for a feature.
        public let weight: Double
        public let origin: Origin
    }

    /// Where Debian's `opencv-data` puts OpenCV's cascades.
    public static let cascadeFolder = "/usr/share/opencv4/haarcascades"
    /// thumbor's default `FACE_DETECTOR_CASCADE_FILE`.
    public static let defaultFaceCascade = cascadeFolder + "/haarcascade_frontalface_alt.xml"

    /// The cascade file faces are found with.
    public let faceCascade: String

    /// A detection with the face cascade in `faceCascade`.
    public init(faceCascade: String = FocalPointDetection.defaultFaceCascade) {
        self.faceCascade = faceCascade
    }

    // thumbor's detector parameters.
    static let scaleFactor = 1.2, minNeighbors = 4, smallestFace = 20, faceShare = 15
    static let hairOffset = 0.12
    static let maxCorners = 20, cornerQuality = 0.04, cornerDistance = 1.0

    /// Whether detection can run: libLoupeVision and OpenCV open (the first call opens them)
    /// and the face cascade is readable.
    public var availability: Result<Void, VisionFailure> {
        VisionLibrary.shared.flatMap { _ in
            FileManager.default.isReadableFile(atPath: faceCascade) ? .success(()) : .failure(.failed("cannot read the cascade \(faceCascade)"))
        }
    }

    /// The faces in `bitmap`, else its corners; empty when it has neither (a flat image).
    /// Throws ``VisionFailure/cancelled`` when its work is cancelled between the steps.
    public func detect(in bitmap: Bitmap) throws(VisionFailure) -> [Focus] {
        let library = try VisionLibrary.shared.get()
        let grey: GreyImage
        do {
            grey = try GreyImage(bitmap)
        } catch {
            // The copy's only failure.
            throw .cancelled
        }
        try Self.checkCancellation()
        let found = try faces(in: grey, library: library, sourceWidth: bitmap.width, sourceHeight: bitmap.height)
        guard found.isEmpty else { return found }
        try Self.checkCancellation()
        return try library.goodFeatures(in: grey, maxCorners: Self.maxCorners, qualityLevel: Self.cornerQuality, minDistance: Self.cornerDistance)
            .map { point in
                let x = Int(Double(point.x) / grey.scale), y = Int(Double(point.y) / grey.scale)
                return Focus(x: x, y: y, boxX: x, boxY: y, width: 1, height: 1, weight: 1, origin: .feature)
            }
    }

    /// The cascade's boxes on the copy `grey`, its smallest side `minSide` in source pixels
    /// scaled to the copy (never below the cascade's window), given back in source pixels.
    private static func scaledBoxes(_ library: VisionLibrary, _ grey: GreyImage, cascadePath: String, minNeighbors: Int,
                                    minSide: Int) throws(VisionFailure) -> [(x: Int, y: Int, width: Int, height: Int)] {
        try library.detect(cascadePath: cascadePath, in: grey, scaleFactor: scaleFactor, minNeighbors: minNeighbors,
                           minSide: max(smallestFace, Int(Double(minSide) * grey.scale)))
            .map { box in
                (Int(Double(box.x) / grey.scale), Int(Double(box.y) / grey.scale),
                 Int((Double(box.width) / grey.scale).rounded()), Int((Double(box.height) / grey.scale).rounded()))
            }
    }

    private func faces(in grey: GreyImage, library: VisionLibrary, sourceWidth: Int, sourceHeight: Int) throws(VisionFailure) -> [Focus] {
        let smallest = max(Self.smallestFace, min(sourceWidth, sourceHeight) / Self.faceShare)
        return try Self.scaledBoxes(library, grey, cascadePath: faceCascade, minNeighbors: Self.minNeighbors, minSide: smallest).map { box in
            // thumbor raises the point by 12 % of the face's height (towards the hair) unless
            // that would leave the image.
            let raise = Double(box.y) - Double(box.height) * Self.hairOffset < 0 ? 0 : Double(box.height) * Self.hairOffset
            return Focus(x: box.x + box.width / 2, y: Int(Double(box.y) - raise + Double(box.height / 2)), boxX: box.x, boxY: box.y,
                         width: box.width, height: box.height, weight: Double(box.width * box.height), origin: .face)
        }
    }

    /// The top-left corner of the `width`×`height` window of `bitmap` with the most detail
    /// (edge energy, imgproxy's smart gravity): where a crop centres when OpenCV is not there.
    public static func energyWindow(in bitmap: Bitmap, width: Int, height: Int) -> (x: Int, y: Int) {
        let origin = SmartCrop.origin(in: bitmap, cutWidth: Double(width), cutHeight: Double(height))
        return (Int(origin.x.rounded()), Int(origin.y.rounded()))
    }

    /// What a detection on a `width`×`height` image costs: the grey copy (every source pixel
    /// read once), then the cascade and the corners over the copy. The cascade's work per copy
    /// pixel is what its scales and stages take on photos (BENCHMARKS.md, `smart`).
    public static func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        let copy = GreyImage.size(width: width, height: height)
        return GreyImage.estimatedCost(width: width, height: height)
            + ProcessingCost.perPixel(operationsPerCopyPixel, bytes: 8, width: copy.width, height: copy.height)
    }

    /// Pixel operations per pixel of the grey copy for the cascade and the corners together.
    static let operationsPerCopyPixel = 600.0

    private static func checkCancellation() throws(VisionFailure) {
        try WorkCancellation.current?.check(VisionFailure.cancelled)
    }
}
