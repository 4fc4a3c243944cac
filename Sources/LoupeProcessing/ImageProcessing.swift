import LoupeCaching
import LoupeCodecs

/// One step of image post-processing (resize, crop, orientation, ...), the seam the pipeline
/// chains and caches by.
///
/// `identifier` names the step *and its parameters* in a stable text form (same processing,
/// same string, in every process and every run), because the pipeline puts it into memory-
/// and disk-cache keys and into the keys that coalesce duplicate work. Two processors with
/// the same identifier must produce the same pixels. Identifiers of this module start with
/// `loupe.`; others should use their own prefix.
public protocol ImageProcessing: Sendable {
    /// Stable, parameter-complete name of this step, for cache and coalescing keys.
    var identifier: String { get }
    /// Returns the processed bitmap; never modifies the input (bitmaps are values).
    func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap
    /// Returns an animation's frames processed: all of one size, so that they stay one
    /// animation. The default runs ``process(_:)`` on each; a step whose size depends on the
    /// pixels (a trim) overrides it to give every frame the same geometry.
    func process(frames: [Bitmap]) throws(ProcessingError) -> [Bitmap]
}

/// The processors this module ships, in one namespace so that their short names (`Crop`,
/// `Resize`, `Trim`) do not take names an app may want for its own types, and so that code
/// completion after `ImageProcessors.` lists them all. An app's own processors conform to
/// ``ImageProcessing`` and live wherever the app likes.
public enum ImageProcessors {}

extension ImageProcessing {
    public func process(frames: [Bitmap]) throws(ProcessingError) -> [Bitmap] {
        var result: [Bitmap] = []
        result.reserveCapacity(frames.count)
        let cancellation = WorkCancellation.current
        for frame in frames {
            // Between frames too: a step without checks of its own stops after the frame it is on.
            try cancellation?.check(ProcessingError.cancelled)
            result.append(try process(frame))
        }
        return result
    }

    /// This step followed by `next`, as one processor.
    public func then(_ next: any ImageProcessing) -> ImageProcessors.ProcessorChain {
        ImageProcessors.ProcessorChain([self, next])
    }
}
