import LoupeCodecs
import LoupeProcessing
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// Random geometry options (seeded, so a failure reproduces) through the parser, the server's
/// checks and the geometry on a small image: each is refused with a typed error or makes an
/// image within the result limit; none traps.
@Suite struct ImgproxyGeometryFuzzTests {
    /// Each option with the kinds of argument it takes, so most segments parse and reach the
    /// geometry: type, number, share, boolean, gravity, offset, hex colour, angle.
    static let shapes: [(String, [Character])] = [
        ("rs", ["T", "n", "n", "b", "b", "g", "o", "o"]), ("s", ["n", "n", "b", "b", "g"]), ("rt", ["T"]), ("w", ["n"]), ("h", ["n"]),
        ("mw", ["n"]), ("mh", ["n"]), ("z", ["s", "s"]), ("dpr", ["s"]), ("el", ["b"]), ("ex", ["b", "g", "o", "o"]),
        ("exar", ["b", "g", "o", "o"]), ("g", ["g", "o", "o"]), ("c", ["s", "s", "g", "o", "o"]), ("t", ["n", "x", "b", "b"]),
        ("pd", ["n", "n", "n", "n"]), ("rot", ["a"]), ("fl", ["b", "b"]), ("ar", ["b"]), ("mrd", ["n"]), ("bg", ["x"]), ("bl", ["s"]),
    ]
    static let arguments: [Character: [String]] = [
        "T": ["fit", "fill", "fill-down", "force", "auto"], "n": ["0", "1", "2", "7", "30", "100", "300", "5000"],
        "s": ["0.5", "0.25", "1", "1.5", "2", "3", "40"], "b": ["1", "0", "t", "false", ""],
        "g": ["ce", "no", "so", "ea", "we", "noea", "sowe", "sm", "fp"], "o": ["0", "1", "-3", "0.2", "0.9", "12", ""],
        "x": ["f00", "ffffff", "000000", ""], "a": ["0", "90", "180", "270", "-90"],
    ]
    static let junk = ["-1", "45", "99999999999999999999", "1e308", "nan", "inf", "x", "", "1.5.5"]

    @Test func randomOptionsNeverTrap() throws {
        var random = SplitMix64(seed: 0x6E0)
        func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }
        let image = try TestImage.bitmap(width: 23, height: 17, seed: 3)
        var made = 0, refused = 0
        for _ in 0..<4_000 {
            let text = (0..<(1 + Int(random.next() % 4))).map { _ in
                let (name, kinds) = pick(Self.shapes)
                let count = 1 + Int(random.next() % UInt64(kinds.count + 1))
                let args = (0..<count).map { i in
                    i < kinds.count && random.next() % 10 != 0 ? pick(Self.arguments[kinds[i]] ?? Self.junk) : pick(Self.junk)
                }
                return ([name] + args).joined(separator: ":")
            }.joined(separator: "/")
            guard let options = try? ImgproxyURL.options(text) else {
                refused += 1
                continue
            }
            let box = options.scaledBox
            guard box.width <= 512, box.height <= 512 else {
                refused += 1
                continue
            }
            let geometry = ImgproxyGeometry(options: options, filters: [], resultLimit: 512)
            do {
                let result = try geometry.process(image)
                #expect(result.width > 0 && result.height > 0 && result.width <= 512 && result.height <= 512, "\(text)")
                made += 1
            } catch {
                refused += 1
            }
        }
        #expect(made > 500 && refused > 500, "made \(made), refused \(refused)")
    }
}
