import Foundation
import LoupeCodecs
import LoupeProcessing

/// `LoupeBenchmarks processing`: dominant colour and resize on the corpus photographs, beside
/// the Python references run in the same invocation (Scripts/conformance/bench_reference.py in
/// the conformance venv; Scripts/ci/test.sh or Scripts/conformance/venv.sh makes it):
///
/// - exact dominant colour including read + decode vs `ColorThief(path).get_color(quality=10)`
///   (target ≥ 10×), and the quantization alone (sampling + MMCQ on decoded pixels) vs
///   `get_color` on an already decoded image (target ≥ 100×);
/// - fast mode (shrinking decode) including read + decode, against the same colorthief call;
/// - resize to fit 256 px vs Pillow's `thumbnail((256, 256))` on the same decoded pixels.
///
/// Single-threaded, medians of repeated runs after a warm-up, per file and over all files
/// (sum of medians). Run from the package root: `swift run -c release LoupeBenchmarks processing`.
enum ProcessingBenchmark {
    static let files = [
        "Corpus/skimage/astronaut.png", "Corpus/skimage/chelsea.png", "Corpus/skimage/coffee.png",
        "Corpus/skimage/motorcycle_left.png", "Corpus/skimage/hubble_deep_field.jpg",
        "Corpus/skimage/retina.jpg", "Corpus/skimage/rocket.jpg", "Corpus/gdk-pixbuf/issue70.jpg",
        "Corpus/gdk-pixbuf/bug725582-testrotate.jpg",
    ]

    /// Timed runs per measurement (LOUPE_BENCH_REPETITIONS overrides; Python uses a third).
    static var repetitions: Int {
        ProcessInfo.processInfo.environment["LOUPE_BENCH_REPETITIONS"].flatMap(Int.init).map { max(3, $0) } ?? 15
    }

    struct Row {
        var file: String
        var exact = 0.0, fast = 0.0, quantize = 0.0, resizeLanczos = 0.0, resizeCatmullRom = 0.0
        var color = RGBColor(red: 0, green: 0, blue: 0)
    }

    private struct Reference: Decodable {
        let file: String
        let color: [Int]
        let colorthief_total: Double
        let colorthief_quantize: Double
        let pillow_thumbnail: Double
    }

