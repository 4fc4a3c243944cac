/// thumbor's `noise(amount[, seed])`: one random offset in `-amount/2 ..< amount/2` added to a
/// pixel's red, green and blue alike, pixel after pixel in row order, clamped; alpha kept.
///
/// The offsets come from glibc's `random()` sequence after `srandom(seed)` (its additive
/// feedback generator, rebuilt here with state of its own, so results do not depend on the
/// platform or on other threads), which is what thumbor draws from on Linux: a seeded request's
/// pixels are thumbor's. thumbor leaves the process's sequence where it is for seed 0, so its
/// results differ from call to call; Loupe takes seed 0 as an unseeded glibc process starts
/// (seed 1), so a URL keeps one result.
extension ImageProcessors.ColorTransform {
    /// Noise of `amount` (the width of the offsets' range; 0 changes nothing), drawn from the
    /// sequence `seed` starts.
    public static func noise(amount: Int, seed: UInt32) -> Self {
        Self(name: "noise(\(amount),\(seed))") {
            var generator = NoiseGenerator(seed: seed)
            let width = max(amount, 1), half = amount >> 1
            return { red, green, blue in
                guard amount > 0 else { return }
                let offset = Int(generator.next()) % width - half
                red += offset
                green += offset
                blue += offset
            }
        }
    }
}

/// glibc's `random()` of type 3: 31 words of state, taps 31 and 3, the first 310 outputs
/// dropped.
struct NoiseGenerator {
    private var state: [UInt32]
    private var front = 3, rear = 0

    init(seed: UInt32) {
        var words = [UInt32](repeating: 0, count: 31)
        var word = Int64(seed == 0 ? 1 : seed)
        words[0] = UInt32(truncatingIfNeeded: word)
        for index in 1..<31 {
            // 16807 × word mod (2³¹ − 1), without overflow (Schrage's method, as glibc).
            let high = word / 127_773, low = word % 127_773
            word = 16807 * low - 2836 * high
            if word < 0 { word += 2_147_483_647 }
            words[index] = UInt32(truncatingIfNeeded: word)
        }
        state = words
        for _ in 0..<310 { _ = next() }
    }

    /// The next value in 0..<2³¹.
    mutating func next() -> UInt32 {
        state[front] = state[front] &+ state[rear]
        let result = state[front] >> 1
        front += 1
        rear += 1
        if front >= state.count { front = 0 }
        if rear >= state.count { rear = 0 }
        return result
    }
}
