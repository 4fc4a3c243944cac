import Foundation
import Loupe
import LoupeCodecs
import LoupeProcessing

extension ImageService {
    /// `/info`'s ``ImageInfo`` for the source at `url`: format, size as displayed, frames,
    /// bytes, colours and placeholders, computed from a decode shrunk to 256 px (the
    /// `--fast-colors` pixels of `loupe fetch`).
    ///
    /// When `options` resize, blur or flatten, the colours and placeholders are those of the
    /// processed result — what a client shows, a poster's crop rather than the whole poster —
    /// and `outputWidth` / `outputHeight` give its size; the other fields stay the source's.
    /// `cacheKey` names the source's data in the pipeline's caches when its URL alone does not
    /// (a local file's version).
    ///
    /// Its work takes its place in line after the requests that came before it (a new arrival
    /// when none is given), so image requests under load never leave it waiting forever.
    func info(for url: URL, options: ProcessingOptions = ProcessingOptions(), cacheKey: String? = nil,
              arrival: UInt64? = nil) async throws -> ImageInfo {
        let priority = LoadPriority(.medium, arrival: arrival ?? gate.takeArrival())
        let processes = options.changesGeometry || !options.filters.isEmpty || options.background != nil
        var request = processes
            ? Self.imageRequest(url: url, options: options, resultLimit: settings.maximumResultDimension)
            : ImageRequest(url: url, thumbnail: 256)
        request.cacheKey = cacheKey
        let response = try await pipeline.image(for: request, priority: priority)
        var bytes = response.data?.count ?? 0
        if response.data == nil { bytes = try await pipeline.data(for: request).data.count }
        let metadata = response.container.metadata
        let turned = metadata.orientation.swapsDimensions
        let result = response.bitmap
        var info = ImageInfo(format: metadata.format, width: turned ? metadata.height : metadata.width,
                             height: turned ? metadata.width : metadata.height, frames: metadata.frameCount, bytes: bytes)
        if processes {
            info.outputWidth = result.width
            info.outputHeight = result.height
        }
        let source = info
        return try await encodingQueue.runOffPool(priority: priority) { () throws -> ImageInfo in
            // A processed result's colours from at most 256 px a side, as a source alone's
            // come from its 256 px decode: a large result costs no more to describe.
            let bitmap = processes && max(result.width, result.height) > 256 ? try ImageProcessors.Resize(maxPixelSize: 256).process(result) : result
            var info = source
            info.colors = try ImageInfo.Colors(of: ColorSample(bitmap: bitmap, ofSourceWidth: metadata.width, height: metadata.height),
                                               paletteSize: 6)
            info.blurhash = try ImageInfo.blurhash(of: bitmap)
            info.thumbhash = try ImageInfo.thumbhash(of: bitmap)
            return info
        }
    }
}
