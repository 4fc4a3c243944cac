import CLoupeCodecs
import Foundation

/// What a file says about its colours, read from its header: the seam's input.
enum ColorSource: Sendable, Hashable {
    /// An embedded ICC profile (JPEG APP2, PNG iCCP, WebP ICCP, HEIF/AVIF colr).
    case iccProfile(Data)
    /// PNG's gAMA (encoding exponent) with cHRM's eight chromaticities, or nil for BT.709/D65.
    case pngGamma(Double, chromaticities: [Double]?)
    /// An ITU-T H.273 (CICP) description: HEIF/AVIF nclx, or the AV1 bitstream's.
    case cicp(primaries: Int, transfer: Int)

    /// The source of a HEIF or AVIF image: its ICC profile if it has one, else its CICP
    /// description unless that is sRGB's (BT.709 primaries with the sRGB or BT.709 transfer,
    /// or unspecified), which needs nothing.
    init?(icc: UnsafePointer<UInt8>?, size: Int, cicp: lc_cicp) {
        if let icc, size > 0 {
            self = .iccProfile(Data(bytes: icc, count: size))
            return
        }
        guard cicp.present != 0 else { return nil }
        let primaries = Int(cicp.primaries), transfer = Int(cicp.transfer)
        // H.273: primaries 1 BT.709, 2 unspecified; transfer 1, 6, 14, 15 BT.709-like, 13 sRGB.
        if [1, 2].contains(primaries), [1, 2, 6, 13, 14, 15].contains(transfer) { return nil }
        self = .cicp(primaries: primaries, transfer: transfer)
    }
}

/// How the decoded pixels sit in the RGBA buffer before conversion.
enum SourcePixels: Sendable, Hashable {
    /// RGB with alpha.
    case rgba
    /// Grey expanded to R = G = B.
    case grey
    /// Raw CMYK, four bytes per pixel; `inverted` as Adobe writes it (255 = no ink).
    case cmyk(inverted: Bool)
}
