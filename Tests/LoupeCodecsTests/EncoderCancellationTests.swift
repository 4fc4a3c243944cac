import Foundation
import LoupeCodecs
import LoupeTestSupport
import Testing

/// Each encoder stops when its work is cancelled (the ``LoupeCaching/WorkCancellation`` a
/// ``LoupeCaching/WorkQueue`` installs, polled through the libraries' progress callbacks and
/// between rows and frames): ``ImageCodecError/cancelled``, no output, at its next check (well
/// under a second). Serialized: each encodes a large image.
@Suite(.serialized) struct EncoderCancellationTests {
    /// A format and a noise image it takes well over the cancellation's delay to encode.
    struct Case: Sendable, CustomTestStringConvertible {
        let format: ImageEncoder.Format
        let side: Int
        var frames = 1
        var testDescription: String { "\(format) \(side)px × \(frames)" }
    }

    static let midway: [Case] = [
        Case(format: .jpeg(quality: 90, progressive: true), side: 6_000),
        Case(format: .png, side: 3_000),
        Case(format: .webp(quality: 80), side: 3_000),
        Case(format: .gif, side: 2_500),
        Case(format: .webp(quality: 80), side: 1_000, frames: 12),
        Case(format: .gif, side: 1_000, frames: 12),
    ]

    /// Noise, so no encoder finds a shortcut; `frames` of it, each different.
    static func frames(side: Int, count: Int) throws -> [ImageFrame] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return try (0..<count).map { _ in
            let pixels = [UInt8](unsafeUninitializedCapacity: side * side * 4) { buffer, initialized in
                for index in 0..<buffer.count {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    buffer[index] = index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state >> 56)
                }
                initialized = buffer.count
            }
            return ImageFrame(bitmap: try Bitmap(width: side, height: side, pixels: pixels), duration: .milliseconds(100))
        }
    }

    @Test(arguments: midway)
    func stopsWithinTheBoundWhenCancelledMidway(_ test: Case) async throws {
        let frames = try Self.frames(side: test.side, count: test.frames)
        let format = test.format
        let run = try await CancelledWork.run(after: .milliseconds(100)) { try ImageEncoder().encode(frames, loopCount: 0, as: format) }
        #expect(run.result == nil, "the encode finished before its cancellation: the case needs a larger input")
        #expect(run.error as? ImageCodecError == .cancelled)
        // At its next check, not at its end (seconds away): the bound tells the two apart with
        // room for a debug build on a busy machine. How soon, in release, is measured apart.
        #expect(run.stoppedAfter < .seconds(1), "\(run.stoppedAfter)")
    }

    @Test(arguments: [ImageEncoder.Format.jpeg(quality: 80), .png, .webp(quality: 80), .webpLossless, .avif(quality: 60), .gif])
    func writesNothingWhenCancelledBeforeItStarts(_ format: ImageEncoder.Format) async throws {
        let bitmap = try TestImage.bitmap(width: 64, height: 64, seed: 2)
        let run = try await CancelledWork.run(after: .zero) { try ImageEncoder().encode(bitmap, as: format) }
        #expect(run.result == nil)
        #expect(run.error as? ImageCodecError == .cancelled)
    }

    @Test func anAnimationWritesNothingWhenCancelledBeforeItStarts() async throws {
        let frames = try Self.frames(side: 32, count: 3)
        for format in [ImageEncoder.Format.gif, .webp(quality: 80)] {
            let run = try await CancelledWork.run(after: .zero) { try ImageEncoder().encode(frames, loopCount: 0, as: format) }
            #expect(run.result == nil)
            #expect(run.error as? ImageCodecError == .cancelled)
        }
    }
}
