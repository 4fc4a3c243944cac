import LoupeCodecs

/// A processor that can start from a smaller decode of its source than the source itself,
/// because it scales the image down anyway: the pipeline asks it, with the source's size from
/// the header, how much of the source's resolution it needs, decodes no finer than that where
/// the codec can (JPEG's DCT scaling), and hands it the smaller image with the source's size.
///
/// The processor must compute everything that depends on the source's size (its result size,
/// cuts, offsets) from `sourceWidth`×`sourceHeight`, and map it onto the pixels it is given,
/// so that its result has the same size whatever the decode's scale. The pipeline uses this
/// only for a request's first processor and only when the request asks for no thumbnail.
public protocol SourceScaledProcessing: ImageProcessing {
    /// The smallest scale of the source (0 < scale ≤ 1, the same on both axes) whose pixels
    /// still give this processor's result its full detail, for an upright
    /// `sourceWidth`×`sourceHeight` source; 1 when it needs every pixel.
    func minimumSourceScale(sourceWidth: Int, sourceHeight: Int) -> Double

    /// Processes `bitmap`, an upright decode of a `sourceWidth`×`sourceHeight` source at some
    /// scale not below ``minimumSourceScale(sourceWidth:sourceHeight:)`` (possibly the full size).
    func process(_ bitmap: Bitmap, sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) -> Bitmap

    /// Refuses, from the source's header alone before a pixel is decoded, a source that this
    /// processor's work would make too costly (``CostLimitExceeded``); `maximumFrames` is how
    /// many of an animation's frames are decoded. The default accepts every source.
    func checkSource(_ metadata: ImageMetadata, maximumFrames: Int) throws(CostLimitExceeded)
}

extension SourceScaledProcessing {
    public func checkSource(_ metadata: ImageMetadata, maximumFrames: Int) throws(CostLimitExceeded) {}
}
