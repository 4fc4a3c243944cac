import Foundation
import Loupe
import LoupeCaching
import LoupeCodecs
import LoupeProcessing

/// Does `loupe fetch`'s work for one source: loads it through the pipeline (coalesced, cached,
/// decoded downscaled), then computes what the options ask — colours, placeholder, a file.
struct Fetcher: Sendable {
    let pipeline: ImagePipeline
    let options: FetchOptions
    /// Bounds the CPU work done here (a full-size decode for exact colours, encoding) at one
    /// per core, off Swift's cooperative pool, beside the pipeline's own decoding queue.
    let cpuQueue: WorkQueue

    init(pipeline: ImagePipeline, options: FetchOptions) {
        self.pipeline = pipeline
        self.options = options
        cpuQueue = WorkQueue(maximumConcurrency: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The outcome for `source`; `outputStem` names its file under `--out`.
    func fetch(_ source: FetchSource, outputStem: String) async -> Result<FetchedImage, FetchFailure> {
        let start = ContinuousClock.now
        do {
            let request = ImageRequest(url: try source.url.get(), thumbnail: options.thumbnail)
            let response = try await pipeline.image(for: request)
            // A memory hit carries no data; the data is then on disk, or loaded again.
            let data: Data
            if let loaded = response.data {
                data = loaded
            } else {
                data = try await pipeline.data(for: request).data
            }
            let container = response.container
            let metadata = container.metadata
            // Sizes as displayed: a quarter turn (EXIF 5-8) swaps the stored width and height.
            let turned = metadata.orientation.swapsDimensions
            var image = FetchedImage(
                format: metadata.format,
                width: turned ? metadata.height : metadata.width, height: turned ? metadata.width : metadata.height,
                outputWidth: container.bitmap.width, outputHeight: container.bitmap.height,
                frames: metadata.frameCount, bytes: data.count, origin: response.origin, duration: .zero)
            let options = self.options
            guard options.colors != nil || options.placeholder != nil || options.outputDirectory != nil else {
                image.duration = start.duration(to: .now)
                return .success(image)
            }
            let work = try await cpuQueue.run(priority: LoadPriority(.medium)) {
                try await runOffCooperativePool {
                    try Self.derive(from: container, data: data, options: options, outputStem: outputStem)
                }
            }
            image.colors = work.colors
            image.placeholder = work.placeholder
            image.path = work.path
            image.duration = start.duration(to: .now)
            return .success(image)
        } catch {
            return .failure(FetchFailure(error))
        }
    }

    private struct Derived: Sendable {
        var colors: ImageColors?
        var placeholder: Placeholder?
        var path: String?
    }

    /// Colours, placeholder and output file: blocking CPU and file work.
    private static func derive(
        from container: ImageContainer, data: Data, options: FetchOptions, outputStem: String
    ) throws -> Derived {
        let bitmap = container.bitmap
        var derived = Derived()
        if let mode = options.colors {
            derived.colors = try colors(of: container, data: data, mode: mode, options: options)
        }
        switch options.placeholder {
        case .blurhash?:
            derived.placeholder = .blurhash(try BlurHash.encode(Resize(maxPixelSize: 32).process(bitmap)))
        case .thumbhash?:
            derived.placeholder = .thumbhash(Data(try ThumbHash.encode(bitmap)).base64EncodedString())
        case nil:
            break
        }
        if let directory = options.outputDirectory {
            let outputFormat = OutputFormat.resolved(options.format, source: container.metadata.format)
            let encoded = try ImageEncoder().encode(bitmap, as: outputFormat.encoderFormat(quality: options.quality))
            let url = directory.appendingPathComponent(outputStem + "." + outputFormat.fileExtension)
            do {
                // Atomic: a reader, or a run killed midway, never sees half a file.
                try encoded.write(to: url, options: .atomic)
            } catch {
                throw FetchFailure.io("cannot write \(url.path): \(Self.reason(error))")
            }
            derived.path = url.path
        }
        return derived
    }

    /// Exact: the full-size first frame as stored (unrotated, 16-bit samples cut to their high
    /// byte as Pillow does), every 10th pixel — the pixels and sampling `colorthief` uses. Fast: a downscaled decode, every pixel — the pipeline's
    /// thumbnail when it is at least the processing module's fast size (256 px, where its
    /// deviation from exact is measured), else the data decoded shrunk to that size.
    private static func colors(of container: ImageContainer, data: Data, mode: ColorMode, options: FetchOptions) throws -> ImageColors {
        let pixels: Bitmap
        let quality: Int
        switch mode {
        case .exact:
            pixels = try ImageDecoder().decode(data, options: DecodingOptions(
                firstFrameOnly: true, limits: options.decodingLimits, sixteenBitReduction: .highByte)).bitmap
            quality = 10
        case .fast:
            let fastSize = 256
            pixels = (options.thumbnail ?? 0) >= fastSize ? container.bitmap : try ImageDecoder().decode(
                data, options: DecodingOptions(maxPixelSize: fastSize, firstFrameOnly: true, limits: options.decodingLimits)).bitmap
            // A decode that could not shrink (small images, PNG, GIF) is sampled as the exact
            // mode samples; a shrunk one already averaged its pixels, so every one is used.
            let isShrunk = pixels.width * pixels.height < container.metadata.width * container.metadata.height
            quality = isShrunk ? 1 : 10
        }
        do {
            return ImageColors(
                dominant: try pixels.dominantColor(quality: quality),
                palette: try pixels.palette(count: options.paletteSize, quality: quality))
        } catch .noUsablePixels {
            return ImageColors(dominant: nil, palette: [])
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return nsError.localizedDescription
    }
}
