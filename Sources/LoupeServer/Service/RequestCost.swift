import Foundation
import LoupeCodecs
import LoupeProcessing

/// What one request will cost, estimated from its URL and its source's header before a pixel
/// is decoded: the decode, every step of the geometry and the filters, the background, the
/// watermark and the encode (as often as `max_bytes` may need), times the frames kept; each
/// step under the URL option that asks for it, so that a refusal names what to lower.
struct RequestCost: Sendable {
    /// One step and the option it is charged to.
    struct Step: Sendable {
        let option: String
        let cost: ProcessingCost
    }

    /// The steps, in the order they run.
    var steps: [Step] = []
    /// Bytes held while every step runs: the decoded frames.
    var heldBytes = 0.0

    /// Pixel operations in all.
    var operations: Double { steps.reduce(0) { $0 + $1.cost.operations } }
    /// The most bytes held at once: the decode and the largest step's allocation beside it.
    var peakBytes: Double { heldBytes + (steps.map(\.cost.bytes).max() ?? 0) }
    /// The whole, as one cost.
    var total: ProcessingCost { ProcessingCost(operations: operations, bytes: peakBytes) }

    // The codecs' work per pixel in pixel operations (about a nanosecond of one core each), and
    // the encoders' own buffers in bytes per pixel: libjpeg-turbo decodes and encodes in a few
    // nanoseconds a pixel, libwebp's encoder and zlib's deflate of RGBA take tens to a hundred
    // times that, AV1 (AVIF, and HEIF's HEVC) hundreds. PNG's output can be as large as the
    // pixels (photos barely compress losslessly) and grows by doubling.

    /// Pixel operations to decode one pixel of `format`.
    static func decodeOperations(_ format: ImageFormat) -> Double {
        switch format {
        case .jpeg, .gif, .bmp, .ico: 8
        case .png, .webp, .tiff: 15
        // librsvg's work depends on the drawing, not the pixels: charged as the costliest
        // raster decoders, at the scale it is drawn at.
        case .heif, .avif, .jxl, .svg: 60
        }
    }

    /// Pixel operations to encode one pixel as `format`.
    static func encodeOperations(_ format: ImageFormat) -> Double {
        switch format {
        // SVG is never encoded: its result is the sanitised source, a pass over its bytes.
        case .jpeg, .bmp, .ico, .svg: 10
        case .gif: 60
        case .webp: 100
        case .png, .tiff: 200
        case .jxl: 300
        case .heif, .avif: 800
        }
    }

    /// Bytes an encoder allocates per pixel: its working copies and its output.
    static func encodeBytes(_ format: ImageFormat) -> Double {
        switch format {
        case .jpeg: 1
        case .gif, .webp: 3
        case .bmp, .ico, .svg: 4
        case .png, .heif, .avif, .jxl, .tiff: 6
        }
    }
}

/// The most one request may cost (``ServerSettings/maximumRequestCost``), and the bytes: two
/// RGBA copies of the largest source allowed, which every URL that a photo within the source
/// limits legitimately needs stays under (its decode and one full-size result).
struct RequestCostLimit: Sendable, Hashable {
    /// Pixel operations.
    let operations: Double
    /// Bytes held at once.
    let bytes: Double

    init(settings: ServerSettings) {
        operations = Double(settings.maximumRequestCost) * 1_000_000
        bytes = 8 * Double(settings.maximumSourcePixels)
    }

    /// The options that make the image larger than the source: an encode (the format) weighing
    /// most is charged to the last of them, which made the result that large.
    static let growing: Set<String> = ["enlarge", "dpr", "zoom", "min-width", "min-height", "extend", "extend_aspect_ratio", "padding"]

