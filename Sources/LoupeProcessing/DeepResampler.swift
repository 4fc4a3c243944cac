import LoupeCaching
import LoupeCodecs

/// The resize engine for 16-bit samples (`Bitmap.deepSamples`): the same windowed filter and
/// taps as ``Resampler`` (its `Kernel`), on premultiplied `Float` pixels, without the box
/// pre-reduction and without the streaming ring — the horizontal pass over every row the
/// output reads, then the vertical one. Simpler and slower than the 8-bit engine, which stays
/// as it is: 16-bit results are asked for rarely (`preserve_hdr`).
struct DeepResampler {
    let filter: ResamplingFilter

    /// `region` of the `width`×`height` RGBA16 `samples` mapped onto `outputWidth`×`outputHeight`.
    func resample(_ samples: [UInt16], width: Int, height: Int, region: Resampler.Region,
                  outputWidth: Int, outputHeight: Int) throws(ProcessingError) -> Bitmap {
        let columns = Kernel(filter: filter, inputSize: width, outputSize: outputWidth, start: region.x, length: region.width)
        let rows = Kernel(filter: filter, inputSize: height, outputSize: outputHeight, start: region.y, length: region.height)
        let usedRows = rows.coveredRange, usedColumns = columns.coveredRange
        let cancellation = WorkCancellation.current
        var filtered = [SIMD4<Float>](repeating: .zero, count: usedRows.count * outputWidth)
        var row = [SIMD4<Float>](repeating: .zero, count: width)
        try samples.withUnsafeBufferPointer { source throws(ProcessingError) in
            try row.withUnsafeMutableBufferPointer { row throws(ProcessingError) in
                try filtered.withUnsafeMutableBufferPointer { filtered throws(ProcessingError) in
                    for y in usedRows {
                        try cancellation?.check(ProcessingError.cancelled)
                        for x in usedColumns {
                            let at = (y * width + x) * 4
                            let alpha = Float(source[at + 3])
                            let straight = SIMD4<Float>(Float(source[at]), Float(source[at + 1]), Float(source[at + 2]), 65535)
                            row[x] = straight * (alpha / 65535)
                        }
                        let slot = (y - usedRows.lowerBound) * outputWidth
                        columns.apply(row, into: UnsafeMutableBufferPointer(rebasing: filtered[slot..<slot + outputWidth]))
                    }
                }
            }
        }
        var out = [UInt16](repeating: 0, count: outputWidth * outputHeight * 4)
        try filtered.withUnsafeBufferPointer { filtered throws(ProcessingError) in
            try out.withUnsafeMutableBufferPointer { out throws(ProcessingError) in
                for y in 0..<outputHeight {
                    try cancellation?.check(ProcessingError.cancelled)
                    let first = rows.starts[y] - usedRows.lowerBound, taps = rows.counts[y], weights = y * rows.maxTaps
                    for x in 0..<outputWidth {
                        var sum = SIMD4<Float>.zero
                        for k in 0..<taps { sum += filtered[(first + k) * outputWidth + x] * rows.weights[weights + k] }
                        Self.store(sum, into: out, at: (y * outputWidth + x) * 4)
                    }
                }
            }
        }
        return try Bitmap.makeDeep(width: outputWidth, height: outputHeight, samples: out)
    }

    /// Un-premultiplies one accumulated pixel into straight 16-bit RGBA.
    @inline(__always)
    private static func store(_ pixel: SIMD4<Float>, into out: UnsafeMutableBufferPointer<UInt16>, at index: Int) {
        let alpha = min(max(pixel.w, 0), 65535)
        guard alpha >= 0.5 else {
            out[index] = 0; out[index + 1] = 0; out[index + 2] = 0; out[index + 3] = 0
            return
        }
        let rgb = pixel * (65535 / alpha)
        out[index] = sample(rgb.x); out[index + 1] = sample(rgb.y); out[index + 2] = sample(rgb.z)
        out[index + 3] = UInt16(alpha + 0.5)
    }

    /// A channel clamped to 0...65535 and rounded half up.
    @inline(__always)
    static func sample(_ value: Float) -> UInt16 { UInt16(min(max(value, 0), 65535) + 0.5) }
}
