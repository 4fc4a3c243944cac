import LoupeCodecs

/// A processor that can start from a smaller decode of its source than the source itself,
/// because it scales the image down anyway: the pipeline asks it for its plan once, from the
/// source's size in the header, decodes no finer than the plan needs where the codec can
/// (JPEG's DCT scaling), and hands it the smaller image with that plan.
///
/// The plan must hold everything that depends on the source's size (the result size, cuts,
/// offsets, the source's size itself), and the processor map it onto the pixels it is given,
/// so that its result has the same size whatever the decode's scale. The pipeline uses this
/// only for a request's first processor and only when the request asks for no thumbnail.
public protocol SourceScaledProcessing: ImageProcessing {
    /// What the processor will do to one source, planned before the source is decoded.
    associatedtype SourcePlan: Sendable

    /// The plan for an upright `sourceWidth`×`sourceHeight` source, made once per source; throws
    /// when the result would break the processor's limits, before anything is decoded.
    func plan(sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) -> SourcePlan

    /// The smallest scale of the source (0 < scale ≤ 1, the same on both axes) whose pixels
    /// still give the result of `plan` its full detail; 1 when it needs every pixel.
    func minimumSourceScale(for plan: SourcePlan) -> Double

    /// Processes `bitmap`, an upright decode of the source `plan` was made for, at some scale
    /// not below ``minimumSourceScale(for:)`` (possibly the full size).
    func process(_ bitmap: Bitmap, plan: SourcePlan) throws(ProcessingError) -> Bitmap

    /// Refuses, from the source's header and its size in `bytes` alone, before a pixel is
    /// decoded, a source that this processor's work would make too costly
    /// (``CostLimitExceeded``) or that is over limits of the request's own (an
    /// `ImageCodecError` limit); `maximumFrames` is how many of an animation's frames are
    /// decoded. The default accepts every source.
    func checkSource(_ metadata: ImageMetadata, bytes: Int, maximumFrames: Int) throws
}

extension SourceScaledProcessing {
    public func checkSource(_ metadata: ImageMetadata, bytes: Int, maximumFrames: Int) throws {}

    /// ``process(_:plan:)`` with a plan held without its type (the pipeline carries it from the
    /// decode to the processing); without one of this processor's type, planned here for an
    /// upright `sourceWidth`×`sourceHeight` source.
    public func process(_ bitmap: Bitmap, anyPlan: (any Sendable)?, sourceWidth: Int, sourceHeight: Int) throws(ProcessingError) -> Bitmap {
        if let plan = anyPlan as? SourcePlan { return try process(bitmap, plan: plan) }
        return try process(bitmap, plan: plan(sourceWidth: sourceWidth, sourceHeight: sourceHeight))
    }
}
