/// Modified median cut quantization (MMCQ, from Leptonica) exactly as the Python package
/// `colorthief` 0.2.1 runs it, including its quirks, so that colours match it bit for bit:
///
/// - the queue is a list re-sorted (stably, ascending) after pushes and popped from the end,
///   so ties go to the box pushed last;
/// - cuts are by population until 75 % of the asked count, then by population × volume, and
///   the second phase aims at `count - boxes so far` counting from one, which is why
///   ColorThief's palette of 10 holds 9 colours (and its palette of 2 holds 3);
/// - a cut may leave an empty box, which still counts as a colour (its geometric centre).
struct MedianCutQuantizer {
    /// ColorThief's `MAX_ITERATION`.
    private static let maxIterations = 1000
    /// ColorThief's `FRACT_BY_POPULATIONS`.
    private static let fractionByPopulation = 0.75

    let histogram: ColorHistogram

    /// ColorThief's `MMCQ.quantize(pixels, maxColors).palette`; `maxColors` in 2...256.
    func palette(maxColors: Int) -> [RGBColor] {
        var byPopulation = BoxQueue(key: { $0.count })
        byPopulation.push(ColorBox(histogram.bounds, in: histogram))
        split(&byPopulation, until: Self.fractionByPopulation * Double(maxColors))

        var byPopulationAndVolume = BoxQueue(key: { $0.count * $0.volume })
        while let box = byPopulation.pop() { byPopulationAndVolume.push(box) }
        split(&byPopulationAndVolume, until: Double(maxColors - byPopulationAndVolume.count))

        var colors: [RGBColor] = []
        while let box = byPopulationAndVolume.pop() { colors.append(box.average(in: histogram)) }
        return colors
    }

    /// ColorThief's inner `iter_`: cut the top box until `target` colours were made (counting
    /// from one) or the iteration budget runs out.
    private func split(_ queue: inout BoxQueue, until target: Double) {
        var colors = 1
        var iterations = 0
        while iterations < Self.maxIterations {
            guard let box = queue.pop() else { return }
            guard box.count > 0, let (first, second) = cut(box) else {
                // Empty boxes go back untouched (ColorThief); an uncuttable box cannot occur
                // for a populated one, but putting it back is the safe reading.
                queue.push(box)
                iterations += 1
                continue
            }
            queue.push(first)
            if let second {
                queue.push(second)
                colors += 1
            }
            if Double(colors) >= target { return }
            iterations += 1
        }
    }

    /// ColorThief's `median_cut_apply`: cut along the widest channel near the median.
    private func cut(_ box: ColorBox) -> (ColorBox, ColorBox?)? {
        if box.count == 1 { return (box, nil) }
        let bounds = box.bounds
        let rw = bounds.r2 - bounds.r1 + 1, gw = bounds.g2 - bounds.g1 + 1, bw = bounds.b2 - bounds.b1 + 1
        let widest = max(rw, gw, bw)
        let axis: WritableKeyPath<ColorBox.Bounds, Int>, axisEnd: WritableKeyPath<ColorBox.Bounds, Int>
        if widest == rw { (axis, axisEnd) = (\.r1, \.r2) } else if widest == gw { (axis, axisEnd) = (\.g1, \.g2) } else { (axis, axisEnd) = (\.b1, \.b2) }
        let low = bounds[keyPath: axis], high = bounds[keyPath: axisEnd]

        // partial[i - low]: pixels in the box with the axis value in low...i.
        var partial: [Int] = []
        partial.reserveCapacity(high - low + 1)
        for i in low...high {
            var slab = bounds
            slab[keyPath: axisEnd] = i
            partial.append(histogram.population(in: slab))
        }
        let total = partial[partial.count - 1]
        // ColorThief's dict lookups: a missing key reads as 0 (falsy), like an empty prefix.
        func partialSum(_ i: Int) -> Int { (low...high).contains(i) ? partial[i - low] : 0 }

        for i in low...high where 2 * partialSum(i) > total {
            let left = i - low, right = high - i
            // int(i + right / 2) and int(i - 1 - left / 2): true division, then truncation
            // toward zero; Swift's integer division of the doubled value truncates the same way.
            var d2 = left <= right ? min(high - 1, (2 * i + right) / 2) : max(low, (2 * i - 2 - left) / 2)
            // Avoid empty boxes, as ColorThief does. partial[high] == total > 0 ends the walk
            // (the bound only makes that visible).
            while d2 < high, partialSum(d2) == 0 { d2 += 1 }
            var lookahead = total - partialSum(d2)
            while lookahead == 0, partialSum(d2 - 1) != 0 {
                d2 -= 1
                lookahead = total - partialSum(d2)
            }
            var first = bounds, second = bounds
            first[keyPath: axisEnd] = d2
            second[keyPath: axis] = d2 + 1
            return (ColorBox(first, in: histogram), ColorBox(second, in: histogram))
        }
        return nil
    }
}

/// ColorThief's `PQueue`: a list kept sorted ascending by `key` (stable sort, done lazily after
/// pushes), popped from the end.
private struct BoxQueue {
    let key: (ColorBox) -> Int
    private var boxes: [ColorBox] = []
    private var isSorted = true

    init(key: @escaping (ColorBox) -> Int) { self.key = key }

    var count: Int { boxes.count }

    mutating func push(_ box: ColorBox) {
        boxes.append(box)
        isSorted = false
    }

    mutating func pop() -> ColorBox? {
        if !isSorted {
            // Ties keep their list order (Python's sort is stable); sorting on (key, position)
            // guarantees that whatever algorithm the standard library uses.
            let key = self.key
            boxes = boxes.enumerated()
                .sorted { (key($0.element), $0.offset) < (key($1.element), $1.offset) }
                .map(\.element)
            isSorted = true
        }
        return boxes.popLast()
    }
}
