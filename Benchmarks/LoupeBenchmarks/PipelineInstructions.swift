import Foundation
import Loupe
import LoupeCaching
import LoupeCodecs

/// `LoupeBenchmarks pipeline-instructions`: instructions per thumbnail load, counted by
/// `valgrind --tool=callgrind`, for the single-threaded work of the pipeline's decode stage
/// beside the bare stages. Instruction counts do not move with the other builds on the
/// machine, so this answers "how much does the pipeline's CPU work add" where wall and CPU
/// time swing.
///
/// The whole pipeline path runs too (modes `pipeline-1`, `pipeline-32`): `ImagePipeline.image(for:)`
/// with the network taken out, as `pipeline-plumbing` runs it, so its tasks, queues and hops are
/// counted with the decode. valgrind 3.19 (Debian 12) crashed on these threads only because an
/// async `main` parks the main thread in `rt_sigsuspend` with a mask in read-only memory, which
/// valgrind's wrapper writes to (SIGSEGV inside valgrind); the probe's main thread waits on a
/// semaphore instead, and valgrind runs with `--fair-sched=yes` (threads take turns in order).
///
/// The benchmark runs itself under callgrind (suite `pipeline-probe`) once per mode and load
/// count; instructions per load are the difference between a run of 2n and a run of n loads
/// divided by n, which cancels start-up (the runtime, Foundation, generating the images). Modes:
/// - `decode`: the bare stages: `ImageDecoder.decode` to ≤ 256 px (JPEG DCT scaling) and
///   `ImageProcessors.Resize(maxPixelSize: 256)`, as the bare side of `pipeline` runs them;
/// - `stage`: the pipeline's own code for the same: the header check of a download
///   (`checkDownloadedImage`) and the decode stage's work (`decodeWork`);
/// - `pipeline-1`, `pipeline-32`: the pipeline's thumbnail path, every load cold, one at a time
///   and 32 at a time (loads per run at least the concurrency);
/// - `process-encode`: the processors and encoders whose loops check for cancellation, on a
///   decoded 1024×768 photo, under a `WorkCancellation` as a worker runs them: a 512 px resize,
///   a blur of σ 3, a sharpen of σ 1, a pixelate of 4, then JPEG and PNG encodes.
///
/// The callgrind profiles stay in the printed folder for `callgrind_annotate`.
enum PipelineInstructions {
    static let modes = ["decode", "stage", "pipeline-1", "pipeline-32", "process-encode"]
    private static let imageCount = 8

