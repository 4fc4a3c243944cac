import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's geometry through the service's routes: a 200×100 PNG from the in-process origin through a real
/// `loupe serve`, each result decoded and its size compared with imgproxy's.
@Suite struct ImgproxyGeometryConformanceTests {
    /// Requests every case from one server and checks each result's size.
    static func check(_ cases: [GeometryCase], source: Data? = nil) async throws {
        let png = try source ?? TestImage.png(width: 200, height: 100, seed: 7)
        try await OriginServer.run(handler: { _ in .ok(png) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let url = origin.url("/geometry.png").absoluteString
                for item in cases {
                    let answer = try await server.request(insecurePath(item.options, url))
                    #expect(answer.status == 200, "\(item): \(String(decoding: answer.body, as: UTF8.self))")
                    guard answer.status == 200 else { continue }
                    let image = try ServingTests.decode(answer.body)
                    #expect(image.metadata.width == item.width && image.metadata.height == item.height,
                            "\(item): got \(image.metadata.width)x\(image.metadata.height)")
                }
            }
        }
    }

    @Test func fit() async throws {
        try await Self.check(ResizeCases.resizeToFit + ResizeCases.resizeToFitEnlarge + ResizeCases.resizeToFitExtend
            + ResizeCases.resizeToFitExtendAR)
    }

    @Test func fill() async throws {
        try await Self.check(ResizeCases.resizeToFill + ResizeCases.resizeToFillEnlarge + ResizeCases.resizeToFillExtend
            + ResizeCases.resizeToFillExtendAR)
    }

    @Test func fillDown() async throws {
        try await Self.check(ResizeCases.resizeToFillDown + ResizeCases.resizeToFillDownEnlarge + ResizeCases.resizeToFillDownExtend
            + ResizeCases.resizeToFillDownExtendAR)
    }

    @Test func resultSizeLimit() async throws {
        try await Self.check(FrameCases.resultSizeLimit)
    }

    @Test func cropExtendAndPadding() async throws {
        try await Self.check(FrameCases.cropExtendPadding)
    }

    /// Rules of imgproxy's documentation its tests do not state as sizes.
    static let documented: [GeometryCase] = [
        .init("rs:fill:26:100/g:no::5/dpr:2", 26, 100, "an empty offset is the default; a box that cannot be enlarged is scaled down"),
        .init("rs:fit:50:50/mw:100", 50, 50, "min-width raises the scale, then the cut to the box crops (imgproxy warns of this pairing)"),
        .init("rs:fit:50:50/mh:80", 50, 50, "min-height likewise"),
        .init("mw:300", 300, 150, "min-width enlarges even without enlarge"),
        .init("h:50/mw:150", 150, 50, "min-width with an open width: the height is cut to the box"),
        .init("mh:150/el:1/w:100", 100, 150, "min-height with enlarge, cut to the width"),
        .init("z:0.5", 100, 50, "zoom multiplies the scale"),
        .init("z:0.5:0.25", 100, 25, "zoom per axis"),
        .init("z:2", 200, 100, "zoom does not enlarge without enlarge"),
        .init("z:2/el:1", 400, 200, "zoom with enlarge"),
        .init("rs:fit:100:100/z:0.5", 50, 25, "zoom applies after the resize"),
        .init("dpr:2", 200, 100, "dpr does not enlarge the image"),
        .init("dpr:0.5", 100, 50, "dpr below 1 scales the image"),
        .init("rs:force:50:80", 50, 80, "force ignores the aspect ratio"),
        .init("rs:force:0:50", 200, 50, "force with an open side keeps that side"),
        .init("rs:auto:50:50", 50, 50, "auto fills when the box and the image are both landscape (a square counts as landscape)"),
        .init("rs:auto:40:80", 40, 20, "auto fits when their orientations differ"),
        .init("rt:fill/w:50/h:50", 50, 50, "resizing_type, width and height as separate options"),
        .init("rot:90", 100, 200, "rotate turns the image"),
        .init("rot:270/rs:fit:50:50", 25, 50, "the box applies to the turned image"),
        .init("rot:180", 200, 100, "a half turn keeps the size"),
        .init("rot:-90", 100, 200, "a negative angle turns the other way"),
        .init("fl:1:1", 200, 100, "flip keeps the size"),
        .init("ar:1", 200, 100, "auto_rotate on (the default)"),
        .init("c:0.5:0.5", 100, 50, "a crop below 1 is a share of the image"),
        .init("c:0.25", 50, 100, "a crop with an open height keeps the height"),
        .init("c:300:300", 200, 100, "a crop larger than the image keeps it whole"),
        .init("c:100:100/rs:fill:50:50", 50, 50, "the box applies to the cropped image"),
        .init("c:100:100/rs:fit:40:20", 20, 20, "fit of the cropped square"),
        .init("c:50:50:fp:0.1:0.9", 50, 50, "crop at a focus point"),
        .init("c:50:50:sm", 50, 50, "smart crop"),
        .init("rs:fill:50:50/g:fp:0.25:0.75", 50, 50, "fill cut at a focus point"),
        .init("rs:fill:50:50/g:sm", 50, 50, "fill cut at the most detail"),
        .init("pd:10", 220, 120, "one padding value for every side"),
        .init("pd:10:20", 240, 120, "two values: vertical, horizontal"),
        .init("pd:10:20:30", 240, 140, "three values: top, horizontal, bottom"),
        .init("pd::20", 240, 100, "an empty top is 0"),
        .init("rs:fit:300:300:0:1", 300, 300, "extend given inside resize"),
        .init("rs:fit:300:300:0:1:so:0:10", 300, 300, "extend's gravity inside resize"),
        .init("s:300:300:1:1", 300, 300, "enlarge then extend inside size"),
        .init("w:300/h:300/exar:1:so", 200, 200, "extend_aspect_ratio's alias and gravity"),
        .init("w:300/h:300/ex:1:fp:0.5:0.5", 300, 300, "extend at a focus point"),
        .init("mrd:50/pd:10", 49, 27, "max_result_dimension scales padding with the rest"),
    ]

    @Test func documentedRules() async throws {
        try await Self.check(Self.documented)
    }

    /// `trim` cuts a border of one colour: a black 120×60 block 10 px from the left, 70 px from
    /// the right, 5 px from the top and 35 px from the bottom of a white 200×100 image.
    @Test func trim() async throws {
        let bitmap = try Bitmap(width: 200, height: 100, pixels: (0..<100).flatMap { y in
            (0..<200).flatMap { x -> [UInt8] in
                (10..<130).contains(x) && (5..<65).contains(y) ? [0, 0, 0, 255] : [255, 255, 255, 255]
            }
        })
        let png = try ImageEncoder().encode(bitmap, as: .png)
        try await Self.check([
            .init("t:10", 120, 60, "the corner's colour is the border"),
            .init("t:10:ffffff", 120, 60, "a given border colour"),
            .init("t:10:000000", 200, 100, "a colour the border does not have trims nothing"),
            .init("t:10::1", 180, 60, "equal horizontal sides keep the smaller border"),
            .init("t:10:::1", 120, 90, "equal vertical sides keep the smaller border"),
            .init("t:10/rs:fit:60:60", 60, 30, "trim comes before the resize"),
            .init("t:", 200, 100, "an empty threshold turns trim off"),
        ], source: png)
    }

    /// Bad arguments answer 400 naming the option and the argument; sizes past the server's
    /// limit are refused, never a 500.
    @Test func badArgumentsAreRefused() async throws {
        let png = try TestImage.png(width: 200, height: 100, seed: 7)
        try await OriginServer.run(handler: { _ in .ok(png) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let url = origin.url("/geometry.png").absoluteString
                let refused: [(String, [String])] = [
                    ("rot:45", ["rotate", "45"]), ("g:fp:2:0.5", ["'2'", "'g'"]), ("c:-1", ["crop", "-1"]), ("pd:a", ["pd", "a"]),
                    ("z:0", ["z", "0"]), ("g:xx", ["gravity", "xx"]), ("ex:1:sm", ["sm"]), ("t:abc", ["trim", "abc"]),
                    ("ar:maybe", ["ar", "maybe"]), ("fl:maybe", ["fl", "maybe"]), ("mw:-5", ["mw", "-5"]), ("mrd:x", ["max_result_dimension", "x"]),
                    ("g:sm:1", ["sm"]), ("g:no:1:2:3", ["g"]), ("c:10:10:no:1:2:3", ["c"]), ("pd:1:2:3:4:5", ["pd"]),
                    ("rs:fit:100:100/z:1000", ["8192"]), ("pd:100000", ["8192"]), ("dpr:inf", ["dpr", "inf"]),
                ]
                for (options, words) in refused {
                    let answer = try await server.request(insecurePath(options, url))
                    #expect(answer.status == 400, "\(options): \(answer.status)")
                    let message = answer.json["message"] as? String ?? ""
                    for word in words { #expect(message.contains(word), "\(options): '\(message)' does not name '\(word)'") }
                }
                // Known only once the source is decoded: refused before the result is allocated.
                let huge = try await server.request(insecurePath("el:1/z:100", url))
                #expect(huge.status == 422, "\(huge.status)")
                #expect((huge.json["message"] as? String ?? "").contains("8192"))
            }
        }
    }
}
