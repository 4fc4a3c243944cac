/// A conversion to sRGB that a decoder planned from the file's profile and left for the caller
/// to apply (`ColorManagement.convertToSRGBAfterResizing`): applied to a resized bitmap, it
/// costs the final pixels only, not the decoded ones.
public struct PendingColorConversion: Sendable, Equatable {
    private let conversion: any PixelConversion

    init(_ conversion: any PixelConversion) {
        self.conversion = conversion
    }

    /// Converts `bitmap`'s colours to sRGB in place. Alpha is untouched; the bitmap must hold
    /// the decoder's RGB or grey values (resized or cropped is fine: the conversion is per pixel).
    public func apply(to bitmap: inout Bitmap) {
        let (width, height) = (bitmap.width, bitmap.height)
        bitmap.withUnsafeMutablePixels(keepingAlpha: true) { pixels, bytesPerRow in
            conversion.apply(to: pixels, bytesPerRow: bytesPerRow, width: width, height: height)
        }
    }

    /// The same conversion: the same prepared transform (transforms are cached per profile).
    public static func == (lhs: PendingColorConversion, rhs: PendingColorConversion) -> Bool {
        lhs.conversion === rhs.conversion
    }
}
