import LoupeCodecs

/// Where a cut keeps the most detail: imgproxy's smart gravity (`g:sm`), which crops to the
/// most interesting region instead of a fixed side.
///
/// Interest is edge energy — how much luma changes between neighbouring pixels — summed over a
/// grid of at most ``gridSide`` cells a side, measured at source resolution (sampled with a
/// stride on large images) so fine texture counts even where a downscale would average it
/// away; transparent pixels count for nothing. The window of the cut's size with the most
/// energy wins; when several tie (the detail fits in more than one), the middle of them, so
/// the detail is centred; a flat image is cut at its centre.
struct SmartCrop {
    /// Cells per side of the interest grid, at most.
    static let gridSide = 64
    /// Samples per side, at most: beyond it pixels are sampled with a stride, bounding the cost.
    static let sampleSide = 1024

    /// The top-left corner, in source pixels, of a `cutWidth`×`cutHeight` window inside
    /// `bitmap` that keeps the most detail; always inside the image.
    static func origin(in bitmap: Bitmap, cutWidth: Double, cutHeight: Double) -> (x: Double, y: Double) {
        let width = bitmap.width, height = bitmap.height
        let freeX = max(0, Double(width) - cutWidth), freeY = max(0, Double(height) - cutHeight)
        guard freeX > 0 || freeY > 0 else { return (0, 0) }
        let scale = min(1, Double(gridSide) / Double(max(width, height)))
        let columns = max(1, Int((Double(width) * scale).rounded())), rows = max(1, Int((Double(height) * scale).rounded()))
        let energy = Self.energy(of: bitmap, columns: columns, rows: rows)
        guard energy.contains(where: { $0 > 0 }) else { return (freeX / 2, freeY / 2) }

        // Summed-area table: any window's energy in four lookups.
        var table = [Int](repeating: 0, count: (columns + 1) * (rows + 1))
        for row in 0..<rows {
            var line = 0
            for column in 0..<columns {
                line += energy[row * columns + column]
                table[(row + 1) * (columns + 1) + column + 1] = table[row * (columns + 1) + column + 1] + line
            }
        }
        let windowColumns = min(columns, max(1, Int((cutWidth * Double(columns) / Double(width)).rounded())))
        let windowRows = min(rows, max(1, Int((cutHeight * Double(rows) / Double(height)).rounded())))
        var best = -1
        var tied: [(Int, Int)] = []
        for top in 0...(rows - windowRows) {
            for left in 0...(columns - windowColumns) {
                let bottom = top + windowRows, right = left + windowColumns
                let sum = table[bottom * (columns + 1) + right] - table[top * (columns + 1) + right]
                    - table[bottom * (columns + 1) + left] + table[top * (columns + 1) + left]
                if sum > best {
                    best = sum
                    tied = [(left, top)]
                } else if sum == best {
                    tied.append((left, top))
                }
            }
        }
        let left = Double(tied.map(\.0).reduce(0, +)) / Double(tied.count)
        let top = Double(tied.map(\.1).reduce(0, +)) / Double(tied.count)
        // A window at the grid's far edge means the image's far edge (no rounding short of it).
        let x = left == Double(columns - windowColumns) ? freeX : left * Double(width) / Double(columns)
        let y = top == Double(rows - windowRows) ? freeY : top * Double(height) / Double(rows)
        return (min(max(0, x), freeX), min(max(0, y), freeY))
    }

    /// Edge energy per grid cell: for sampled pixels, the luma differences to the right and
    /// lower neighbours, weighted by opacity.
    private static func energy(of bitmap: Bitmap, columns: Int, rows: Int) -> [Int] {
        let width = bitmap.width, height = bitmap.height, stride = bitmap.bytesPerRow
        let step = max(1, max(width, height) / sampleSide)
        var cells = [Int](repeating: 0, count: columns * rows)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            func luma(_ i: Int) -> Int {
                // Rec. 601 weights in 1/1024, scaled by alpha: transparent areas are not detail.
                (Int(pixels[i]) * 306 + Int(pixels[i + 1]) * 601 + Int(pixels[i + 2]) * 117) * Int(pixels[i + 3]) / (1024 * 255)
            }
            var y = 0
            while y < height {
                let row = y * stride
                let cellRow = min(rows - 1, y * rows / height) * columns
                var x = 0
                while x < width {
                    let i = row + x * 4
                    let here = luma(i)
                    var change = 0
                    if x + 1 < width { change += abs(luma(i + 4) - here) }
                    if y + 1 < height { change += abs(luma(i + stride) - here) }
                    cells[cellRow + min(columns - 1, x * columns / width)] += change
                    x += step
                }
                y += step
            }
        }
        return cells
    }
}