    /// Refuses `cost` when it is over either bound, naming the option that weighs most in the
    /// bound it passes.
    func check(_ cost: RequestCost) throws(CostLimitExceeded) {
        let total = cost.total
        if total.operations > operations {
            var heaviest = cost.steps.max { $0.cost.operations < $1.cost.operations }
            if heaviest?.option == "format", let growth = cost.steps.last(where: { Self.growing.contains($0.option) }) { heaviest = growth }
            throw CostLimitExceeded(option: heaviest?.option ?? "source", cost: total,
                                    limit: "--max-request-cost (\(Int(operations / 1_000_000)) million pixel operations)")
        }
        if total.bytes > bytes {
            let heaviest = cost.steps.max { $0.cost.bytes < $1.cost.bytes }
            throw CostLimitExceeded(option: heaviest.map { cost.heldBytes > $0.cost.bytes ? "source" : $0.option } ?? "source", cost: total,
                                    limit: "the memory one request may take (\(Int(bytes / 1_048_576)) MB, twice the largest source decoded)")
        }
    }
}

/// A dialect's geometry as the cost check weighs it: its plan gives the share of the source it
/// decodes (``SourceScaledProcessing``), and its steps their costs.
protocol CostedGeometry: SourceScaledProcessing {
    /// The geometry's steps and their costs on an upright `width`×`height` source decoded at
    /// `decodeScale` of its size, each under the URL option that asks for it; and the result's
    /// size.
    func estimatedSteps(width: Int, height: Int, decodeScale: Double) -> (steps: [RequestCost.Step], width: Int, height: Int)
}

/// The part of a request's cost its URL decides besides the geometry — the output format,
/// `max_bytes`, the background, the watermark — and the limit: what the request's first
/// processor carries to the source's header, where the rest becomes known and the whole is
/// checked (``ImgproxyGeometry/checkSource(_:maximumFrames:)``).
struct RequestCostCheck: Sendable {
    let limit: RequestCostLimit
    /// The output format when the URL or `Accept` decides it; `nil` for the source's rule.
    let format: ImageFormat?
    /// Encodes `max_bytes` may take: each lowers the quality until the result fits.
    let encodes: Int
    /// Whether `background` flattens the result.
    let flattens: Bool
    let watermark: ImageProcessors.Watermark?
    /// The largest source accepted, in pixels (all frames together).
    let maximumPixels: Int
    /// The most frames decoded.
    let maximumFrames: Int

    init(options: ProcessingOptions, format: ImageFormat?, watermark: ImageProcessors.Watermark?, maximumFrames: Int, settings: ServerSettings) {
        limit = RequestCostLimit(settings: settings)
        maximumPixels = settings.maximumSourcePixels
        self.maximumFrames = maximumFrames
        self.format = format
        flattens = options.background != nil
        self.watermark = watermark
        var encodes = 1
        let start = ResultEncoder.quality(for: format ?? .jpeg, options: options, settings: settings)
        if options.maxBytes > 0, format?.isLossy ?? true {
            // The most encodes imgproxy's steps make: the smallest step down each time.
            var quality = start
            while quality > ResultEncoder.lowestFittingQuality {
                quality = ResultEncoder.nextQuality(after: quality, size: 2, target: 2)
                encodes += 1
            }
        }
        self.encodes = encodes
    }

    /// What sets this check apart, for the first processor's identifier.
    var key: String {
        "\(Int(limit.operations)):\(Int(limit.bytes)):\(format?.rawValue ?? "-"):\(encodes):\(flattens ? 1 : 0):\(watermark?.identifier ?? "-")"
    }

