import LoupeCodecs

/// What a piece of image work will cost, estimated from sizes alone before a pixel is decoded
/// or allocated: pixel operations (one is about reading, weighting and adding one RGBA pixel
/// once, a nanosecond of one core in an optimised build) and the bytes it allocates (its output
/// and its scratch buffers). A service adds up a request's steps and refuses a request whose sum
/// is over its limit before any work starts, naming the step that weighs most.
public struct ProcessingCost: Sendable, Equatable, CustomStringConvertible {
    /// Pixel operations.
    public var operations: Double
    /// Bytes allocated at once.
    public var bytes: Double

    /// A cost of `operations` pixel operations and `bytes` bytes.
    public init(operations: Double, bytes: Double) {
        self.operations = operations
        self.bytes = bytes
    }

    /// Nothing.
    public static let zero = ProcessingCost(operations: 0, bytes: 0)

    /// `operations` per pixel and `bytesPerPixel` per pixel over `width`×`height` pixels (in
    /// `Double`: a size from a URL may be far beyond any real image).
    public static func perPixel(_ operations: Double, bytes bytesPerPixel: Double, width: Int, height: Int) -> ProcessingCost {
        let pixels = Double(max(0, width)) * Double(max(0, height))
        return ProcessingCost(operations: operations * pixels, bytes: bytesPerPixel * pixels)
    }

    /// Resampling a `width`×`height` image to `outputWidth`×`outputHeight` with `filter` (its
    /// reach stretched when shrinking): a horizontal pass into a few rows of floats, then a
    /// vertical one into the output.
    public static func resampling(width: Int, height: Int, outputWidth: Int, outputHeight: Int,
                                  filter: ResamplingFilter = .lanczos3) -> ProcessingCost {
        let support = filter.support
        let inWidth = Double(max(1, width)), inHeight = Double(max(1, height))
        let outWidth = Double(max(1, outputWidth)), outHeight = Double(max(1, outputHeight))
        let tapsX = 2 * support * max(1, inWidth / outWidth) + 2, tapsY = 2 * support * max(1, inHeight / outHeight) + 2
        return ProcessingCost(operations: outWidth * inHeight * tapsX + outWidth * outHeight * tapsY,
                              bytes: outWidth * outHeight * 4 + outWidth * tapsY * 16)
    }

    public static func + (lhs: ProcessingCost, rhs: ProcessingCost) -> ProcessingCost {
        ProcessingCost(operations: lhs.operations + rhs.operations, bytes: lhs.bytes + rhs.bytes)
    }

    public static func += (lhs: inout ProcessingCost, rhs: ProcessingCost) {
        lhs = lhs + rhs
    }

    /// The cost of `factor` times the work (an animation's frames).
    public static func * (cost: ProcessingCost, factor: Double) -> ProcessingCost {
        ProcessingCost(operations: cost.operations * factor, bytes: cost.bytes * factor)
    }

    public var description: String {
        "\(Int((operations / 1_000_000).rounded(.up))) million pixel operations and \(Int((bytes / 1_048_576).rounded(.up))) MB"
    }
}

/// A processor that can say what it would cost on an input of a given size, without pixels:
/// what lets a request be refused before its work starts rather than after its memory is taken.
public protocol CostEstimating {
    /// The cost of processing a `width`×`height` image.
    func estimatedCost(width: Int, height: Int) -> ProcessingCost
}

/// Work refused before it started because its estimated cost is over a limit: names the step
/// (for a service, the URL option) that weighs most, so the caller knows what to lower.
public struct CostLimitExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    /// The step that weighs most, as the caller names it (e.g. `blur`, `format`).
    public let option: String
    /// The whole work's estimated cost.
    public let cost: ProcessingCost
    /// What it was refused against.
    public let limit: String

    /// A refusal of work costing `cost` over `limit`, most of it from `option`.
    public init(option: String, cost: ProcessingCost, limit: String) {
        self.option = option
        self.cost = cost
        self.limit = limit
    }

    public var description: String {
        "the request would take about \(cost), over \(limit); '\(option)' weighs most"
    }
}
