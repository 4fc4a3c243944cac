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
