// libFuzzer entry point for the codecs: one executable, the decoder chosen by the
// LOUPE_FUZZ_DECODER environment variable (jpeg, png, webp, gif, heif, avif, jxl, tiff, bmp, ico; icc feeds the
// input to the colour management path as a JPEG's ICC profile; svg draws it and sanitises it). Built and run by
// Scripts/ci/fuzz.sh with -sanitize=fuzzer,address (Fuzz/FuzzDriver).
import Foundation
import FuzzDriver
import LoupeCodecs

/// The decoder under test, read once: libFuzzer calls the entry point millions of times.
let fuzzDecoder: any ImageDecoding = switch ProcessInfo.processInfo.environment["LOUPE_FUZZ_DECODER"] {
case "png": PNGDecoder()
case "webp": WebPDecoder()
case "gif": GIFDecoder()
case "heif": HEIFDecoder()
case "avif": AVIFDecoder()
case "jxl": JXLDecoder()
case "tiff": TIFFDecoder()
case "bmp": BMPDecoder()
case "ico": ICODecoder()
case "svg": SVGFuzzDecoder()
case "icc": ICCProfileFuzzDecoder()
default: JPEGDecoder()
}

/// Small limits keep each input fast; the limit checks themselves are part of what is tested.
let fuzzLimits = DecodingLimits(maxPixelCount: 4_000_000, maxFrameCount: 64, maxTotalPixelCount: 16_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes, count > 0 else { return 0 }
    // The first byte picks the options, so every decoder path (scaled, oriented, first frame
    // only, 16-bit samples kept, the embedded thumbnail) is explored; the rest is the file.
    let flags = bytes[0]
    let data = Data(bytes: bytes + 1, count: count - 1)
    var options = DecodingOptions(maxPixelSize: flags & 1 != 0 ? 64 : nil, appliesOrientation: flags & 2 != 0,
                                  firstFrameOnly: flags & 4 != 0, limits: fuzzLimits)
    options.keepsDeepSamples = flags & 16 != 0
    options.usesEmbeddedThumbnail = flags & 32 != 0
    _ = try? fuzzDecoder.metadata(of: data)
    if let image = try? fuzzDecoder.decode(data, options: options), flags & 8 != 0 {
        // Re-encoding exercises the encoders on whatever the decoder produced (16-bit PNG too).
        _ = try? ImageEncoder(embedsSRGBProfile: false, keepsDeepSamples: options.keepsDeepSamples).encode(image.bitmap, as: .png)
    }
    return 0
}

@main
enum CodecsFuzz {
    static func main() {
        exit(FuzzDriver.run(fuzzOneInput, usage: "LoupeCodecsFuzz is a libFuzzer target: run Scripts/ci/fuzz.sh <jpeg|png|webp|gif|heif|avif|jxl|tiff|bmp|ico|svg|icc> <seconds>"))
    }
}
