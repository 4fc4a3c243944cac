import Foundation
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
import Testing

/// Each processor whose work grows with the image stops when its work is cancelled (the
/// ``LoupeCaching/WorkCancellation`` a ``LoupeCaching/WorkQueue`` installs): with
/// ``ProcessingError/cancelled``, no partial bitmap, at its next check (a row or band).
/// Serialized: each holds a large image and every core it can get.
@Suite(.serialized) struct ProcessorCancellationTests {
    /// A processor and an input on which it computes for well over the cancellation's delay.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable () throws -> any ImageProcessing
        let width: Int, height: Int
        var testDescription: String { name }
    }

    /// One pass over every pixel takes milliseconds on 3000×3000 in a release build (a single trim
    /// or pixelate finished before the cancellation there): forty in a row outlast its delay on
    /// any machine, and each pass checks between its rows or bands.
    static func repeated(_ step: any ImageProcessing) -> ImageProcessors.ProcessorChain {
        ImageProcessors.ProcessorChain([any ImageProcessing](repeating: step, count: 40))
    }

    static let cases: [Case] = [
        Case(name: "blur", make: { ImageProcessors.GaussianBlur(sigma: 100) }, width: 1_200, height: 1_200),
        Case(name: "sharpen", make: { ImageProcessors.Sharpen(sigma: 100) }, width: 1_200, height: 1_200),
        Case(name: "pixelate", make: { repeated(ImageProcessors.Pixelate(size: 3)) }, width: 3_000, height: 3_000),
        Case(name: "trim", make: { repeated(ImageProcessors.Trim(threshold: 300)) }, width: 3_000, height: 3_000),
        Case(name: "resize", make: { ImageProcessors.Resize(width: 6_000, height: 6_000, mode: .fill, allowsUpscaling: true) }, width: 1_000, height: 1_000),
        Case(name: "watermark", make: {
            // Half transparent, so every pixel under it is blended.
            let mark = try Bitmap(width: 16, height: 16, pixels: [UInt8](repeating: 128, count: 16 * 16 * 4))
            return repeated(ImageProcessors.Watermark(mark: mark, markIdentity: "m", opacity: 1, position: .replicate))
        }, width: 3_000, height: 3_000),
        Case(name: "brightness", make: { repeated(ImageProcessors.ChannelTables.brightness(percent: 10)) }, width: 3_000, height: 3_000),
        Case(name: "saturation", make: { repeated(ImageProcessors.ColorTransform.saturation(factor: 2)) }, width: 3_000, height: 3_000),
        Case(name: "noise", make: { repeated(ImageProcessors.ColorTransform.noise(amount: 30, seed: 1)) }, width: 3_000, height: 3_000),
        Case(name: "convolution", make: {
            guard let box = ImageProcessors.Convolution(weights: [Double](repeating: 1, count: 225), columns: 15, normalizes: true) else {
                throw ProcessingError.invalidParameter("a 15×15 matrix")
            }
            return box
        }, width: 1_200, height: 1_200),
        Case(name: "backdrop", make: { ImageProcessors.Backdrop(width: 1_500, height: 1_500, style: .blurred(radius: 50), merges: true) },
             width: 1_200, height: 1_200),
        Case(name: "wavelet sharpen", make: { ImageProcessors.WaveletSharpen(amount: 1, radius: 1, luminanceOnly: false) }, width: 1_500, height: 1_500),
        Case(name: "thumbor watermark", make: {
            let mark = try Bitmap(width: 16, height: 16, pixels: [UInt8](repeating: 128, count: 16 * 16 * 4))
            // Stretched over the whole image, then blended into every pixel.
            return repeated(ImageProcessors.PositionedWatermark(mark: mark, markIdentity: "m", x: .pixels(0, fromEnd: false), y: .pixels(0, fromEnd: false),
                                                alpha: 0, widthRatio: 1, heightRatio: nil))
        }, width: 3_000, height: 3_000),
        Case(name: "chain", make: { ImageProcessors.Pixelate(size: 3).then(ImageProcessors.GaussianBlur(sigma: 100)) }, width: 1_200, height: 1_200),
    ]

    @Test(arguments: cases)
    func stopsWithinTheBoundWhenCancelledMidway(_ test: Case) async throws {
        let input = try TestImage.bitmap(width: test.width, height: test.height, seed: 3)
        let processor = try test.make()
        let run = try await CancelledWork.run(after: .milliseconds(100)) { try processor.process(input) }
        #expect(run.result == nil, "\(test.name) finished before its cancellation: the case needs a larger input")
        #expect(run.error as? ProcessingError == .cancelled)
        // At its next check, not at its end (seconds away): the bound tells the two apart with
        // room for a debug build on a busy machine. How soon, in release, is measured apart.
        #expect(run.stoppedAfter < .seconds(1), "\(run.stoppedAfter)")
    }

    @Test(arguments: cases)
    func doesNoWorkWhenCancelledBeforeItStarts(_ test: Case) async throws {
        let input = try TestImage.bitmap(width: 64, height: 64, seed: 4)
        let processor = try test.make()
        let run = try await CancelledWork.run(after: .zero) { try processor.process(input) }
        #expect(run.result == nil)
        #expect(run.error as? ProcessingError == .cancelled)
    }

    /// An animation stops between frames too, whatever its step.
    @Test func framesStopBetweenFrames() async throws {
        let frames = try (0..<3).map { try TestImage.bitmap(width: 32, height: 32, seed: $0) }
        let run = try await CancelledWork.run(after: .zero) { try ImageProcessors.Crop(x: 0, y: 0, width: 8, height: 8).process(frames: frames) }
        #expect(run.result == nil)
        #expect(run.error as? ProcessingError == .cancelled)
    }

    /// Without a signal (a caller running a processor itself) nothing stops it.
    @Test func runsToItsEndWithoutASignal() throws {
        let input = try TestImage.bitmap(width: 64, height: 64, seed: 5)
        let blurred = try ImageProcessors.GaussianBlur(sigma: 2).process(input)
        #expect(blurred.width == 64 && blurred.height == 64)
    }
}
