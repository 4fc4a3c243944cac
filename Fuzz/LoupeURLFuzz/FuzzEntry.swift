// libFuzzer entry point for the service's URL handling: the input is an imgproxy URL path; a
// path that parses is also planned and processed, on a small image whose size the fuzzer picks,
// so the option parser, the presets, imgproxy's geometry and the processors all see what an
// attacker can put in a URL. Built and run by `Scripts/ci/fuzz.sh url <seconds>` with
// -sanitize=fuzzer,address; the ordinary build compiles it as a plain executable that only
// explains how to run it.
import Foundation
import Loupe
import LoupeCodecs
import LoupeServer

/// Presets an imgproxy deployment would define, so `pr:` and the default preset are explored.
let fuzzPresets = (try? Presets(definitions: ["default=q:80", "thumb=rs:fill:64:64/g:sm", "wide=rs:fit:96:0/ex:1:so"])) ?? Presets()

/// Results larger than this side are refused by the planner, as `--max-result-dimension` does,
/// which keeps every input's work small.
let fuzzResultLimit = 256

/// The source URL the requests name; nothing is loaded from it.
let fuzzSource = URL(fileURLWithPath: "/fuzz/source.jpg")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes, count > 2 else { return 0 }
    // The first two bytes pick the source image's size (1…64 a side) and the preset mode; the
    // rest is the path.
    let width = Int(bytes[0] & 63) + 1
    let height = Int(bytes[1] & 63) + 1
    let onlyPresets = bytes[1] & 64 != 0
    let path = String(decoding: UnsafeBufferPointer(start: bytes + 2, count: count - 2), as: UTF8.self)
    guard let url = try? ImgproxyURL(path: path, presets: fuzzPresets, onlyPresets: onlyPresets) else { return 0 }
    let request = url.imageRequest(source: fuzzSource, resultLimit: fuzzResultLimit)
    let pixels = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    guard var bitmap = try? Bitmap(width: width, height: height, pixels: pixels) else { return 0 }
    for processor in request.processors {
        guard let next = try? processor.process(bitmap) else { return 0 }
        bitmap = next
    }
    return 0
}

#if LOUPE_FUZZING
/// libFuzzer's driver, which its own `main` would call.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links executables with `main` aliased to `<module>_main`, which hides libFuzzer's
/// `main`; this stands in for it and starts the driver.
@_cdecl("LoupeURLFuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput)
}
#else
/// Without the fuzzing build, libFuzzer's `main` is absent; this one explains how to run it.
@main
enum FuzzUsage {
    static func main() {
        print("LoupeURLFuzz is a libFuzzer target: run it with Scripts/ci/fuzz.sh url <seconds>")
    }
}
#endif
