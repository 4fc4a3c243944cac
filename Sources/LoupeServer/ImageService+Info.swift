import Foundation
import Loupe
import LoupeCodecs
import LoupeProcessing

extension ImageService {
    /// `/info`'s JSON for the source at `url`: the fields of `loupe fetch --json` (format, size
    /// as displayed, frames, bytes) with its colours and placeholders, computed from a decode
    /// shrunk to 256 px (the `--fast-colors` pixels).
    ///
    /// When `options` resize, blur or flatten, the colours and placeholders are those of the
    /// processed result — what a client shows, a poster's crop rather than the whole poster —
    /// and `resultWidth` / `resultHeight` give its size; the other fields stay the source's.
    /// `cacheKey` names the source's data in the pipeline's caches when its URL alone does not
    /// (a local file's version).
    ///
    /// Its work takes its place in line after the requests that came before it (a new arrival
    /// when none is given), so image requests under load never leave it waiting forever.
    func info(for url: URL, options: ProcessingOptions = ProcessingOptions(), cacheKey: String? = nil,
              arrival: UInt64? = nil) async throws -> Data {
        let priority = LoadPriority(.medium, arrival: arrival ?? gate.takeArrival())
        let processes = options.changesGeometry || !options.filters.isEmpty || options.background != nil
        var request = processes
            ? Self.imageRequest(url: url, options: options, format: nil, resultLimit: settings.maximumResultDimension)
            : ImageRequest(url: url, thumbnail: 256)
        request.cacheKey = cacheKey
        let response = try await pipeline.image(for: request, priority: priority)
        var bytes = response.data?.count ?? 0
        if response.data == nil { bytes = try await pipeline.data(for: request).data.count }
        let container = response.container
        let metadata = container.metadata
        let turned = metadata.orientation.swapsDimensions
        let result = response.bitmap
        let derived = try await encodingQueue.runOffPool(priority: priority) { () throws -> Derived in
            // A processed result's colours from at most 256 px a side, as a source alone's
            // come from its 256 px decode: a large result costs no more to describe.
            let bitmap = processes && max(result.width, result.height) > 256 ? try Resize(maxPixelSize: 256).process(result) : result
            let isShrunk = bitmap.width * bitmap.height < metadata.width * metadata.height
            var derived = Derived()
            do throws(ColorExtractionError) {
                let dominant = try bitmap.dominantColor(quality: isShrunk ? 1 : 10)
                derived.dominantColor = dominant.hex
                derived.backgroundColor = dominant.backgroundColor.hex
                derived.palette = try bitmap.palette(count: 6, quality: isShrunk ? 1 : 10).map(\.hex)
            } catch .noUsablePixels {
                // No opaque, non-white pixel: null colours, as `loupe fetch` reports them.
            } catch {
                throw error
            }
            derived.blurhash = try BlurHash.encode(Resize(maxPixelSize: 32).process(bitmap))
            derived.thumbhash = Data(try ThumbHash.encode(Resize(maxPixelSize: ThumbHash.maxSide).process(bitmap))).base64EncodedString()
            return derived
        }
        var object: [String: Any] = [
            "dominantColor": derived.dominantColor ?? NSNull(), "backgroundColor": derived.backgroundColor ?? NSNull(),
            "palette": derived.palette, "blurhash": derived.blurhash, "thumbhash": derived.thumbhash,
        ]
        object["format"] = metadata.format.rawValue
        object["width"] = turned ? metadata.height : metadata.width
        object["height"] = turned ? metadata.width : metadata.height
        object["frames"] = metadata.frameCount
        object["bytes"] = bytes
        if processes {
            object["resultWidth"] = result.width
            object["resultHeight"] = result.height
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}

/// What `/info` computes from the pixels.
private struct Derived: Sendable {
    var dominantColor: String?
    var backgroundColor: String?
    var palette: [String] = []
    var blurhash = ""
    var thumbhash = ""
}
