/// Whether a decoder converts an image's colours to sRGB.
///
/// Photos carry their colour space: an embedded ICC profile (Display P3 from phones, Adobe RGB
/// and CMYK from cameras and Photoshop), or PNG's `sRGB` / `gAMA` / `cHRM` chunks. Shown or
/// analysed as if they were sRGB, wide-gamut photos look dull and CMYK ones wrong, so decoders
/// convert to sRGB by default, as libvips, imgproxy and browsers do.
public enum ColorManagement: Sendable, Hashable {
    /// Convert to sRGB through the image's profile (relative colorimetric intent with
    /// black-point compensation, as libvips does). A profile that already is sRGB costs
    /// nothing; a damaged one is ignored with a warning on the decoded image.
    case convertToSRGB
    /// Convert to sRGB as `convertToSRGB` does, but leave RGB and grey pixels as stored and
    /// hand the conversion back in `DecodedImage.pendingColorConversion`, for a caller that
    /// resizes first and converts only the final pixels (a 256 px thumbnail of a 12 MP photo
    /// converts a quarter of its DCT-scaled pixels; `vips_thumbnail` orders a profile-to-profile
    /// transform the same way). The result differs from converting first by the resize's
    /// rounding, not by colour. CMYK is still converted while decoding: its four channels
    /// cannot be resized as RGBA.
    case convertToSRGBAfterResizing
    /// Keep the pixel values as stored (CMYK still becomes RGB, without a profile), for
    /// callers that need the file's own numbers, such as exact equality with Pillow-based tools.
    case keepSourcePixels
}