    static func run() async throws {
        let loads = ProcessInfo.processInfo.environment["LOUPE_PROBE_LOADS"].flatMap(Int.init).map { max(1, $0) } ?? 8
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-callgrind-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard let built = Bundle.main.executablePath else { throw BenchmarkError("no executable path") }
        // valgrind 3.19 cannot read the DWARF 5 the Swift toolchain writes and gives up: it runs a
        // copy without debug information (symbols stay, so profiles still name functions).
        let executable = folder.appendingPathComponent("LoupeBenchmarks").path
        try run("/usr/bin/objcopy", ["--strip-debug", built, executable])
        print("-- instructions per 1024x768 ~100 KB JPEG -> 256 px thumbnail, callgrind, (count(\(2 * loads)) - count(\(loads))) / \(loads); load average \(PipelineBenchmark.loadAverage())")
        var perLoad: [String: Double] = [:]
        for mode in modes {
            var counts: [Int] = []
            let loads = max(loads, concurrency(of: mode))
            for count in [loads, 2 * loads] {
                counts.append(try callgrind(executable, mode: mode, loads: count, output: folder.appendingPathComponent("callgrind.\(mode).\(count).out").path))
            }
            let instructions = Double(counts[1] - counts[0]) / Double(loads)
            perLoad[mode] = instructions
            print(String(format: "  %@ %12.0f instructions/load  (runs: %d, %d)",
                         mode.padding(toLength: 12, withPad: " ", startingAt: 0), instructions, counts[0], counts[1]))
        }
        guard let decode = perLoad["decode"] else { return }
        for (mode, label) in [("stage", "pipeline decode stage"), ("pipeline-1", "pipeline path, concurrency 1"), ("pipeline-32", "pipeline path, concurrency 32")] {
            guard let count = perLoad[mode] else { continue }
            print(String(format: "  %@ vs bare stages: %+.2f %% instructions (target ≤ +5 %%: %@)",
                         label, (count / decode - 1) * 100, count / decode <= 1.05 ? "met" : "NOT met"))
        }
        print("  profiles: \(folder.path) (callgrind_annotate <file>)")
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("\(tool) \(arguments) failed") }
    }

    /// Runs the probe under callgrind; returns the instructions it executed.
    private static func callgrind(_ executable: String, mode: String, loads: Int, output: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/valgrind")
        process.arguments = ["--tool=callgrind", "--fair-sched=yes", "--callgrind-out-file=\(output)", executable, "pipeline-probe"]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["LOUPE_PROBE_MODE": mode, "LOUPE_PROBE_LOADS": "\(loads)"]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("callgrind \(mode) \(loads) failed:\n\(text)") }
        // "==123== Collected : 456789"
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Collected :") }),
              let number = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else { throw BenchmarkError("no instruction count in callgrind's output:\n\(text)") }
        return number
    }

    // MARK: The probe (runs under callgrind)

    /// The concurrency a mode's loads run at.
    private static func concurrency(of mode: String) -> Int {
        mode.split(separator: "-").last.flatMap { Int($0) } ?? 1
    }

    /// `pipeline-probe`: `LOUPE_PROBE_LOADS` thumbnail loads in `LOUPE_PROBE_MODE`; `decode` and
    /// `stage` one at a time, synchronously (no thread is started).
    static func probe() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let mode = environment["LOUPE_PROBE_MODE"], modes.contains(mode),
              let loads = environment["LOUPE_PROBE_LOADS"].flatMap(Int.init)
        else { throw BenchmarkError("pipeline-probe needs LOUPE_PROBE_MODE (\(modes.joined(separator: ", "))) and LOUPE_PROBE_LOADS") }
        // Fast to make (callgrind runs 50× slower): one encode per image, ~100 KB each.
        let images = try (0..<imageCount).map { try PipelineBenchmark.photo(width: 1024, height: 768, seed: $0, quality: 80) }
        let decoder = ImageDecoder()
        switch mode {
        case "decode":
            for index in 0..<loads { blackHole(try PipelineBenchmark.bareThumbnail(images[index % imageCount], decoder: decoder)) }
        case "process-encode":
            let bitmaps = try images.map { try decoder.decode($0, options: DecodingOptions(firstFrameOnly: true)).bitmap }
            let steps = ImageProcessors.ProcessorChain([ImageProcessors.Resize(maxPixelSize: 512), ImageProcessors.GaussianBlur(sigma: 3), ImageProcessors.Sharpen(sigma: 1), ImageProcessors.Pixelate(size: 4)])
            try WorkCancellation().install {
                for index in 0..<loads {
                    let processed = try steps.process(bitmaps[index % imageCount])
                    blackHole(try ImageEncoder().encode(processed, as: .jpeg(quality: 80)))
                    blackHole(try ImageEncoder().encode(processed, as: .png))
                }
            }
        case "stage":
            for index in 0..<loads {
                let data = images[index % imageCount]
                try DataStage.checkDownloadedImage(data, decoder: decoder)
                blackHole(try DecodeStage.decodeWork(data, thumbnail: 256, decoder: decoder, limits: DecodingLimits()))
            }
        default:
            let pipeline = PipelinePlumbing.makePipeline(images)
            let requests = try PipelinePlumbing.thumbnailRequests(loads: loads)
            try waitOnThisThread {
                try await PipelinePlumbing.pipelineThumbnails(pipeline, requests, concurrency: concurrency(of: mode))
            }
        }
    }

    /// Runs `body` in a task of its own and blocks this thread until it ends: the main thread
    /// of an async `main` waits in `rt_sigsuspend`, which crashes valgrind 3.19 (see above).
    private static func waitOnThisThread(_ body: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        Task.detached {
            do {
                try await body()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
