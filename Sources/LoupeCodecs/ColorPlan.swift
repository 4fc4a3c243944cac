import CLoupeCodecs

/// The colour step of one decode, decided from the header before any pixel is decoded: a
/// conversion to sRGB, the profile-less CMYK fallback, or nothing.
struct ColorPlan: Sendable {
    private let conversion: (any PixelConversion)?
    /// The RGB or grey conversion left to the caller (`ColorManagement.convertToSRGBAfterResizing`).
    let pending: PendingColorConversion?
    /// Set for CMYK pixels with no usable profile: Pillow's formula, inverted or not.
    private let cmykFallback: Bool?
    /// Why the file's colour information was ignored, for `DecodedImage.warning`.
    let warning: String?

    /// Plans the conversion of `pixels` described by `source` (nil: the file says nothing).
    init(source: ColorSource?, pixels: SourcePixels, management: ColorManagement,
         engine: any ColorConverting = LCMSColorEngine.shared) {
        var conversion: (any PixelConversion)?
        var warning: String?
        if management != .keepSourcePixels, let source {
            do {
                conversion = try engine.conversion(from: source, pixels: pixels)
            } catch {
                warning = error.message
            }
        }
        self.warning = warning
        if case let .cmyk(inverted) = pixels {
            self.conversion = conversion
            cmykFallback = conversion == nil ? inverted : nil
            pending = nil
        } else if management == .convertToSRGBAfterResizing {
            self.conversion = nil
            cmykFallback = nil
            pending = conversion.map(PendingColorConversion.init)
        } else {
            self.conversion = conversion
            cmykFallback = nil
            pending = nil
        }
    }

    /// Whether this plan changes the decoded pixels, now or after a resize: a decode that keeps
    /// 16-bit samples keeps them only where it does not, the conversions being 8-bit.
    var changesPixels: Bool { conversion != nil || cmykFallback != nil || pending != nil }

    /// Converts tightly packed RGBA16 samples in place; true when they are final (nothing to
    /// convert, or converted), false when this plan has no 16-bit form (a profile, CMYK, a
    /// conversion left until after a resize): the caller converts their 8-bit rounding instead.
    func applyDeep(to samples: inout [UInt16]) -> Bool {
        guard changesPixels else { return true }
        guard let conversion, cmykFallback == nil else { return false }
        return samples.withUnsafeMutableBufferPointer { conversion.applyDeep(to: $0) }
    }

    /// Converts the decoded buffer in place (nothing when the conversion is left to the caller).
    func apply(to pixels: UnsafeMutableRawBufferPointer, bytesPerRow: Int, width: Int, height: Int) {
        if let conversion {
            conversion.apply(to: pixels, bytesPerRow: bytesPerRow, width: width, height: height)
        } else if let inverted = cmykFallback, let base = pixels.baseAddress {
            lc_cmyk_to_rgba(base.assumingMemoryBound(to: UInt8.self), bytesPerRow, UInt32(width), UInt32(height), inverted ? 1 : 0)
        }
    }

    /// The still image a C decoder writes: a `width` x `height` bitmap that `decode` fills
    /// (its output, bytes per row and message buffer; LC_OK or a failure whose message becomes
    /// `.corrupt(format, …)`), converted by this plan, with the plan's warning and pending
    /// conversion.
    func decodeStill(_ metadata: ImageMetadata, width: Int, height: Int, format: ImageFormat,
                     _ decode: (UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<CChar>) -> Int32) throws -> DecodedImage {
        var message = CMessage()
        let bitmap = try Bitmap(width: width, height: height) { out, stride in
            let status = message.withPointer { decode(out.baseAddress?.assumingMemoryBound(to: UInt8.self), stride, $0) }
            guard status == LC_OK else { throw ImageCodecError.corrupt(format, message: message.text) }
            apply(to: out, bytesPerRow: stride, width: width, height: height)
        }
        return DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap), warning: warning, pendingColorConversion: pending)
    }

    /// `first` and `second` warnings as one message.
    static func combine(_ first: String?, _ second: String?) -> String? {
        switch (first, second) {
        case let (first?, second?): "\(first); \(second)"
        default: first ?? second
        }
    }
}
