import LoupeCodecs

/// Why a processor refused its input or parameters.
public enum ProcessingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A target size that is not positive or exceeds `ImageProcessors.Resize.maxPixelCount`.
    case invalidSize(width: Int, height: Int)
    /// A crop rectangle that does not overlap the image.
    case cropOutsideImage(x: Int, y: Int, width: Int, height: Int)
    /// A placeholder encoder's parameter is out of its range (components, image size).
    case invalidParameter(String)
    /// The work was cancelled (its ``LoupeCaching/WorkCancellation``) before it finished; no
    /// partial result is returned.
    case cancelled

    public var description: String {
        switch self {
        case let .invalidSize(width, height): "invalid target size \(width)x\(height)"
        case let .cropOutsideImage(x, y, width, height): "crop \(width)x\(height) at (\(x), \(y)) does not overlap the image"
        case let .invalidParameter(message): message
        case .cancelled: "cancelled"
        }
    }
}

extension Bitmap {
    /// A tightly packed bitmap whose bytes `fill` writes (all of them), unless it throws
    /// (cancelled), when the half-written bytes are dropped. Geometry is the caller's, already
    /// validated, so the codecs' size check cannot fail; it is mapped anyway rather than trapped.
    static func make(width: Int, height: Int,
                     fill: (UnsafeMutableBufferPointer<UInt8>) throws(ProcessingError) -> Void) throws(ProcessingError) -> Bitmap {
        let count = width * height * Bitmap.bytesPerPixel
        var failure: ProcessingError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ProcessingError) {
                try fill(buffer)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        do {
            return try Bitmap(width: width, height: height, pixels: bytes)
        } catch {
            throw .invalidSize(width: width, height: height)
        }
    }
}
