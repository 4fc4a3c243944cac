import Foundation
import LoupeCodecs
import Testing

/// The output-format policy (`ImageFormat+Output`) the command-line tool, the service and the
/// pipeline share: its table for every format, transparent and not, and the encoder settings it
/// gives checked against what the real encoders write.
@Suite struct OutputFormatPolicyTests {
    /// One row of the policy for a source format.
    struct Row: Equatable, CustomStringConvertible {
        var writable: Bool
        var animates: Bool
        var lossy: Bool
        var opaqueResult: ImageFormat
        var transparentResult: ImageFormat
        var fileExtension: String
        var mimeType: String

        var description: String {
            "writable \(writable) animates \(animates) lossy \(lossy) → \(opaqueResult)/\(transparentResult) .\(fileExtension) \(mimeType)"
        }
    }

    static let table: [ImageFormat: Row] = [
        .jpeg: Row(writable: true, animates: false, lossy: true, opaqueResult: .jpeg, transparentResult: .jpeg,
                   fileExtension: "jpg", mimeType: "image/jpeg"),
        .png: Row(writable: true, animates: false, lossy: false, opaqueResult: .png, transparentResult: .png,
                  fileExtension: "png", mimeType: "image/png"),
        .webp: Row(writable: true, animates: true, lossy: true, opaqueResult: .webp, transparentResult: .webp,
                   fileExtension: "webp", mimeType: "image/webp"),
        .gif: Row(writable: true, animates: true, lossy: false, opaqueResult: .gif, transparentResult: .gif,
                  fileExtension: "gif", mimeType: "image/gif"),
        .avif: Row(writable: true, animates: false, lossy: true, opaqueResult: .avif, transparentResult: .avif,
                   fileExtension: "avif", mimeType: "image/avif"),
        // Read, not written: JPEG, or PNG to keep transparency (imgproxy's rule).
        .heif: Row(writable: false, animates: false, lossy: false, opaqueResult: .jpeg, transparentResult: .png,
                   fileExtension: "heif", mimeType: "image/heif"),
        .jxl: Row(writable: false, animates: false, lossy: false, opaqueResult: .jpeg, transparentResult: .png,
                  fileExtension: "jxl", mimeType: "image/jxl"),
    ]

    @Test(arguments: ImageFormat.allCases)
    func policyTable(_ format: ImageFormat) throws {
        let expected = try #require(Self.table[format], "no row for \(format)")
        let row = Row(writable: format.isWritable, animates: format.animates, lossy: format.isLossy,
                      opaqueResult: .defaultOutput(forSource: format, transparent: false),
                      transparentResult: .defaultOutput(forSource: format, transparent: true),
                      fileExtension: format.fileExtension, mimeType: format.mimeType)
        #expect(row == expected, "\(format)")
    }

    /// Every format Loupe writes, written from the policy's encoder settings, is that format
    /// when sniffed and decoded; an animation keeps its frames exactly where the policy says it
    /// animates. A format Loupe does not write is refused with a typed error.
    @Test(arguments: ImageFormat.allCases)
    func encoderSettingsWriteTheFormat(_ format: ImageFormat) throws {
        guard format.isWritable else {
            #expect(throws: ImageCodecError.self) { try format.encoderFormat(quality: 80) }
            return
        }
        let encoding = try format.encoderFormat(quality: 80)
        #expect(encoding.imageFormat == format)
        // Three frames of different solid colours, so no encoder merges them.
        let frames = try [0, 1, 2].map { index in
            let pixels = (0..<24 * 16).flatMap { _ in [UInt8(index * 100), 80, UInt8(200 - index * 60), 255] }
            return ImageFrame(bitmap: try Bitmap(width: 24, height: 16, pixels: pixels), duration: .milliseconds(40))
        }
        let data = try ImageEncoder().encode(frames, loopCount: 0, as: encoding)
        #expect(ImageFormat(sniffing: data) == format)
        let decoded = try ImageDecoder().decode(data, options: DecodingOptions())
        #expect(decoded.metadata.format == format)
        #expect(decoded.frames.count == (format.animates ? 3 : 1), "\(format)")
        #expect((decoded.bitmap.width, decoded.bitmap.height) == (24, 16))
    }

    /// A lossy format's quality reaches the encoder: the same image is smaller at a lower one.
    @Test(arguments: ImageFormat.allCases.filter(\.isLossy))
    func qualityReachesLossyEncoders(_ format: ImageFormat) throws {
        let bitmap = try gradientBitmap(width: 96, height: 64)
        let high = try ImageEncoder().encode(bitmap, as: format.encoderFormat(quality: 95))
        let low = try ImageEncoder().encode(bitmap, as: format.encoderFormat(quality: 20))
        #expect(low.count < high.count, "\(format): \(low.count) ≥ \(high.count)")
    }
}
