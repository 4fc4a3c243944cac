import Foundation
import LoupeCodecs
import LoupeProcessing

/// `LoupeBenchmarks formats`: decode-to-256-px thumbnail time for HEIF, AVIF and JPEG XL files
/// (made by Scripts/bench/bench-formats.sh in .build-bench/formats, whose paths it passes in
/// LOUPE_BENCH_FILES), and `LoupeBenchmarks color`: what colour management adds to decoding
/// tagged JPEGs. Single-threaded, one process, medians; lines for Scripts/bench/bench-formats.sh.
enum FormatsBenchmark {
    /// Decode with `maxPixelSize: 256`, then the same area average as `CodecBenchmark`, so the
    /// result is a finished thumbnail like vipsthumbnail's and Pillow's.
    static func run() async throws {
        let files = (ProcessInfo.processInfo.environment["LOUPE_BENCH_FILES"] ?? "").split(separator: " ").map(String.init)
        guard !files.isEmpty else {
            print("formats: run Scripts/bench/bench-formats.sh (it makes the files and passes them in LOUPE_BENCH_FILES)")
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

    /// Tagged JPEGs decoded with and without conversion to sRGB — at full size, and as a 256 px
    /// thumbnail (DCT-scaled decode + lanczos3 resize) converted after the resize as the
    /// pipeline's decode stage does, and before it for comparison — interleaved (A B C A B C)
    /// so machine noise hits all alike, timed in the thread's CPU time: on the shared machine
    /// wall-clock medians swung by several times (an untagged file, which converts nothing,
    /// came out +700 %), because a decode of a few ms is often descheduled.
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
        print("file                          size      unmanaged ms   managed ms   cost     (converted before resizing)  thread CPU time")
        for path in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let name = (path as NSString).lastPathComponent.padding(toLength: 28, withPad: " ", startingAt: 0)
            var unmanaged: [Double] = [], managed: [Double] = []
            for _ in 0..<CodecBenchmark.repetitions {
                unmanaged.append(try threadCPUTime {
                    blackHole(try JPEGDecoder().decode(data, options: DecodingOptions(colorManagement: .keepSourcePixels)).bitmap)
                })
                managed.append(try threadCPUTime { blackHole(try JPEGDecoder().decode(data, options: DecodingOptions()).bitmap) })
            }
            print(row(name, "full", Measurement.median(of: unmanaged), Measurement.median(of: managed), before: nil))
            let size = 256
            func thumbnail(_ management: ColorManagement) throws -> Bitmap {
                let image = try JPEGDecoder().decode(data, options: DecodingOptions(maxPixelSize: size, colorManagement: management))
                var bitmap = try ImageProcessors.Resize(maxPixelSize: size).process(image.bitmap)
                image.pendingColorConversion?.apply(to: &bitmap)
                return bitmap
            }
            var plain: [Double] = [], after: [Double] = [], before: [Double] = []
            for _ in 0..<CodecBenchmark.repetitions {
                plain.append(try threadCPUTime { blackHole(try thumbnail(.keepSourcePixels)) })
                after.append(try threadCPUTime { blackHole(try thumbnail(.convertToSRGBAfterResizing)) })
                before.append(try threadCPUTime { blackHole(try thumbnail(.convertToSRGB)) })
            }
            print(row(name, "\(size) px", Measurement.median(of: plain), Measurement.median(of: after), before: Measurement.median(of: before)))
        }
    }

    /// One line of the colour table: the cost of `managed` over `unmanaged`, and of `before` if given.
    private static func row(_ name: String, _ size: String, _ unmanaged: Double, _ managed: Double, before: Double?) -> String {
        let label = size.padding(toLength: 8, withPad: " ", startingAt: 0)
        var line = "\(name)  \(label) \(String(format: "%10.2f   %10.2f   %+6.1f %%", unmanaged, managed, (managed / unmanaged - 1) * 100))"
        if let before { line += String(format: "   %10.2f ms  %+6.1f %%", before, (before / unmanaged - 1) * 100) }
        return line
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
