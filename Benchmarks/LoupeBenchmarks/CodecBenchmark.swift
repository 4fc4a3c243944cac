import Foundation
import LoupeCodecs

/// `LoupeBenchmarks codecs`: decode-to-256-px thumbnail time per file of the corpus's real
/// photographs (scikit-image data and the largest JPEGs; run Scripts/fetch-corpus.sh first).
///
/// For each file: read it, decode with `maxPixelSize: 256` (DCT scaling for JPEG), then reduce
/// to fit 256 x 256 with an area average. The area average is a stand-in written here for the
/// processing layer's resizer (not part of LoupeCodecs), so that the result is a finished
/// thumbnail like vipsthumbnail's and Pillow's. Single-threaded, in one process: start-up is
/// paid once, before timing. Prints one line per file: `loupe <path> <median ms> <w>x<h>`.
/// Scripts/bench/bench-codecs.sh runs this beside vipsthumbnail, Pillow and djpeg and prints ratios.
enum CodecBenchmark {
    static let target = 256

    /// The photographs, relative to the package root (the working directory).
    static let files = [
        "Corpus/skimage/astronaut.png", "Corpus/skimage/chelsea.png", "Corpus/skimage/coffee.png",
        "Corpus/skimage/motorcycle_left.png", "Corpus/skimage/camera.png",
        "Corpus/skimage/hubble_deep_field.jpg", "Corpus/skimage/retina.jpg", "Corpus/skimage/rocket.jpg",
        "Corpus/gdk-pixbuf/issue70.jpg", "Corpus/gdk-pixbuf/bug725582-testrotate.jpg",
        "Corpus/gdk-pixbuf/bug143608-comment.jpg",
    ]

    /// Timed runs per file (after one untimed warm-up); LOUPE_BENCH_REPETITIONS overrides.
    static var repetitions: Int {
        ProcessInfo.processInfo.environment["LOUPE_BENCH_REPETITIONS"].flatMap(Int.init).map { max(1, $0) } ?? 15
    }

    static func run() async throws {
        guard FileManager.default.fileExists(atPath: "Corpus/.complete") else {
            print("codecs: no corpus in ./Corpus: run Scripts/fetch-corpus.sh from the package root first")
            return
        }
        let decoder = ImageDecoder()
        let repetitions = repetitions
        for path in files {
            let url = URL(fileURLWithPath: path)
            var times: [Double] = []
            var size = (0, 0)
            let clock = ContinuousClock()
            // One untimed run warms the page cache and the allocator, as the peers' warm-up does.
            for run in 0...repetitions {
                let start = clock.now
                let data = try Data(contentsOf: url)
                let image = try decoder.decode(data, options: DecodingOptions(maxPixelSize: target, firstFrameOnly: true))
                let thumbnail = try areaAverage(image.bitmap, fitting: target)
                let (seconds, attoseconds) = start.duration(to: clock.now).components
                blackHole(thumbnail)
                size = (thumbnail.width, thumbnail.height)
                if run > 0 { times.append(Double(seconds) * 1e3 + Double(attoseconds) / 1e15) }
            }
            // Plain lines (not Measurement's report) so Scripts/bench/bench-codecs.sh can parse them.
            let median = Measurement.median(of: times)
            print("loupe \(path) \(String(format: "%.3f", median)) \(size.0)x\(size.1)")
        }
    }

    /// Reduces `source` so its longest side is `target` (never enlarges): each output pixel is
    /// the plain mean of the source pixels it covers (opaque photos, so straight alpha is fine).
    static func areaAverage(_ source: Bitmap, fitting target: Int) throws -> Bitmap {
        let scale = Double(target) / Double(max(source.width, source.height))
        guard scale < 1 else { return source }
        let width = max(1, Int((Double(source.width) * scale).rounded()))
        let height = max(1, Int((Double(source.height) * scale).rounded()))
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        source.pixels.withUnsafeBufferPointer { input in
            for y in 0..<height {
                let y0 = y * source.height / height, y1 = max(y0 + 1, (y + 1) * source.height / height)
                for x in 0..<width {
                    let x0 = x * source.width / width, x1 = max(x0 + 1, (x + 1) * source.width / width)
                    var sum = (0, 0, 0, 0)
                    for sy in y0..<y1 {
                        var i = sy * source.bytesPerRow + x0 * 4
                        for _ in x0..<x1 {
                            sum.0 += Int(input[i]); sum.1 += Int(input[i + 1]); sum.2 += Int(input[i + 2]); sum.3 += Int(input[i + 3])
                            i += 4
                        }
                    }
                    let count = (y1 - y0) * (x1 - x0), o = (y * width + x) * 4
                    pixels[o] = UInt8(sum.0 / count); pixels[o + 1] = UInt8(sum.1 / count)
                    pixels[o + 2] = UInt8(sum.2 / count); pixels[o + 3] = UInt8(sum.3 / count)
                }
            }
        }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }
}
