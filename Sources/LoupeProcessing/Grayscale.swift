extension ImageProcessors.ColorTransform {
    /// thumbor's `grayscale()`: each pixel's luma (ITU-R 601 weights, rounded as PIL's
    /// `convert("L")` rounds them) in red, green and blue.
    public static let grayscale = Self(name: "grayscale") {
        { red, green, blue in
            let luma = (red * 19595 + green * 38470 + blue * 7471 + 0x8000) >> 16
            red = luma
            green = luma
            blue = luma
        }
    }
}
