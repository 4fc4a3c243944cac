import Foundation
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
import Testing

/// `red_eye()` against thumbor's own red-eye tests (`tests/filters/test_redeye.py` and its two
/// fixtures, from thumbor's source distribution): the face box its `config_context` sets (read
/// from the test's source, as `thumbor_filter_cases.py` reports it) cannot be asked for in a URL,
/// so it is handed to ``ImageProcessors.RedEye`` directly, and the result compared with thumbor's expected image
/// by SSIM against the test's own bound; without a face, the image is thumbor's passthrough.
@Suite struct RedEyeConformanceTests {
    @Test func redEyesAreCorrectedAsThumborsTestExpects() async throws {
        let cases = try await ThumborFilterConformanceTests.cases().filter { $0.filterFile == "redeye" }
        try #require(cases.count == 2, "thumbor 7.8.0 has two red-eye tests")
        for item in cases {
            let fixtures = ThumborFilterConformanceTests.sdist.appendingPathComponent("thumbor/fixtures/filters")
            let source = try ImageDecoder().decode(try Data(contentsOf: fixtures.appendingPathComponent(item.source))).bitmap
            let expected = try ImageDecoder().decode(try Data(contentsOf: fixtures.appendingPathComponent(try #require(item.expectedFixture)))).bitmap
            let faces = try Self.faces(in: item, width: expected.width, height: expected.height)
            let corrected = try ImageProcessors.RedEye(faces: faces).process(source)
            let ssim = try #require(StructuralSimilarity.index(corrected, expected, mode: item.mode))
            #expect(ssim > item.threshold, "\(item.name): SSIM \(ssim)")
            if faces.isEmpty {
                #expect(corrected == source, "\(item.name): without faces the image is left as it is")
            } else {
                // The bound alone would pass the untouched source too: the red must have gone.
                let before = Self.difference(source, expected), after = Self.difference(corrected, expected)
                #expect(after * 4 < before, "\(item.name): difference to thumbor's result \(after), the source's \(before)")
                #expect(try #require(StructuralSimilarity.index(source, expected, mode: item.mode)) < ssim)
            }
        }
    }

    /// The face box of a case's `config_context`: `FocalPoint.from_square(l, t, image_w - a,
    /// image_h - b, origin="Face Detection")`, boxed as thumbor's filter boxes a focal point
    /// (its centre ± half its size); none when the test sets no focal point.
    static func faces(in item: ThumborFilterConformanceTests.Case, width: Int, height: Int) throws -> [ImageProcessors.RedEye.Box] {
        guard let line = item.unsupported.first(where: { $0.contains("FocalPoint.from_square") }) else { return [] }
        let pattern = try NSRegularExpression(pattern: #"from_square\((\d+), (\d+), image_w - (\d+), image_h - (\d+)"#)
        let match = try #require(pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), "\(line)")
        let numbers = try (1...4).map { index in
            try #require(Range(match.range(at: index), in: line).flatMap { Int(line[$0]) })
        }
        let (left, top, boxWidth, boxHeight) = (numbers[0], numbers[1], width - numbers[2], height - numbers[3])
        let centre = (x: left + boxWidth / 2, y: top + boxHeight / 2)
        return [ImageProcessors.RedEye.Box(x: Int(Double(centre.x) - Double(boxWidth) / 2), y: Int(Double(centre.y) - Double(boxHeight) / 2),
                           width: boxWidth, height: boxHeight)]
    }

    /// The sum of the red channel's absolute differences.
    static func difference(_ first: Bitmap, _ second: Bitmap) -> Int {
        var total = 0
        for y in 0..<min(first.height, second.height) {
            for x in 0..<min(first.width, second.width) {
                total += abs(Int(first.pixel(x: x, y: y).r) - Int(second.pixel(x: x, y: y).r))
            }
        }
        return total
    }
}
