import LoupeCaching
import LoupeCodecs

/// The resize engine: box pre-reduction by integer factors (like Pillow's `reducing_gap`),
/// then a separable windowed filter, on premultiplied `Float` pixels so transparent pixels'
/// colours never bleed into visible ones (an opaque bitmap is already premultiplied as it is).
///
/// It streams: each output row needs a window of horizontally filtered rows, kept in a small
/// ring, and each of those is made on demand from (box-reduced) source rows, so memory is a
/// few rows whatever the image size, and source rows outside the needed region are never read.
struct Resampler {
    /// The part of the source to map onto the output, in source pixels (may be fractional).
    struct Region {
        var x: Double, y: Double, width: Double, height: Double
    }

    let filter: ResamplingFilter
    /// Pre-reduce with a box while the remaining scale stays at least this factor.
    let reducingGap: Double

    func resample(_ bitmap: Bitmap, region: Region, width outWidth: Int, height outHeight: Int) throws(ProcessingError) -> Bitmap {
        if let deep = bitmap.deepSamples {
            return try DeepResampler(filter: filter).resample(deep, width: bitmap.width, height: bitmap.height, region: region,
                                                              outputWidth: outWidth, outputHeight: outHeight)
        }
        // Box factors: shrink by whole numbers while at least `reducingGap` is left for the
        // windowed filter.
        let factorX = max(1, Int(region.width / Double(outWidth) / reducingGap))
        let factorY = max(1, Int(region.height / Double(outHeight) / reducingGap))
        let reducedWidth = (bitmap.width + factorX - 1) / factorX
        let reducedHeight = (bitmap.height + factorY - 1) / factorY

        let columns = Kernel(filter: filter, inputSize: reducedWidth, outputSize: outWidth,
                             start: region.x / Double(factorX), length: region.width / Double(factorX))
        let rows = Kernel(filter: filter, inputSize: reducedHeight, outputSize: outHeight,
                          start: region.y / Double(factorY), length: region.height / Double(factorY))
        let usedColumns = columns.coveredRange

        // An opaque source (every JPEG) needs no premultiplying: alpha is 255 throughout, so
        // the colours pass through as they are and the stored alpha is 255.
        let opaque = !bitmap.hasTransparency
        // Checked once per output row (a row's taps cost far more than the check's one load).
        let cancellation = WorkCancellation.current
        let resampled = try Bitmap.make(width: outWidth, height: outHeight) { out throws(ProcessingError) in
            try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                let reader = RowReader(source: source, width: bitmap.width, height: bitmap.height,
                                       bytesPerRow: bitmap.bytesPerRow, factorX: factorX, factorY: factorY, opaque: opaque)
                let ringSize = rows.maxTaps
                // Where each of an output row's taps starts in the ring, worked out once per row:
                // a remainder per tap and per four pixels put an integer division in the
                // vertical pass's innermost loop.
                var tapOffsets = [Int](repeating: 0, count: ringSize)
                try withScratch(count: reducedWidth + ringSize * outWidth + outWidth) { scratch throws(ProcessingError) in
                    let row = UnsafeMutableBufferPointer(rebasing: scratch[0..<reducedWidth])
                    let ring = UnsafeMutableBufferPointer(rebasing: scratch[reducedWidth..<reducedWidth + ringSize * outWidth])
                    let accumulator = UnsafeMutableBufferPointer(rebasing: scratch[(reducedWidth + ringSize * outWidth)...])
                    var nextRow = 0  // first reduced row not yet filtered into the ring

                    for y in 0..<outHeight {
                        try cancellation?.check(ProcessingError.cancelled)
                        let first = rows.starts[y], taps = rows.counts[y]
                        // Fill the ring with the rows this output row needs (windows only move
                        // down, so rows above `first` are never needed again).
                        for r in max(nextRow, first)..<(first + taps) {
                            reader.read(row: r, columns: usedColumns, into: row)
                            let slot = UnsafeMutableBufferPointer(rebasing: ring[(r % ringSize) * outWidth ..< (r % ringSize + 1) * outWidth])
                            columns.apply(row, into: slot)
                        }
                        nextRow = max(nextRow, first + taps)

                        for k in 0..<taps { tapOffsets[k] = ((first + k) % ringSize) * outWidth }
                        rows.weights.withUnsafeBufferPointer { weights in
                            tapOffsets.withUnsafeBufferPointer { offsets in
                                let rowWeights = UnsafeBufferPointer(rebasing: weights[(y * rows.maxTaps)..<(y * rows.maxTaps + taps)])
                                Self.combine(ring: UnsafeBufferPointer(ring), width: outWidth, offsets: offsets, weights: rowWeights,
                                             into: accumulator)
                            }
                        }
                        let rowStart = UnsafeMutableBufferPointer(rebasing: out[(y * outWidth * 4)..<((y + 1) * outWidth * 4)])
                        if !opaque { Self.unpremultiply(accumulator) }
                        FloatPixels.store(UnsafeBufferPointer(accumulator), opaque: opaque, into: rowStart)
                    }
                }
            }
        }
        // Every stored alpha is 255 when the source was opaque (`FloatPixels.store`).
        return opaque ? resampled.knownOpaque() : resampled
    }

    /// The vertical pass for one output row: each pixel the weighted sum of its column in the
    /// ring's rows starting at `offsets[0]`, `offsets[1]`… (one per weight), in that order.
    ///
    /// Four pixels at a time, each summed in a register: one chain of additions per pixel is
    /// bound by the addition's latency, four independent ones are not, and the sum is never
    /// stored and reloaded between taps. Each pixel's sum runs in the same order as a plain
    /// loop's, so the result is the same to the bit.
    private static func combine(ring: UnsafeBufferPointer<SIMD4<Float>>, width: Int, offsets: UnsafeBufferPointer<Int>,
                                weights: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        var x = 0
        while x + 4 <= width {
            var a = SIMD4<Float>.zero, b = SIMD4<Float>.zero, c = SIMD4<Float>.zero, d = SIMD4<Float>.zero
            for k in 0..<weights.count {
                let weight = weights[k]
                let base = offsets[k] &+ x
                a += ring[base] * weight
                b += ring[base &+ 1] * weight
                c += ring[base &+ 2] * weight
                d += ring[base &+ 3] * weight
            }
            out[x] = a; out[x &+ 1] = b; out[x &+ 2] = c; out[x &+ 3] = d
            x &+= 4
        }
        while x < width {
            var sum = SIMD4<Float>.zero
            for k in 0..<weights.count { sum += ring[offsets[k] &+ x] * weights[k] }
            out[x] = sum
            x &+= 1
        }
    }

    /// Turns a row of accumulated premultiplied pixels into straight colour and alpha, in place,
    /// for `FloatPixels.store`: a pixel whose alpha rounds to 0 becomes all zeros.
    private static func unpremultiply(_ pixels: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        for x in pixels.indices {
            let p = pixels[x]
            let alpha = min(max(p.w, 0), 255)
            guard alpha >= 0.5 else {
                pixels[x] = .zero
                continue
            }
            var straight = p * (255 / alpha)
            straight.w = alpha
            pixels[x] = straight
        }
    }
}

