import CLoupeCodecs

/// ITU-T H.273 code points as HEIF and AVIF files carry them (nclx), turned into what lcms2
/// needs to build the source colour space.
enum CICP {
    /// White x, y, then red, green, blue x, y, for the colour primaries LoupeCodecs converts.
    static let chromaticities: [Int: [Double]] = [
        1: [0.3127, 0.3290, 0.640, 0.330, 0.300, 0.600, 0.150, 0.060],   // BT.709 / sRGB
        5: [0.3127, 0.3290, 0.640, 0.330, 0.290, 0.600, 0.150, 0.060],   // BT.470 B/G (PAL)
        6: [0.3127, 0.3290, 0.630, 0.340, 0.310, 0.595, 0.155, 0.070],   // BT.601 (SMPTE 170M)
        9: [0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046],   // BT.2020
        11: [0.3140, 0.3510, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060],  // DCI-P3 (theatre white)
        12: [0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060],  // Display P3
    ]

    /// The decoding curve for a transfer characteristic: the sRGB curve (also used for BT.709's,
    /// as browsers do for stills), a pure power, or nil for what lcms2 cannot model this way
    /// (PQ and HLG need tone mapping, not a profile).
    static func transfer(_ code: Int) -> (kind: Int32, gamma: Double)? {
        switch code {
        case 1, 2, 6, 13, 14, 15: (LC_TRANSFER_SRGB, 0)
        case 4: (LC_TRANSFER_GAMMA, 1 / 2.2)
        case 5: (LC_TRANSFER_GAMMA, 1 / 2.8)
        case 8: (LC_TRANSFER_GAMMA, 1)
        default: nil
        }
    }
}