    /// The request's cost on a source with this header (upright size), of which
    /// `maximumFrames` frames are decoded.
    func estimate(_ geometry: some CostedGeometry, source: ImageMetadata, maximumFrames: Int) -> RequestCost {
        let (width, height) = Self.uprightSize(of: source)
        let frames = Double(max(1, min(source.frameCount, maximumFrames)))
        // A plan the limits refuse is refused before its cost is weighed (`checkSource`).
        var scale = (try? geometry.plan(sourceWidth: width, sourceHeight: height)).map { geometry.minimumSourceScale(for: $0) } ?? 1
        switch source.format {
        case .jpeg: scale = Double(JPEGDecoder.scaleEighths(width: width, height: height, maxPixelSize: nil, minimumScale: scale)) / 8
        case .svg: break  // drawn at the scale the result needs
        default: scale = 1
        }
        let decoded = ProcessingCost.perPixel(RequestCost.decodeOperations(source.format), bytes: 4,
                                              width: Int((Double(width) * scale).rounded(.up)), height: Int((Double(height) * scale).rounded(.up)))
        var cost = RequestCost(heldBytes: decoded.bytes * frames)
        cost.steps.append(.init(option: frames > 1 ? "max_animation_frames" : "source",
                                cost: ProcessingCost(operations: decoded.operations * frames, bytes: 0)))
        let geometrySteps = geometry.estimatedSteps(width: width, height: height, decodeScale: scale)
        cost.steps += geometrySteps.steps.map { .init(option: $0.option, cost: $0.cost * frames) }
        let (resultWidth, resultHeight) = (geometrySteps.width, geometrySteps.height)
        if flattens {
            cost.steps.append(.init(option: "background", cost: ImageProcessors.Flatten(background: .init(red: 0, green: 0, blue: 0))
                .estimatedCost(width: resultWidth, height: resultHeight) * frames))
        }
        if let watermark {
            cost.steps.append(.init(option: "watermark", cost: watermark.estimatedCost(width: resultWidth, height: resultHeight) * frames))
        }
        // The source's rule, as if the result had transparency (PNG for a PNG source).
        let output = format ?? .defaultOutput(forSource: source.format, transparent: true)
        let encodedFrames = output.animates ? frames : 1
        let encode = ProcessingCost.perPixel(RequestCost.encodeOperations(output), bytes: RequestCost.encodeBytes(output),
                                             width: resultWidth, height: resultHeight)
        cost.steps.append(.init(option: encodes > 1 ? "max_bytes" : "format",
                                cost: ProcessingCost(operations: encode.operations * encodedFrames * Double(encodes),
                                                     bytes: encode.bytes * encodedFrames)))
        return cost
    }

    /// The size of the source `metadata` describes as it is decoded (upright), at least 1×1: what
    /// a geometry is planned and weighed on.
    static func uprightSize(of metadata: ImageMetadata) -> (width: Int, height: Int) {
        let turned = metadata.orientation.swapsDimensions
        return (max(1, turned ? metadata.height : metadata.width), max(1, turned ? metadata.width : metadata.height))
    }

    /// Throws when the request is over the limit on a source with this header.
    func check(_ geometry: some CostedGeometry, source: ImageMetadata, maximumFrames: Int) throws(CostLimitExceeded) {
        try limit.check(estimate(geometry, source: source, maximumFrames: maximumFrames))
    }

    /// Whether no source the server accepts can take the request over the limit: then it
    /// needs no check at the header (a plain fit may keep its thumbnail decode). The worst
    /// sources: one frame of the largest size, square, in the costliest format to decode, and
    /// `maximumFrames` frames sharing the pixel limit.
    func passesEverySource(_ geometry: some CostedGeometry) -> Bool {
        let frameCounts = maximumFrames > 1 ? [1, maximumFrames] : [1]
        return frameCounts.allSatisfy { frames in
            let side = max(1, Int(Double(maximumPixels / frames).squareRoot()))
            let worst = ImageMetadata(format: .avif, width: side, height: side, frameCount: frames)
            var limited = self
            if limited.format == nil { limited = RequestCostCheck(copying: self, format: .avif) }
            return (try? limited.limit.check(limited.estimate(geometry, source: worst, maximumFrames: frames))) != nil
        }
    }

    private init(copying other: RequestCostCheck, format: ImageFormat) {
        limit = other.limit
        self.format = format
        encodes = other.encodes
        flattens = other.flattens
        watermark = other.watermark
        maximumPixels = other.maximumPixels
        maximumFrames = other.maximumFrames
    }
}
