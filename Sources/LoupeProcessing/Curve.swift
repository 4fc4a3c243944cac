import Foundation

extension ImageProcessors.ChannelTables {
    /// One curve's points, x strictly increasing, every value in 0...255.
    public typealias CurvePoints = [(x: Int, y: Int)]

    /// thumbor's `curve(all,r,g,b)`: each channel through its own curve, then through the curve
    /// of all channels; each curve a natural cubic spline through its points `(x, y)`, rounded
    /// and clamped, flat before the first point at the first point's y and from the last point
    /// on at its y, as thumbor interpolates it. `nil` when a curve has no point, a value outside
    /// 0...255 or an x that does not increase.
    public static func curve(all: CurvePoints, red: CurvePoints, green: CurvePoints, blue: CurvePoints) -> Self? {
        let curves = [all, red, green, blue]
        for points in curves {
            guard !points.isEmpty, points.allSatisfy({ (0...255).contains($0.x) && (0...255).contains($0.y) }),
                  zip(points, points.dropFirst()).allSatisfy({ $0.x < $1.x }) else { return nil }
        }
        let tables = curves.map(Self.spline)
        let name = "curve(" + curves.map { $0.map { "\($0.x),\($0.y)" }.joined(separator: ";") }.joined(separator: "|") + ")"
        return Self(name: name, red: { tables[0][tables[1][$0]] }, green: { tables[0][tables[2][$0]] }, blue: { tables[0][tables[3][$0]] })
    }

    /// The 256 values of the spline through `points`.
    static func spline(_ points: CurvePoints) -> [Int] {
        let second = secondDerivatives(points)
        var values = [Int](repeating: points[0].y, count: 256)
        for index in 0..<(points.count - 1) {
            let (x0, y0) = points[index], (x1, y1) = points[index + 1]
            let h = Double(x1 - x0)
            for x in x0..<x1 {
                let t = Double(x - x0) / h, a = 1 - t, b = t
                let y = a * Double(y0) + b * Double(y1) + (h * h / 6) * ((a * a * a - a) * second[index] + (b * b * b - b) * second[index + 1])
                values[x] = y.isFinite ? Int(min(max(y.rounded(), 0), 255)) : 0
            }
        }
        for x in (points[points.count - 1].x)..<256 { values[x] = points[points.count - 1].y }
        return values
    }

    /// The spline's second derivative at each point (natural ends: 0), by the tridiagonal
    /// system's elimination as thumbor solves it.
    static func secondDerivatives(_ points: CurvePoints) -> [Double] {
        let n = points.count
        var lower = [Double](repeating: 0, count: n), diagonal = [Double](repeating: 0, count: n)
        var upper = [Double](repeating: 0, count: n), result = [Double](repeating: 0, count: n)
        diagonal[0] = 1
        diagonal[n - 1] = 1
        for i in 1..<max(n - 1, 1) where n > 2 {
            let (xp, yp) = (Double(points[i - 1].x), Double(points[i - 1].y))
            let (x, y) = (Double(points[i].x), Double(points[i].y))
            let (xn, yn) = (Double(points[i + 1].x), Double(points[i + 1].y))
            lower[i] = (x - xp) / 6
            diagonal[i] = (xn - xp) / 3
            upper[i] = (xn - x) / 6
            result[i] = (yn - y) / (xn - x) - (y - yp) / (x - xp)
        }
        for i in stride(from: 1, to: n, by: 1) {
            let k = lower[i] / diagonal[i - 1]
            diagonal[i] -= k * upper[i - 1]
            lower[i] = 0
            result[i] -= k * result[i - 1]
        }
        for i in stride(from: n - 2, through: 0, by: -1) {
            let k = upper[i] / diagonal[i + 1]
            diagonal[i] -= k * lower[i + 1]
            upper[i] = 0
            result[i] -= k * result[i + 1]
        }
        return (0..<n).map { diagonal[$0] != 0 ? result[$0] / diagonal[$0] : 0 }
    }
}
