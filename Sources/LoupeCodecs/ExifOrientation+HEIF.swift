extension ExifOrientation {
    /// The orientation equivalent to HEIF's transformative properties as AVIF files carry
    /// them: `irot` (`rotation` anti-clockwise quarter turns) applied first, then `imir`
    /// (`mirror` 0: top and bottom exchanged, 1: left and right exchanged, -1: none).
    init(rotation: Int, mirror: Int) {
        // Rotating anti-clockwise by a quarter turn is what EXIF 8 asks for; the mirrored
        // rows follow from composing each rotation with a left-right (EXIF 2) or top-bottom
        // (EXIF 4) exchange after it.
        let rotated: [ExifOrientation] = [.up, .left, .down, .right]
        let thenLeftRight: [ExifOrientation] = [.upMirrored, .rightMirrored, .downMirrored, .leftMirrored]
        let thenTopBottom: [ExifOrientation] = [.downMirrored, .leftMirrored, .upMirrored, .rightMirrored]
        let quarterTurns = ((rotation % 4) + 4) % 4
        switch mirror {
        case 0: self = thenTopBottom[quarterTurns]
        case 1: self = thenLeftRight[quarterTurns]
        default: self = rotated[quarterTurns]
        }
    }
}
