import LoupeCodecs
import LoupeProcessing
import Testing

/// The one gravity type: a focus point in the library's crops, imgproxy's integer placement
/// (halves to even, pixel-or-fraction offsets), and a gravity carried back through rotations
/// and flips. imgproxy's own pixels are checked in ImgproxyGeometryConformanceTests.
@Suite struct GravityTests {
    /// A `width`×`height` image whose column x has red x (so a cut's first column names its
    /// origin).
    static func strip(width: Int, height: Int = 50) throws -> Bitmap {
        try makeBitmap(width: width, height: height) { x, _ in (UInt8(x), 0, 0, 255) }
    }

    /// A focus point centres the library's cut on it, clamped inside the image: at 0.3 of 200
    /// px the 50 px cut starts at 60 - 25 = 35; past the edges it is the west or east cut.
    @Test func focusPointCentresTheLibrarysCut() throws {
        let source = try Self.strip(width: 200)
        func cut(_ gravity: Gravity) throws -> Bitmap {
            try ImageProcessors.BoxResize(width: 50, height: 50, mode: .fill, gravity: gravity).process(source)
        }
        #expect(try cut(.focusPoint(x: 0.3, y: 0.5)).pixel(x: 0, y: 0).r == 35)
        #expect(try cut(.focusPoint(x: 0.3, y: 0.5)) == cut(Gravity(.west, offsetX: 35)))
        #expect(try cut(.focusPoint(x: 0.5, y: 0.5)) == cut(.center))
        #expect(try cut(.focusPoint(x: 0, y: 0)) == cut(Gravity(.west)))
        #expect(try cut(.focusPoint(x: 1, y: 1)) == cut(Gravity(.east)))
    }

    /// imgproxy's placement of a 3-wide window in 10: the centre rounds (10 - 3 + 1) / 2 = 4;
    /// offsets of 1 or more are pixels times the dpr, smaller ones fractions of the outer side
    /// rounded half to even (0.25 × 10 = 2.5 → 2); east counts inwards; a focus point centres
    /// on its fraction; everything stays inside.
    @Test func imgproxyPlacement() {
        func left(_ gravity: Gravity, dpr: Double = 1) -> Int {
            gravity.position(width: 10, height: 10, innerWidth: 3, innerHeight: 3, dpr: dpr).x
        }
        #expect(left(.center) == 4)
        #expect(left(Gravity(.center, offsetX: 2)) == 6)
        #expect(left(Gravity(.center, offsetX: 0.25)) == 6)
        #expect(left(Gravity(.west, offsetX: 1.5), dpr: 1) == 2)
        #expect(left(Gravity(.west, offsetX: 2.5), dpr: 1) == 2)
        #expect(left(Gravity(.west, offsetX: 2), dpr: 1.5) == 3)
        #expect(left(Gravity(.east, offsetX: 1)) == 6)
        #expect(left(Gravity(.northEast)) == 7)
        #expect(left(.focusPoint(x: 0.8, y: 0)) == 7)
        #expect(left(Gravity(.east, offsetX: 100)) == 0)
        #expect(left(Gravity(.west, offsetX: 100)) == 7)
        // A larger inner rectangle (an embedding) starts at 0: the lower bound wins.
        #expect(Gravity(.east).position(width: 3, height: 3, innerWidth: 10, innerHeight: 10, dpr: 1) == (0, 0))
    }

    /// Four quarter turns, or a flip done twice, give the gravity back; a half turn moves a
    /// corner to the opposite one and a flip mirrors a focus point.
    @Test(arguments: Gravity.Anchor.allCases)
    func rotationsAndFlipsComeBack(_ anchor: Gravity.Anchor) {
        let gravity = anchor == .focusPoint ? Gravity.focusPoint(x: 0.25, y: 0.75) : Gravity(anchor, offsetX: 3, offsetY: -5)
        var turned = gravity
        for _ in 0..<4 { turned = turned.beforeRotation(degrees: 90, flipX: false, flipY: false) }
        #expect(turned == gravity)
        let flippedTwice = gravity.beforeRotation(degrees: 0, flipX: true, flipY: true).beforeRotation(degrees: 0, flipX: true, flipY: true)
        #expect(flippedTwice == gravity)
        #expect(gravity.beforeRotation(degrees: 270, flipX: false, flipY: false) == gravity.beforeRotation(degrees: -90, flipX: false, flipY: false))
    }

    @Test func halfTurnsAndFlips() {
        #expect(Gravity(.northEast, offsetX: 3, offsetY: 5).beforeRotation(degrees: 180, flipX: false, flipY: false)
                == Gravity(.southWest, offsetX: 3, offsetY: 5))
        #expect(Gravity.focusPoint(x: 0.25, y: 0.5).beforeRotation(degrees: 0, flipX: true, flipY: false) == .focusPoint(x: 0.75, y: 0.5))
        #expect(Gravity(.center, offsetX: 4).beforeRotation(degrees: 0, flipX: true, flipY: false) == Gravity(.center, offsetX: -4))
    }
}
