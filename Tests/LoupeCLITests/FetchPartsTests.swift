import Foundation
import LoupeCodecs
import Testing
@testable import LoupeCLI

/// The pieces of `loupe fetch` whose rules are easier to see one by one than through the binary.
@Suite struct FetchPartsTests {
    let here = URL(fileURLWithPath: "/work/here", isDirectory: true)

    @Test func jsonStringsAreEscapedAsRFC8259Asks() {
        var object = JSONObject()
        object.add("text", .string("quote \" backslash \\ newline \n tab \t bell \u{07} é ✓"))
        object.add("list", .strings(["a", "b\"c"]))
        object.add("none", .null)
        #expect(object.serialized == #"{"text":"quote \" backslash \\ newline \n tab \t bell \u0007 é ✓","list":["a","b\"c"],"none":null}"#)
        let decoded = try? JSONSerialization.jsonObject(with: Data(object.serialized.utf8)) as? [String: Any]
        #expect(decoded?["text"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} é ✓")
    }

    /// libheif, libavif and libjxl are loaded on first use: without one, its format is reported
    /// like any other Loupe cannot read, naming the library.
    @Test func aMissingCodecLibraryIsAnUnsupportedFormat() {
        let failure = FetchFailure(ImageCodecError.libraryUnavailable(.avif, library: "libavif.so.15", reason: "libavif.so.15 cannot be loaded (not found)"))
        #expect(failure.kind == .unsupportedFormat)
        #expect(failure.message.contains("libavif.so.15"))
    }

    @Test func sourcesAreURLsOrPaths() throws {
        #expect(try FetchSource("https://example.com/a.jpg?x=1", workingDirectory: here).url.get().absoluteString == "https://example.com/a.jpg?x=1")
        #expect(try FetchSource("photo.jpg", workingDirectory: here).url.get().path == "/work/here/photo.jpg")
        #expect(try FetchSource("../up/photo.jpg", workingDirectory: here).url.get().path == "/work/up/photo.jpg")
        // A colon does not make a scheme unless `://` follows an unknown one.
        #expect(try FetchSource("photo:1.jpg", workingDirectory: here).url.get().path == "/work/here/photo:1.jpg")
        #expect(try FetchSource("file:///tmp/a.png", workingDirectory: here).url.get().path == "/tmp/a.png")
        for invalid in ["", "ftp://host/a.jpg", "http://", "https:///path-only"] {
            guard case .failure(let failure) = FetchSource(invalid, workingDirectory: here).url else {
                Issue.record("\(invalid) should be refused")
                continue
            }
            #expect(failure.kind == .invalidSource)
        }
        // Two spellings of one file are one identity: loaded once.
        #expect(FetchSource("./photo.jpg", workingDirectory: here).identity == FetchSource("photo.jpg", workingDirectory: here).identity)
    }

    @Test func outputNamesAreSafeAndUnique() {
        let sources = [
            "https://a.example/photo.jpg", "https://b.example/Photo.png", "https://c.example/photo-2.jpg",
            "https://d.example/..", "https://e.example/.hidden.jpg", "https://f.example/a%20b%2Fc.jpg",
            "data:image/png;base64,AAAA", "https://g.example/", "https://h.example/über.jpg",
        ].map { FetchSource($0, workingDirectory: here) }
        let stems = OutputNames.stems(for: sources)
        #expect(stems == ["photo", "Photo-2", "photo-2-2", "image", "hidden", "a_b_c", "image-2", "image-3", "_ber"])
        #expect(Set(stems.map { $0.lowercased() }).count == stems.count)
        #expect(stems.allSatisfy { !$0.hasPrefix(".") && !$0.contains("/") })
    }

    @Test func theProgressBarShowsCountRateAndTimeLeft() {
        #expect(ProgressBar.render(completed: 12, total: 48, elapsed: .seconds(4))
            == "[######------------------] 12/48  3.0/s  ETA 12s")
        #expect(ProgressBar.render(completed: 48, total: 48, elapsed: .seconds(8)) == "[########################] 48/48  6.0/s")
    }

    @Test func byteCountsUseBinaryUnits() {
        #expect(ByteCount.format(512) == "512 B")
        #expect(ByteCount.format(7_933) == "7.7 KiB")
        #expect(ByteCount.format(256 << 20) == "256.0 MiB")
    }
}