    static func run() async throws {
        let python = ".venv-conformance/bin/python"
        guard FileManager.default.fileExists(atPath: "Corpus/.complete"), FileManager.default.isExecutableFile(atPath: python) else {
            print("processing: needs ./Corpus and ./.venv-conformance: run Scripts/fetch-corpus.sh and Scripts/conformance/venv.sh from the package root")
            return
        }
        let work = URL(fileURLWithPath: ".build-bench/processing")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let repetitions = repetitions
        let exact = DominantColorExtractor(mode: .exact), fast = DominantColorExtractor(mode: .fastDefault)
        var rows: [Row] = [], cases: [String] = []

        for (n, path) in files.enumerated() {
            let url = URL(fileURLWithPath: path)
            var row = Row(file: path)
            row.exact = try medianMilliseconds(repetitions) { try exact.dominantColor(of: Data(contentsOf: url)) }
            row.fast = try medianMilliseconds(repetitions) { try fast.dominantColor(of: Data(contentsOf: url)) }
            let bitmap = try ImageDecoder().decode(Data(contentsOf: url), options: DecodingOptions(firstFrameOnly: true)).bitmap
            row.quantize = try medianMilliseconds(repetitions) { try bitmap.dominantColor(quality: 10) }
            row.resizeLanczos = try medianMilliseconds(repetitions) { try ImageProcessors.Resize(maxPixelSize: 256).process(bitmap) }
            row.resizeCatmullRom = try medianMilliseconds(repetitions) {
                try ImageProcessors.Resize(maxPixelSize: 256, filter: .catmullRom).process(bitmap)
            }
            row.color = try bitmap.dominantColor()
            rows.append(row)

            let raw = work.appendingPathComponent("\(n).rgba")
            var bytes = [UInt8]()
            bytes.reserveCapacity(bitmap.width * bitmap.height * 4)
            for y in 0..<bitmap.height {
                bytes += bitmap.pixels[y * bitmap.bytesPerRow ..< y * bitmap.bytesPerRow + bitmap.width * 4]
            }
            try Data(bytes).write(to: raw)
            cases.append("\(path):\(raw.path):\(bitmap.width):\(bitmap.height)")
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["Scripts/conformance/bench_reference.py", "\(max(3, repetitions / 3))"] + cases
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            print("processing: bench_reference.py failed with status \(process.terminationStatus)")
            return
        }
        let references = try JSONDecoder().decode([Reference].self, from: output)

        print("  file                                     | exact  fast   quant  | colorthief tot  quant | ×tot  ×quant | L3-256 CR-256 Pillow | ×CR")
        var sums = (exact: 0.0, fast: 0.0, quantize: 0.0, lanczos: 0.0, catmull: 0.0, total: 0.0, ctQuantize: 0.0, pillow: 0.0)
        for (row, reference) in zip(rows, references) {
            let same = [Int(row.color.red), Int(row.color.green), Int(row.color.blue)] == reference.color
            let name = (row.file as NSString).lastPathComponent.padding(toLength: 40, withPad: " ", startingAt: 0)
            print(String(format: "  %@ | %6.2f %6.2f %6.3f | %9.1f %8.1f | %5.0f %6.0f | %6.2f %6.2f %6.2f | %4.1f%@",
                         name, row.exact, row.fast, row.quantize,
                         reference.colorthief_total, reference.colorthief_quantize,
                         reference.colorthief_total / row.exact, reference.colorthief_quantize / row.quantize,
                         row.resizeLanczos, row.resizeCatmullRom, reference.pillow_thumbnail,
                         reference.pillow_thumbnail / row.resizeCatmullRom, same ? "" : "  (colour differs: JPEG decoders)"))
            sums.exact += row.exact; sums.fast += row.fast; sums.quantize += row.quantize
            sums.lanczos += row.resizeLanczos; sums.catmull += row.resizeCatmullRom
            sums.total += reference.colorthief_total; sums.ctQuantize += reference.colorthief_quantize
            sums.pillow += reference.pillow_thumbnail
        }
        print("  (ms, medians; exact and fast include read + decode; L3 = Lanczos-3, CR = Catmull-Rom, the filter of Pillow's thumbnail)")
        print(String(format: "  ratio: exact dominant colour incl. decode is %.0f× faster than ColorThief(path).get_color() over all files (target ≥ 10×: %@)",
                     sums.total / sums.exact, sums.total / sums.exact >= 10 ? "met" : "NOT met"))
        print(String(format: "  ratio: quantization alone is %.0f× faster than colorthief's on decoded pixels (target ≥ 100×: %@)",
                     sums.ctQuantize / sums.quantize, sums.ctQuantize / sums.quantize >= 100 ? "met" : "NOT met"))
        print(String(format: "  ratio: fast mode incl. decode is %.0f× faster than ColorThief(path).get_color(), %.1f× faster than exact mode",
                     sums.total / sums.fast, sums.exact / sums.fast))
        print(String(format: "  ratio: resize to 256 px: Catmull-Rom %.1f×, Lanczos-3 %.1f× the speed of Pillow's thumbnail (BICUBIC) on the same pixels",
                     sums.pillow / sums.catmull, sums.pillow / sums.lanczos))
    }

    /// Median wall time of `repetitions` runs after one warm-up, in milliseconds.
    static func medianMilliseconds<T>(_ repetitions: Int, _ body: () throws -> T) throws -> Double {
        blackHole(try body())
        var times: [Double] = []
        for _ in 0..<repetitions {
            let start = ContinuousClock.now
            blackHole(try body())
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
        }
        return Measurement.median(of: times)
    }
}
