import LoupeCaching
import LoupeCodecs

/// The 16-bit implementations of the steps a 16-bit result passes through besides the resize
/// (``DeepResampler``): crop, extend (padding, embedding), flatten and the watermark. Each
/// step calls its twin here when its input has `Bitmap.deepSamples`; a step without one
/// reads the 8-bit pixels and gives an 8-bit result.
enum DeepPixelSteps {
    /// `width`×`height` pixels of `bitmap`'s samples from (`left`, `top`), inside it.
    static func crop(_ bitmap: Bitmap, samples: [UInt16], left: Int, top: Int, width: Int, height: Int) throws(ProcessingError) -> Bitmap {
        var out = [UInt16](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            let from = ((top + row) * bitmap.width + left) * 4
            out.replaceSubrange(row * width * 4..<(row + 1) * width * 4, with: samples[from..<from + width * 4])
        }
        return try Bitmap.makeDeep(width: width, height: height, samples: out)
    }

    /// `bitmap` on a `width`×`height` canvas of `fill` at (`x`, `y`); `left`…`bottom` is the
    /// overlap, in canvas coordinates (`ImageProcessors.Extend` works it out).
    static func extend(_ bitmap: Bitmap, samples: [UInt16], width: Int, height: Int, x: Int, y: Int,
                       overlap: (left: Int, top: Int, right: Int, bottom: Int), fill: [UInt8]) throws(ProcessingError) -> Bitmap {
        let fillSamples = fill.map(Bitmap.sixteenBit)
        var out = [UInt16](repeating: 0, count: width * height * 4)
        for i in 0..<width * height { for c in 0..<4 { out[i * 4 + c] = fillSamples[c] } }
        if overlap.right > overlap.left, overlap.bottom > overlap.top {
            let count = (overlap.right - overlap.left) * 4, sourceX = overlap.left - x
            for row in overlap.top..<overlap.bottom {
                let from = ((row - y) * bitmap.width + sourceX) * 4, to = (row * width + overlap.left) * 4
                out.replaceSubrange(to..<to + count, with: samples[from..<from + count])
            }
        }
        return try Bitmap.makeDeep(width: width, height: height, samples: out)
    }

    /// `samples` over an opaque `background`: colour × α + background × (1 − α), rounded.
    static func flatten(_ bitmap: Bitmap, samples: [UInt16], background: RGBColor) throws(ProcessingError) -> Bitmap {
        let back = [background.red, background.green, background.blue].map { Int(Bitmap.sixteenBit($0)) }
        var out = samples
        for i in stride(from: 0, to: out.count, by: 4) {
            let alpha = Int(out[i + 3]), rest = 65535 - alpha
            for c in 0..<3 { out[i + c] = UInt16((Int(out[i + c]) * alpha + back[c] * rest + 32767) / 65535) }
            out[i + 3] = 65535
        }
        return try Bitmap.makeDeep(width: bitmap.width, height: bitmap.height, samples: out)
    }

    /// `mark` (8 or 16 bits) composited source-over onto `samples` at each place `placement`
    /// names, its alpha multiplied by `opacity` (0...1).
    static func watermark(_ bitmap: Bitmap, samples: [UInt16], mark: Bitmap, placement: WatermarkLayout.Placement,
                          opacity: Double) throws(ProcessingError) -> Bitmap {
        let markSamples = mark.widenedSamples
        let width = bitmap.width, height = bitmap.height
        var out = samples
        let cancellation = WorkCancellation.current
        func blend(markX: Int, markY: Int, x: Int, y: Int) {
            let m = (markY * mark.width + markX) * 4, o = (y * width + x) * 4
            let source = (Double(markSamples[m + 3]) * opacity / 65535)
            guard source > 0 else { return }
            let destination = Double(out[o + 3]) / 65535, rest = destination * (1 - source)
            // Premultiplied source-over, un-premultiplied into straight alpha.
            let total = source + rest
            for c in 0..<3 {
                let value = (Double(markSamples[m + c]) * source + Double(out[o + c]) * rest) / total
                out[o + c] = UInt16(min(max(value, 0), 65535).rounded())
            }
            out[o + 3] = UInt16(min(max(total * 65535, 0), 65535).rounded())
        }
        switch placement {
        case .none:
            return bitmap
        case let .single(left, top):
            for y in max(0, top)..<max(max(0, top), min(height, top + mark.height)) {
                try cancellation?.check(ProcessingError.cancelled)
                for x in max(0, left)..<max(max(0, left), min(width, left + mark.width)) {
                    blend(markX: x - left, markY: y - top, x: x, y: y)
                }
            }
        case let .tiled(cellWidth, cellHeight, left, top):
            for y in 0..<height {
                try cancellation?.check(ProcessingError.cancelled)
                let markY = y % cellHeight - top
                guard markY >= 0, markY < mark.height else { continue }
                for x in 0..<width {
                    let markX = x % cellWidth - left
                    guard markX >= 0, markX < mark.width else { continue }
                    blend(markX: markX, markY: markY, x: x, y: y)
                }
            }
        }
        return try Bitmap.makeDeep(width: width, height: height, samples: out)
    }
}

extension Bitmap {
    /// A bitmap of 16-bit samples whose geometry the caller has validated; mapped rather than
    /// trapped should it not hold.
    static func makeDeep(width: Int, height: Int, samples: [UInt16]) throws(ProcessingError) -> Bitmap {
        do {
            return try Bitmap(width: width, height: height, deepSamples: samples)
        } catch {
            throw .invalidSize(width: width, height: height)
        }
    }
}
