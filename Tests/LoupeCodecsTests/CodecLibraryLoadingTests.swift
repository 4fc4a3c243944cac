import CLoupeCodecs
import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// libheif, libavif, libjxl, libtiff and librsvg are opened on first use, not linked (CodecLibrary.swift says
/// why). What a process maps is only meaningful in a process where nothing else ran, so the
/// "not loaded until needed" and "missing library" checks run in a child of their own
/// (`LoupeCodecLibraryProbe`); in this process, where any other test may have loaded any of
/// them first, only "decoding maps its library" holds whatever the order.
@Suite struct CodecLibraryLoadingTests {
    static let jpeg = "color/srgb-untagged.jpg"
    static let heif = "formats/coffee.heic"
    static let avif = "formats/coffee.avif"
    static let jxl = "formats/coffee.jxl"
    static let tiff = "legacy/video-001.tiff"
    static let svg = "svg/debian-logo.svg"

    /// One line of the probe's output: its fields, the mapped libraries last.
    struct Line: Equatable, CustomStringConvertible {
        var fields: [String]
        var mapped: Set<String> { fields.last.map { $0 == "-" ? [] : Set($0.split(separator: ",").map(String.init)) } ?? [] }
        var description: String { fields.joined(separator: " | ") }
    }

    /// The probe sits beside the test bundle in the build products directory (`.build/debug`,
    /// the ThreadSanitizer and release scratch paths alike).
    static func probe(_ arguments: [String]) throws -> [Line] {
        let outcome = try ChildProcess.runBlocking(ChildProcess.product("LoupeCodecLibraryProbe"), arguments)
        #expect(outcome.status == 0)
        return outcome.standardOutput.split(separator: "\n").map { Line(fields: $0.split(separator: "\t").map(String.init)) }
    }

    @Test func aChildMapsACodecLibraryOnlyOnceItDecodesItsFormat() throws {
        let files = [Self.jpeg, Self.heif, Self.avif, Self.jxl, Self.tiff, Self.svg]
        for file in files { _ = try Corpus.data(file) }  // CorpusMissing, not a confusing probe failure
        let lines = try Self.probe(files.map { Corpus.url($0).path })
        try #require(lines.count == 1 + 2 * files.count, "\(lines)")
        #expect(lines[0].fields == ["start", "-"])
        // Sniffing reads magic numbers (SVG: its XML prolog) only.
        #expect(lines[1...6].map { $0.fields[2] } == ["jpeg", "heif", "avif", "jxl", "tiff", "svg"])
        #expect(lines[1...6].allSatisfy { $0.mapped.isEmpty }, "\(lines)")
        let decodes = Array(lines[7...])
        #expect(decodes.allSatisfy { $0.fields[2].hasPrefix("ok ") }, "\(decodes)")
        #expect(decodes.map(\.mapped) == [[], ["libheif"], ["libheif", "libavif"], ["libheif", "libavif", "libjxl"],
                                          ["libheif", "libavif", "libjxl", "libtiff"], ["libheif", "libavif", "libjxl", "libtiff", "librsvg-2"]])
    }

    @Test func aMissingLibraryIsATypedErrorAndEverythingElseStillDecodes() throws {
        let files = [Self.heif, Self.jpeg, Self.heif, Self.avif]
        for file in files { _ = try Corpus.data(file) }
        let lines = try Self.probe(["--missing", "heif"] + files.map { Corpus.url($0).path })
        try #require(lines.count == 1 + 2 * files.count, "\(lines)")
        let decodes = Array(lines[5...]).map { $0.fields[2] }
        #expect(decodes[0] == "libraryUnavailable heif libloupe-test-missing-heif.so.0")
        #expect(decodes[1].hasPrefix("ok "))
        // Tried once per process: the second HEIF fails the same way without another attempt.
        #expect(decodes[2] == decodes[0])
        #expect(decodes[3].hasPrefix("ok "))
        #expect(lines.last?.mapped == ["libavif"])
    }

    /// Without librsvg, an SVG source is a typed error naming it, and other formats still decode.
    @Test func aMissingLibrsvgIsATypedError() throws {
        let files = [Self.svg, Self.jpeg]
        for file in files { _ = try Corpus.data(file) }
        let lines = try Self.probe(["--missing", "svg"] + files.map { Corpus.url($0).path })
        try #require(lines.count == 1 + 2 * files.count, "\(lines)")
        #expect(lines[3].fields[2] == "libraryUnavailable svg libloupe-test-missing-svg.so.0", "\(lines)")
        #expect(lines[4].fields[2].hasPrefix("ok "), "\(lines)")
    }

    @Test(arguments: [(heif, "libheif"), (avif, "libavif"), (jxl, "libjxl"), (tiff, "libtiff"), (svg, "librsvg-2")])
    func decodingMapsTheFormatsLibrary(file: String, library: String) throws {
        let data = try Corpus.data(file)
        let image = try ImageDecoder().decode(data)
        #expect(image.metadata.width > 0)
        #expect(processMaps().contains("/\(library).so"))
    }

    @Test func theTestOverrideIsRefusedOnceTheLibraryWasLoaded() throws {
        _ = try ImageDecoder().decode(try Corpus.data(Self.jxl))
        #expect(lc_codec_library_override_for_testing(LC_LIBRARY_JXL, "libloupe-test-missing-jxl.so.0") == LC_ERROR)
        _ = try ImageDecoder().decode(try Corpus.data(Self.jxl))
    }

    @Test func theErrorNamesTheLibrary() {
        let error = ImageCodecError.libraryUnavailable(.heif, library: "libheif.so.1", reason: "libheif.so.1 cannot be loaded (not found)")
        #expect(error.description == "HEIF is unavailable: libheif.so.1 cannot be loaded (not found)")
    }
}
