import CLoupeCodecs
import Foundation

extension ImageEncoder {
    /// libimagequant's speed for GIF palettes (1 best ... 10 fastest). From 8 on it posterizes
    /// the colours it chooses from and no longer measures its error: a little more dithering
    /// grain up close, the same colours on average, at about a third of 7's time (and a GIF's
    /// palettes are most of its cost).
    static let gifQuantizationSpeed = 8

    /// Encodes `frames` as `format`: an animation (each frame's duration, the whole played
    /// `loopCount` times, 0 meaning forever) when the format animates (`.gif`, `.webp`,
    /// `.webpLossless`) and there is more than one frame; otherwise the first frame alone, as
    /// imgproxy writes an animation to a format that cannot animate. Frames must share one size.
    public func encode(_ frames: [ImageFrame], loopCount: Int, as format: Format) throws -> Data {
        guard let first = frames.first else { throw ImageCodecError.invalidBitmap("no frames to encode") }
        guard frames.count > 1, format.imageFormat.animates else { return try encode(first.bitmap, as: format) }
        let width = first.bitmap.width, height = first.bitmap.height
        guard width <= format.maximumSide, height <= format.maximumSide else {
            throw ImageCodecError.invalidBitmap("\(width)x\(height) exceeds \(format.imageFormat)'s \(format.maximumSide) pixels per side")
        }
        guard frames.allSatisfy({ $0.bitmap.width == width && $0.bitmap.height == height }) else {
            throw ImageCodecError.invalidBitmap("an animation's frames differ in size")
        }
        guard frames.count <= Int(UInt32.max) else { throw ImageCodecError.invalidBitmap("\(frames.count) frames") }
        // One contiguous block of rows, so the C side takes one stride and a pointer per frame.
        let stride = width * Bitmap.bytesPerPixel
        let frameBytes = stride * height
        var block = [UInt8](repeating: 0, count: frameBytes * frames.count)
        block.withUnsafeMutableBytes { out in
            for (index, frame) in frames.enumerated() {
                frame.bitmap.pixels.withUnsafeBytes { source in
                    for y in 0..<height {
                        let from = source.baseAddress.map { $0 + y * frame.bitmap.bytesPerRow }
                        let to = out.baseAddress.map { $0 + index * frameBytes + y * stride }
                        if let from, let to { to.copyMemory(from: from, byteCount: stride) }
                    }
                }
            }
        }
        let milliseconds = frames.map { frame in
            let (seconds, attoseconds) = frame.duration.components
            return Int32(clamping: seconds.multipliedReportingOverflow(by: 1_000).overflow ? Int64.max : seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
        }
        let loop = Int32(clamping: max(0, loopCount))
        var message = CMessage()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status: Int32 = try EncoderCancellation.with { cancel in try block.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress
            let pointers: [UnsafePointer<UInt8>?] = (0..<frames.count).map { index in base.map { $0 + index * frameBytes } }
            return try message.withPointer { text in
                switch format {
                case .gif:
                    // GIF counts hundredths of a second.
                    let delays = milliseconds.map { Int32(($0 + 5) / 10) }
                    return lc_gif_encode(pointers, delays, UInt32(frames.count), UInt32(width), UInt32(height), stride, loop,
                                         Int32(Self.gifQuantizationSpeed), cancel, &output, &size, text)
                case let .webp(quality):
                    guard (0...100).contains(quality) else { throw ImageCodecError.invalidBitmap("WebP quality \(quality) is outside 0...100") }
                    return lc_webp_encode_animation(pointers, milliseconds, UInt32(frames.count), UInt32(width), UInt32(height), stride, 0,
                                                    Float(quality), loop, cancel, &output, &size, text)
                case .webpLossless:
                    return lc_webp_encode_animation(pointers, milliseconds, UInt32(frames.count), UInt32(width), UInt32(height), stride, 1,
                                                    75, loop, cancel, &output, &size, text)
                case .jpeg, .png, .avif, .jxl, .heic, .tiff, .bmp, .ico:
                    throw ImageCodecError.invalidBitmap("\(format.imageFormat) cannot animate")
                }
            }
        } }
        try EncoderCancellation.check(status)
        guard status == LC_OK, let output else { throw ImageCodecError.encodingFailed(format.imageFormat, message: message.text) }
        return Data(bytesNoCopy: output, count: size, deallocator: .custom { pointer, _ in lc_free(pointer) })
    }
}
