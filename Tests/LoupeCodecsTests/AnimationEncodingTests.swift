import Foundation
import LoupeCodecs
import Testing

/// GIF and animated WebP written by `ImageEncoder` and read back by Loupe's own decoders: frames,
/// each frame's duration, the loop count, the colours and transparency; the first frame alone for
/// formats that cannot animate; frames of different sizes refused.
@Suite struct AnimationEncodingTests {
    /// A `size`x`size` frame of one colour with a transparent square in its top-left quarter.
    static func frame(_ colour: (UInt8, UInt8, UInt8), size: Int = 32, milliseconds: Int) throws -> ImageFrame {
        var pixels: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size {
                pixels += x < size / 4 && y < size / 4 ? [0, 0, 0, 0] : [colour.0, colour.1, colour.2, 255]
            }
        }
        return ImageFrame(bitmap: try Bitmap(width: size, height: size, pixels: pixels), duration: .milliseconds(milliseconds))
    }

    static let colours: [(UInt8, UInt8, UInt8)] = [(230, 25, 75), (60, 180, 75), (0, 130, 200), (255, 225, 25)]

    static func frames() throws -> [ImageFrame] {
        try colours.enumerated().map { index, colour in try frame(colour, milliseconds: 50 + 30 * index) }
    }

    @Test(arguments: [ImageEncoder.Format.gif, .webp(quality: 90), .webpLossless])
    func animationsRoundTrip(_ format: ImageEncoder.Format) throws {
        let frames = try Self.frames()
        let data = try ImageEncoder().encode(frames, loopCount: 5, as: format)
        let decoded = try ImageDecoder().decode(data, options: DecodingOptions())
        #expect(decoded.metadata.format == format.imageFormat)
        #expect(decoded.metadata.loopCount == 5)
        #expect(decoded.frames.count == frames.count)
        #expect(decoded.frames.map(\.duration) == frames.map(\.duration))
        for (index, frame) in decoded.frames.enumerated() {
            let (r, g, b, a) = frame.bitmap.pixel(x: 20, y: 20)
            let expected = Self.colours[index]
            #expect(a == 255 && abs(Int(r) - Int(expected.0)) <= 8 && abs(Int(g) - Int(expected.1)) <= 8
                    && abs(Int(b) - Int(expected.2)) <= 8, "frame \(index): \(r) \(g) \(b) \(a)")
            // The transparent corner stays transparent on every frame: nothing of an earlier
            // frame shows through.
            #expect(frame.bitmap.pixel(x: 2, y: 2).a == 0, "frame \(index)")
        }
    }

    @Test func aGIFStillAndTheFirstFrameWhereTheFormatCannotAnimate() throws {
        let frames = try Self.frames()
        let still = try ImageDecoder().decode(try ImageEncoder().encode(frames[1].bitmap, as: .gif), options: DecodingOptions())
        #expect(still.metadata.format == .gif && still.frames.count == 1)
        #expect(still.bitmap.pixel(x: 20, y: 20).g > 150 && still.bitmap.pixel(x: 2, y: 2).a == 0)
        let png = try ImageDecoder().decode(try ImageEncoder().encode(frames, loopCount: 0, as: .png), options: DecodingOptions())
        #expect(png.metadata.format == .png && png.frames.count == 1)
        #expect(png.bitmap == frames[0].bitmap)
    }

    @Test func framesOfDifferentSizesAreRefused() throws {
        let frames = [try Self.frame((1, 2, 3), size: 16, milliseconds: 10), try Self.frame((4, 5, 6), size: 8, milliseconds: 10)]
        #expect(throws: ImageCodecError.self) { try ImageEncoder().encode(frames, loopCount: 0, as: .gif) }
        #expect(throws: ImageCodecError.self) { try ImageEncoder().encode([], loopCount: 0, as: .webp(quality: 80)) }
    }
}
