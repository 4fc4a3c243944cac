/// The windowed filter a resize uses after its box pre-reduction.
public enum ResamplingFilter: String, Sendable, Hashable, CaseIterable {
    /// Lanczos with three lobes: sharpest, the default (Pillow's `LANCZOS`).
    case lanczos3
    /// Catmull-Rom cubic (a = -0.5): a little softer and cheaper (Pillow's `BICUBIC`, the
    /// default of its `thumbnail`).
    case catmullRom

    /// Half-width of the kernel at scale 1, in source pixels.
    var support: Double {
        switch self {
        case .lanczos3: 3
        case .catmullRom: 2
        }
    }

    /// The kernel at offset `x` (in source pixels at scale 1).
    func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch self {
        case .lanczos3:
            guard x < 3 else { return 0 }
            return Self.sinc(x) * Self.sinc(x / 3)
        case .catmullRom:
            let a = -0.5
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return (((x - 5) * x + 8) * x - 4) * a }
            return 0
        }
    }

    /// The kernel at `count` evenly spaced offsets `first`, `first + step`, … into `out`: the
    /// same values as `weight` at each offset, to within a few units in the last place of a
    /// `Double` (the weights become `Float`s). Lanczos needs two sines per tap; here it takes
    /// one sine and cosine per call, and each tap turns the angle by `step` (a rotation) and
    /// gets the other sine from the triple-angle identity: the sines were 2 % of a thumbnail's
    /// CPU.
    func weights(from first: Double, step: Double, count: Int, into out: UnsafeMutableBufferPointer<Double>) {
        guard self == .lanczos3 else {
            for k in 0..<count { out[k] = weight(first + Double(k) * step) }
            return
        }
        // s, c: sine and cosine of π·x/3; sin(π·x) = 3s − 4s³.
        let angle = Double.pi * first / 3, turn = Double.pi * step / 3
        var s = sin(angle), c = cos(angle)
        let turnSin = sin(turn), turnCos = cos(turn)
        for k in 0..<count {
            let x = first + Double(k) * step
            if abs(x) < 0.001 {
                // Near 0 the quotient divides the rotation's rounding by x²: ask directly.
                out[k] = weight(x)
            } else if abs(x) >= 3 {
                out[k] = 0
            } else {
                let px = Double.pi * x
                out[k] = (3 * s - 4 * s * s * s) * s / (px * px / 3)
            }
            (s, c) = (s * turnCos + c * turnSin, c * turnCos - s * turnSin)
        }
    }

    private static func sinc(_ x: Double) -> Double {
        guard x != 0 else { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