/// Precomputed filter taps along one axis (Pillow's formulation: output pixel i centred at
/// `start + (i + 0.5) * scale` in input pixels, kernel widened by the scale when shrinking,
/// clipped to the image and renormalized).
struct Kernel {
    var starts: [Int]
    var counts: [Int]
    /// `maxTaps` weights per output pixel.
    var weights: [Float]
    let maxTaps: Int

    init(filter: ResamplingFilter, inputSize: Int, outputSize: Int, start: Double, length: Double) {
        let scale = length / Double(outputSize)
        let stretch = max(scale, 1)
        let support = filter.support * stretch
        let maxTaps = min(inputSize, Int(support * 2) + 2)
        var starts = [Int](repeating: 0, count: outputSize)
        var counts = [Int](repeating: 0, count: outputSize)
        var weights = [Float](repeating: 0, count: outputSize * maxTaps)
        var lastStart = 0
        var local = [Double](repeating: 0, count: maxTaps)
        for i in 0..<outputSize {
            let centre = start + (Double(i) + 0.5) * scale
            var low = max(0, Int((centre - support + 0.5).rounded(.down)))
            let high = min(inputSize, Int((centre + support + 0.5).rounded(.down)))
            // Keep windows monotonic and non-empty (the ring relies on it).
            low = min(max(low, lastStart), inputSize - 1)
            let taps = max(1, min(high - low, maxTaps))
            local.withUnsafeMutableBufferPointer { local in
                filter.weights(from: (Double(low) - centre + 0.5) / stretch, step: 1 / stretch, count: taps, into: local)
                var total = 0.0
                for k in 0..<taps { total += local[k] }
                for k in 0..<taps {
                    weights[i * maxTaps + k] = Float(total != 0 ? local[k] / total : (k == 0 ? 1 : 0))
                }
            }
            starts[i] = low
            counts[i] = taps
            lastStart = low
        }
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.maxTaps = maxTaps
    }

    /// The input indices any output pixel reads.
    var coveredRange: Range<Int> {
        let low = starts.first ?? 0
        let high = zip(starts, counts).map { $0 + $1 }.max() ?? low
        return low..<high
    }

