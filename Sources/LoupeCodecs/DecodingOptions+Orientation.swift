extension DecodingOptions {
    /// `image` with every frame turned upright when `appliesOrientation` asks for it.
    func oriented(_ image: DecodedImage) -> DecodedImage {
        let orientation = image.metadata.orientation
        guard appliesOrientation, orientation != .up else { return image }
        var result = image
        result.firstFrame.bitmap = orientation.apply(to: image.firstFrame.bitmap)
        result.laterFrames = image.laterFrames.map { ImageFrame(bitmap: orientation.apply(to: $0.bitmap), duration: $0.duration) }
        return result
    }
}
