import Foundation
import LoupeCodecs

/// `LoupeBenchmarks formats`: decode-to-256-px thumbnail time for HEIF, AVIF and JPEG XL files
/// (made by Scripts/bench-formats.sh in .build-bench/formats, whose paths it passes in
/// LOUPE_BENCH_FILES), and `LoupeBenchmarks color`: what colour management adds to decoding
/// tagged JPEGs. Single-threaded, one process, medians; lines for Scripts/bench-formats.sh.
enum FormatsBenchmark {
    /// Decode with `maxPixelSize: 256`, then the same area average as `CodecBenchmark`, so the
    /// result is a finished thumbnail like vipsthumbnail's and Pillow's.
    static func run() async throws {
        let files = (ProcessInfo.processInfo.environment["LOUPE_BENCH_FILES"] ?? "").split(separator: " ").map(String.init)
        guard !files.isEmpty else {
            print("formats: run Scripts/bench-formats.sh (it makes the files and passes them in LOUPE_BENCH_FILES)")
            return
        }
        for path in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            var size = (0, 0)
            let median = try time(repetitions: CodecBenchmark.repetitions) {
                let image = try ImageDecoder().decode(data, options: DecodingOptions(maxPixelSize: CodecBenchmark.target, firstFrameOnly: true))
                let thumbnail = try CodecBenchmark.areaAverage(image.bitmap, fitting: CodecBenchmark.target)
                size = (thumbnail.width, thumbnail.height)
                blackHole(thumbnail)
            }
            print("loupe \(path) \(String(format: "%.3f", median)) \(size.0)x\(size.1)")
        }
    }

    /// Tagged JPEGs decoded with and without conversion to sRGB, full size and at 256 px,
    /// interleaved (A B A B) so machine noise hits both alike, timed in the thread's CPU time:
    /// on the shared machine wall-clock medians swung by several times (an untagged file, which
    /// converts nothing, came out +700 %), because a decode of a few ms is often descheduled.
    static func color() async throws {
        // LOUPE_COLOR_FILES (space-separated paths) measures other tagged JPEGs, e.g. a phone's
        // 12-megapixel photos, where a thumbnail converts a far smaller share of the decoded pixels.
        let given = (ProcessInfo.processInfo.environment["LOUPE_COLOR_FILES"] ?? "").split(separator: " ").map(String.init)
        let files = given.isEmpty
            ? ["Corpus/color/p3.jpg", "Corpus/color/adobergb.jpg", "Corpus/color/prophoto.jpg",
               "Corpus/color/cmyk-adobe.jpg", "Corpus/skimage/rocket.jpg"]
            : given
        guard !given.isEmpty || FileManager.default.fileExists(atPath: "Corpus/color/.complete") else {
            print("color: run Scripts/fetch-corpus.sh from the package root first")
            return
        }
        print("file                          size     unmanaged ms   managed ms   cost  (thread CPU time)")
        for path in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            for maxPixelSize in [nil, 256] as [Int?] {
                var unmanaged: [Double] = [], managed: [Double] = []
                for _ in 0..<CodecBenchmark.repetitions {
                    unmanaged.append(try threadCPUTime {
                        blackHole(try JPEGDecoder().decode(data, options: DecodingOptions(maxPixelSize: maxPixelSize, colorManagement: .keepSourcePixels)).bitmap)
                    })
                    managed.append(try threadCPUTime {
                        blackHole(try JPEGDecoder().decode(data, options: DecodingOptions(maxPixelSize: maxPixelSize)).bitmap)
                    })
                }
                let a = Measurement.median(of: unmanaged), b = Measurement.median(of: managed)
                let name = (path as NSString).lastPathComponent.padding(toLength: 28, withPad: " ", startingAt: 0)
                let label = (maxPixelSize.map { "\($0) px" } ?? "full").padding(toLength: 8, withPad: " ", startingAt: 0)
                print("\(name)  \(label) \(String(format: "%10.2f   %10.2f   %+5.1f %%", a, b, (b / a - 1) * 100))")
            }
        }
    }

    /// Milliseconds of this thread's CPU time that one run of `body` takes.
    private static func threadCPUTime(_ body: () throws -> Void) throws -> Double {
        func now() -> Double {
            var spec = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
            return Double(spec.tv_sec) * 1e3 + Double(spec.tv_nsec) / 1e6
        }
        let start = now()
        try body()
        return now() - start
    }

    /// Median milliseconds of `repetitions` runs of `body` after one untimed warm-up.
    private static func time(repetitions: Int, _ body: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        var times: [Double] = []
        for run in 0...repetitions {
            let start = clock.now
            try body()
            let (seconds, attoseconds) = start.duration(to: clock.now).components
            if run > 0 { times.append(Double(seconds) * 1e3 + Double(attoseconds) / 1e15) }
        }
        return Measurement.median(of: times)
    }
}
