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
            var request = ImageRequest(url: try source.url.get(), thumbnail: options.thumbnail)
            // An animation written to --out in a format that animates keeps its frames (up to the
            // pipeline's frame limit); anything else needs the first frame alone.
            if options.outputDirectory != nil, options.format.map(\.imageFormat.animates) ?? true {
                request.maximumFrames = pipeline.configuration.decodingLimits.maxFrameCount
            }
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
            let info = ImageInfo(format: metadata.format, width: turned ? metadata.height : metadata.width,
                                 height: turned ? metadata.width : metadata.height, frames: metadata.frameCount, bytes: data.count,
                                 outputWidth: container.bitmap.width, outputHeight: container.bitmap.height)
            var image = FetchedImage(info: info, origin: response.origin, duration: .zero)
            let options = self.options
            guard options.colors != nil || options.placeholder != nil || options.outputDirectory != nil else {
                image.duration = start.duration(to: .now)
                return .success(image)
            }
            let work = try await cpuQueue.runOffPool(priority: LoadPriority(.medium)) {
                try Self.derive(from: container, data: data, options: options, outputStem: outputStem)
            }
            image.info.colors = work.colors
            image.info.blurhash = work.blurhash
            image.info.thumbhash = work.thumbhash
            image.path = work.path
            image.duration = start.duration(to: .now)
            return .success(image)
        } catch {
            return .failure(FetchFailure(error))
        }
    }

    private struct Derived: Sendable {
        var colors: ImageInfo.Colors?
        var blurhash: String?
        var thumbhash: String?
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
            derived.blurhash = try ImageInfo.blurhash(of: bitmap)
        case .thumbhash?:
            derived.thumbhash = try ImageInfo.thumbhash(of: bitmap)
        case nil:
            break
        }
        if let directory = options.outputDirectory {
            let output = OutputChoice(named: options.format?.imageFormat, quality: options.quality)
                .decide(source: container.metadata.format, transparent: bitmap.hasTransparency, animated: !container.laterFrames.isEmpty)
            let encoded = try ImageEncoder().encode(container.frames, loopCount: container.metadata.loopCount ?? 0, as: output.encoderFormat())
            let url = directory.appendingPathComponent(outputStem + "." + output.format.fileExtension)
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

    /// Exact: ColorThief's pixels and sampling. Fast: a decode shrunk to at least the
    /// processing module's fast size (256 px, where its deviation from exact is measured) —
    /// the pipeline's thumbnail when it is that large — every pixel sampled. The choice is
    /// `DominantColorExtractor`'s, shared with the library.
    private static func colors(of container: ImageContainer, data: Data, mode: ColorMode, options: FetchOptions) throws -> ImageInfo.Colors {
        let extractor = DominantColorExtractor(mode: mode == .exact ? .exact : .fastDefault, limits: options.decodingLimits)
        let thumbnail = options.thumbnail.map {
            DominantColorExtractor.Thumbnail(bitmap: container.bitmap, maxPixelSize: $0, metadata: container.metadata)
        }
        return try ImageInfo.Colors(of: extractor.sample(of: data, thumbnail: thumbnail), paletteSize: options.paletteSize)
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return nsError.localizedDescription
    }
}
