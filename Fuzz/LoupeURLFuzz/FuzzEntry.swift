// libFuzzer entry point for the service's URL handling: the input is an imgproxy URL path; a
// path that parses is also planned and processed, on a small image whose size the fuzzer picks,
// so the option parser, the presets, imgproxy's geometry and the processors all see what an
// attacker can put in a URL. Built and run by `Scripts/ci/fuzz.sh url <seconds>` (Fuzz/FuzzDriver).
import Foundation
import FuzzDriver
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

@main
enum URLFuzz {
    static func main() {
        exit(FuzzDriver.run(fuzzOneInput, usage: "LoupeURLFuzz is a libFuzzer target: run it with Scripts/ci/fuzz.sh url <seconds>"))
    }
}
