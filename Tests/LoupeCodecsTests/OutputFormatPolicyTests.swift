import Foundation
import LoupeCodecs
import Testing

/// The output-format policy (`ImageFormat+Output`) the command-line tool, the service and the
/// pipeline share: its table for every format, transparent and not, and the encoder settings it
/// gives checked against what the real encoders write.
@Suite struct OutputFormatPolicyTests {
    /// The table for every format (in `allCases` order: JPEG, PNG, WebP, GIF, HEIF, AVIF, JPEG
    /// XL, TIFF, BMP, ICO, SVG), a source with and without transparency.
    @Test func policyTable() {
        let formats = ImageFormat.allCases
        #expect(formats == [.jpeg, .png, .webp, .gif, .heif, .avif, .jxl, .tiff, .bmp, .ico, .svg])
        #expect(formats.filter(\.isWritable) == formats.filter { $0 != .svg })
        #expect(formats.filter(\.isKeptWhenUnnamed) == [.jpeg, .png, .webp, .gif, .avif])
        #expect(formats.filter(\.animates) == [.webp, .gif])
        #expect(formats.filter(\.isLossy) == [.jpeg, .webp, .heif, .avif, .jxl])
        // Outside imgproxy's preferred formats (HEIF, JPEG XL, TIFF, BMP, ICO, SVG): JPEG, or PNG
        // to keep transparency (imgproxy's rule).
        #expect(formats.map { ImageFormat.defaultOutput(forSource: $0, transparent: false) }
                == [.jpeg, .png, .webp, .gif, .jpeg, .avif, .jpeg, .jpeg, .jpeg, .jpeg, .jpeg])
        #expect(formats.map { ImageFormat.defaultOutput(forSource: $0, transparent: true) }
                == [.jpeg, .png, .webp, .gif, .png, .avif, .png, .png, .png, .png, .png])
        #expect(ImageFormat.fallbackOutput(transparent: false) == .jpeg && ImageFormat.fallbackOutput(transparent: true) == .png)
        #expect(formats.map(\.fileExtension) == ["jpg", "png", "webp", "gif", "heif", "avif", "jxl", "tiff", "bmp", "ico", "svg"])
        #expect(formats.map(\.mimeType) == ["image/jpeg", "image/png", "image/webp", "image/gif", "image/heif", "image/avif", "image/jxl",
                                            "image/tiff", "image/bmp", "image/x-icon", "image/svg+xml"])
        #expect(formats.map(\.maximumSide) == [65_500, Int(Int32.max), 16_383, 65_535, 16_384, 65_536, 1 << 30, Int(Int32.max),
                                               Int(Int32.max), 256, Int(Int32.max)])
        #expect(throws: ImageCodecError.self) { try ImageFormat.svg.encoderFormat(quality: 80) }
    }

    /// The one decision of a result's format and quality: a named format whatever the image; else
    /// the first accepted format that can hold the image (an animation skips those that cannot
    /// animate); else the source's rule, or JPEG/PNG for a copy that is only read back.
    @Test func outputChoiceDecidesFormatAndQuality() {
        let named = OutputChoice(named: .jpeg, accepted: [.webp], quality: 80, qualities: [.jpeg: 60])
        #expect(named.decide(source: .gif, transparent: true, animated: true) == OutputDecision(format: .jpeg, quality: 60))
        #expect(!named.mayKeepFrames && named.formatKey == "jpeg")
        #expect(OutputChoice(named: .gif, quality: 80).mayKeepFrames)
        let negotiated = OutputChoice(accepted: [.avif, .webp], quality: 80, qualities: [.webp: 70])
        #expect(negotiated.decide(source: .jpeg, transparent: false, animated: false) == OutputDecision(format: .avif, quality: 80))
        #expect(negotiated.decide(source: .gif, transparent: false, animated: true) == OutputDecision(format: .webp, quality: 70))
        #expect(negotiated.mayKeepFrames && negotiated.formatKey == "avif+webp")
        // An animation whose only accepted format cannot animate falls back to the source's rule.
        #expect(OutputChoice(accepted: [.avif], quality: 80).decide(source: .gif, transparent: false, animated: true).format == .gif)
        for source in ImageFormat.allCases {
            for transparent in [false, true] {
                let kept = OutputChoice(quality: 80).decide(source: source, transparent: transparent, animated: false)
                #expect(kept.format == .defaultOutput(forSource: source, transparent: transparent) && kept.format.isWritable)
                let copy = OutputChoice(keepsSourceFormat: false, quality: 90).decide(source: source, transparent: transparent, animated: false)
                #expect(copy == OutputDecision(format: .fallbackOutput(transparent: transparent), quality: 90))
            }
        }
        #expect(OutputChoice(quality: 80).formatKey == "source" && OutputChoice(keepsSourceFormat: false, quality: 80).formatKey == "fallback")
    }

    /// imgproxy's `ENFORCE_*`: an enforced format replaces a named one, the first that can hold
    /// the image (JPEG XL and AVIF skipped for an animation), else the named format; without a
    /// named format the accepted list decides, in its own order. Frames are decoded whenever an
    /// enforced format may take over, and the key tells the decisions apart.
    @Test func enforcedFormatsOverrideTheNamedOne() {
        let enforced = OutputChoice(named: .png, enforced: [.avif, .webp], quality: 80, qualities: [.avif: 63])
        #expect(enforced.decide(source: .jpeg, transparent: false, animated: false) == OutputDecision(format: .avif, quality: 63))
        #expect(enforced.decide(source: .gif, transparent: false, animated: true).format == .webp)
        #expect(OutputChoice(named: .gif, enforced: [.avif], quality: 80).decide(source: .gif, transparent: false, animated: true).format == .gif)
        #expect(OutputChoice(named: .jpeg, enforced: [.avif], quality: 80).mayKeepFrames)
        #expect(enforced.formatKey == "avif+webp>png" && enforced.likelyFormat == .avif)
        let unnamed = OutputChoice(accepted: [.jxl, .avif, .webp], enforced: [.avif], quality: 80)
        #expect(unnamed.decide(source: .jpeg, transparent: false, animated: false).format == .jxl)
        #expect(unnamed.likelyFormat == .jxl && OutputChoice(named: .png, quality: 80).likelyFormat == .png)
    }

    /// Every format Loupe writes, written from the policy's encoder settings, is that format
    /// when sniffed and decoded; an animation keeps its frames exactly where the policy says it
    /// animates.
    @Test(arguments: ImageFormat.allCases.filter(\.isWritable))
    func encoderSettingsWriteTheFormat(_ format: ImageFormat) throws {
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