    /// Filters `row` (input pixels) into `out` (output pixels).
    func apply(_ row: UnsafeMutableBufferPointer<SIMD4<Float>>, into out: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        weights.withUnsafeBufferPointer { weights in
            starts.withUnsafeBufferPointer { starts in
                counts.withUnsafeBufferPointer { counts in
                    // Four output pixels at a time, each its own chain of additions (one chain
                    // waits on the addition's latency at every tap), each summed in the same
                    // order as alone: the same result to the bit.
                    var i = 0
                    while i &+ 4 <= out.count {
                        let first0 = starts[i], first1 = starts[i &+ 1], first2 = starts[i &+ 2], first3 = starts[i &+ 3]
                        let taps0 = counts[i], taps1 = counts[i &+ 1], taps2 = counts[i &+ 2], taps3 = counts[i &+ 3]
                        let base0 = i &* maxTaps, base1 = base0 &+ maxTaps, base2 = base1 &+ maxTaps, base3 = base2 &+ maxTaps
                        var s0 = SIMD4<Float>.zero, s1 = SIMD4<Float>.zero, s2 = SIMD4<Float>.zero, s3 = SIMD4<Float>.zero
                        let shared = min(min(taps0, taps1), min(taps2, taps3))
                        for k in 0..<shared {
                            s0 += row[first0 &+ k] * weights[base0 &+ k]
                            s1 += row[first1 &+ k] * weights[base1 &+ k]
                            s2 += row[first2 &+ k] * weights[base2 &+ k]
                            s3 += row[first3 &+ k] * weights[base3 &+ k]
                        }
                        for k in shared..<taps0 { s0 += row[first0 &+ k] * weights[base0 &+ k] }
                        for k in shared..<taps1 { s1 += row[first1 &+ k] * weights[base1 &+ k] }
                        for k in shared..<taps2 { s2 += row[first2 &+ k] * weights[base2 &+ k] }
                        for k in shared..<taps3 { s3 += row[first3 &+ k] * weights[base3 &+ k] }
                        out[i] = s0; out[i &+ 1] = s1; out[i &+ 2] = s2; out[i &+ 3] = s3
                        i &+= 4
                    }
                    while i < out.count {
                        let first = starts[i], taps = counts[i], base = i &* maxTaps
                        var sum = SIMD4<Float>.zero
                        for k in 0..<taps { sum += row[first &+ k] * weights[base &+ k] }
                        out[i] = sum
                        i &+= 1
                    }
                }
            }
        }
    }
}

/// Reads source rows as premultiplied floats (alpha 0...255, colour scaled by alpha / 255),
/// averaging `factorX`×`factorY` blocks when pre-reducing (edge blocks average what exists).
private struct RowReader {
    let source: UnsafeBufferPointer<UInt8>
    let width: Int, height: Int, bytesPerRow: Int
    let factorX: Int, factorY: Int
    /// Every alpha is 255 (read as `FloatPixels.load` reads an opaque row).
    let opaque: Bool

    func read(row: Int, columns: Range<Int>, into out: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        if factorX == 1, factorY == 1 {
            // No pre-reduction: premultiply straight from the bytes.
            let at = row * bytesPerRow + columns.lowerBound * 4
            FloatPixels.load(UnsafeBufferPointer(rebasing: source[at..<(at + columns.count * 4)]), opaque: opaque,
                             into: UnsafeMutableBufferPointer(rebasing: out[columns]))
            return
        }
        let top = row * factorY, bottom = min(height, top + factorY)
        for column in columns {
            let left = column * factorX, right = min(width, left + factorX)
            var sum = SIMD4<Int>.zero
            for y in top..<bottom {
                var at = y * bytesPerRow + left * 4
                for _ in left..<right {
                    let a = Int(source[at + 3])
                    sum &+= SIMD4(Int(source[at]) * a, Int(source[at + 1]) * a, Int(source[at + 2]) * a, a * 255)
                    at += 4
                }
            }
            let count = Float((bottom - top) * (right - left))
            out[column] = SIMD4<Float>(sum) / (255 * count)
        }
    }
}

/// Runs `body` with an uninitialized-then-zeroed buffer of `count` SIMD4<Float>, freed after.
private func withScratch<R>(count: Int, _ body: (UnsafeMutableBufferPointer<SIMD4<Float>>) throws(ProcessingError) -> R) throws(ProcessingError) -> R {
    let buffer = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: max(count, 1))
    buffer.initialize(repeating: .zero)
    defer { buffer.deallocate() }
    return try body(buffer)
}
