import Foundation

/// thumbor's `meta/` answer: the source (URL, size, frames), the operations thumbor's
/// transformer would run on it (crops, resizes, flips, in order) and the target size, as
/// thumbor's JSON engine writes them.
struct ThumborMeta: Encodable {
    struct Source: Encodable {
        var url: String, width: Int, height: Int, frameCount: Int
    }

    struct Operation: Encodable {
        var type: String
        var left: Int?, top: Int?, right: Int?, bottom: Int?
        var width: Int?, height: Int?
    }

    struct Size: Encodable {
        var width: Int, height: Int
    }

    struct Body: Encodable {
        var source: Source
        var operations: [Operation]
        var target: Size
    }

    var thumbor: Body

    /// The operations of `geometry` on a `width`×`height` source with `frames` frames.
    init(geometry: ThumborGeometry, url: String, width: Int, height: Int, frames: Int) {
        let plan = geometry.plan(width: width, height: height)
        var operations = plan.crops.map { Operation(type: "crop", left: $0.left, top: $0.top, right: $0.right, bottom: $0.bottom) }
        operations += plan.resizes.map { Operation(type: "resize", width: $0.width, height: $0.height) }
        if geometry.flipHorizontal { operations.append(Operation(type: "flip_horizontally")) }
        if geometry.flipVertical { operations.append(Operation(type: "flip_vertically")) }
        thumbor = Body(source: Source(url: url, width: width, height: height, frameCount: frames), operations: operations,
                       target: Size(width: plan.width, height: plan.height))
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}
