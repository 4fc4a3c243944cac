import Foundation
import Testing
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport

/// Our dominant colour and palettes against the real Python `colorthief` 0.2.1 (run in the
/// conformance venv by Scripts/conformance/colorthief_reference.py) over the corpus.
///
/// Two comparisons per file:
/// 1. On exactly the pixels colorthief reads (Pillow's RGBA, dumped by the script): every
///    colour must be identical, lossy or not. This checks the algorithm alone.
/// 2. On our own decode of the file (full size, first frame, no EXIF orientation): identical on
///    lossless files (whose pixels must also be byte-identical to Pillow's), and within 8 per
///    channel on JPEGs, where decoders may differ by a unit and move a pixel across a bin.
@Suite struct ColorThiefConformanceTests {
    /// Lossless files: PNG (the PngSuite too) and lossless WebP.
    static func losslessFiles() throws -> [String] {
        try Repository.corpusFiles(in: "go-png", suffixes: [".png"]).filter { !$0.contains("/invalid-") }
            + Repository.corpusFiles(in: "go-png/pngsuite", suffixes: [".png"])
            + Repository.corpusFiles(in: "go-image", suffixes: [".png"])
            + Repository.corpusFiles(in: "x-image", suffixes: [".png", ".lossless.webp"])
            + Repository.corpusFiles(in: "skimage", suffixes: [".png"])
            + Repository.corpusFiles(in: "gdk-pixbuf", suffixes: [".png"]).filter { !excluded.keys.contains($0) }
    }

    static func jpegFiles() throws -> [String] {
        try (Repository.corpusFiles(in: "go-image", suffixes: [".jpeg"])
            + Repository.corpusFiles(in: "skimage", suffixes: [".jpg"])
            + Repository.corpusFiles(in: "gdk-pixbuf", suffixes: [".jpg", ".jpeg"]))
            .filter { !excluded.keys.contains($0) }
    }

    /// Files Pillow (and so colorthief) refuses, with its reason.
    static let excluded: [String: String] = [
        "Corpus/gdk-pixbuf/large.jpg": "749 MP: Pillow's decompression-bomb limit",
        "Corpus/gdk-pixbuf/large.png": "839 MP: Pillow's decompression-bomb limit",
        "Corpus/gdk-pixbuf/issue205.jpg": "4 GP header: Pillow's decompression-bomb limit",
        "Corpus/gdk-pixbuf/bug775218.jpg": "Pillow cannot identify it",
        "Corpus/gdk-pixbuf/premature-end.jpg": "truncated: Pillow refuses it",
        "Corpus/go-image/video-001.progressive.truncated.jpeg": "truncated: Pillow refuses it",
    ]

    /// Lossless files whose pixels Pillow converts differently from our decoder, so only the
    /// comparison on Pillow's own pixels applies to them in full.
    static let pillowConversions: [String: String] = [
        "Corpus/go-png/pngsuite/basn0g16.png": "16-bit grey opens as mode I;16, whose RGBA conversion clips to 255 (white)",
        "Corpus/go-png/pngsuite/ftbbn0g04.png": "grey with tRNS: Pillow's RGBA conversion leaves the transparent grey opaque",
        "Corpus/go-png/pngsuite/ftbwn0g16.png": "16-bit grey opens as mode I;16, whose RGBA conversion clips to 255 (white)",
    ]
    /// Of those, the ones where the different pixels also give different colours (Pillow's
    /// white image has no usable pixels at all for ftbwn0g16).
    static let pillowConversionsChangingColors: Set = [
        "Corpus/go-png/pngsuite/basn0g16.png", "Corpus/go-png/pngsuite/ftbwn0g16.png",
    ]

    @Test func sameColorsAsColorThief() async throws {
        let lossless = try Self.losslessFiles(), jpegs = try Self.jpegFiles()
        #expect(lossless.count > 50 && jpegs.count > 20, "corpus looks incomplete: \(lossless.count) lossless, \(jpegs.count) JPEG")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let references = try await Self.references(for: lossless + jpegs, pixelsIn: directory)
        try #require(references.map(\.file) == lossless + jpegs)

        // Minutes of CPU in a debug build: off the cooperative pool (see PythonReference).
        let (samePixelFailures, decoderFailures, checkedColors, noPixelFiles) = try await offCooperativePool {
            try Self.compare(references)
        }
        #expect(samePixelFailures.isEmpty, "\(samePixelFailures.count) mismatches on Pillow's pixels:\n\(samePixelFailures.joined(separator: "\n"))")
        #expect(decoderFailures.isEmpty, "\(decoderFailures.count) mismatches on our decode:\n\(decoderFailures.joined(separator: "\n"))")
        #expect(checkedColors > 70 && noPixelFiles >= 1)
    }

    /// colorthief's results for `files`, in their order: one reference process per core, each on
    /// a share of the files about as large as the others (colorthief is pure Python, minutes of
    /// one core for the corpus, and the files' sizes differ a thousandfold).
    private static func references(for files: [String], pixelsIn directory: URL) async throws -> [Reference] {
        let shareCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var shares = Array(repeating: (bytes: 0, files: [String]()), count: shareCount)
        let sizes = try files.map { try Repository.root.appendingPathComponent($0).resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 }
        for (file, size) in zip(files, sizes).sorted(by: { $0.1 > $1.1 }) {
            let smallest = shares.indices.min { shares[$0].bytes < shares[$1].bytes } ?? 0
            shares[smallest].bytes += size
            shares[smallest].files.append(file)
        }
        let found = try await withThrowingTaskGroup(of: [Reference].self) { group in
            for (index, share) in shares.enumerated() where !share.files.isEmpty {
                let pixels = directory.appendingPathComponent("\(index)")
                try FileManager.default.createDirectory(at: pixels, withIntermediateDirectories: true)
                group.addTask {
                    let output = try await PythonReference.run("colorthief_reference.py", arguments: [pixels.path] + share.files)
                    return try JSONDecoder().decode([Reference].self, from: output)
                }
            }
            return try await group.reduce(into: [String: Reference]()) { found, references in
                for reference in references { found[reference.file] = reference }
            }
        }
        return files.compactMap { found[$0] }
    }

    /// Both comparisons for every file: failures on Pillow's pixels, failures on our decode,
    /// files with colours checked, files without usable pixels.
    private static func compare(_ references: [Reference]) throws -> ([String], [String], Int, Int) {
        var samePixelFailures: [String] = [], decoderFailures: [String] = []
        var checkedColors = 0, noPixelFiles = 0, taggedFiles = 0
        func refusesNoPixels(_ bitmap: Bitmap) -> Bool {
            do {
                _ = try bitmap.dominantColor()
                return false
            } catch {
                return error == .noUsablePixels
            }
        }
        for reference in references {
            let isLossless = !reference.file.hasSuffix(".jpg") && !reference.file.hasSuffix(".jpeg")
            let raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: reference.pixels)))
            let pillowPixels = try Bitmap(width: reference.width, height: reference.height, pixels: raw)
            let data = try Data(contentsOf: Repository.root.appendingPathComponent(reference.file))
            // Files with colour information (an ICC profile other than sRGB, PNG gAMA/cHRM) decode
            // to sRGB by default; Pillow, and so colorthief, reads the stored values. Those are
            // compared as stored (ColorManagementTests covers the managed pixels); only files
            // carrying such information may differ.
            // 16-bit samples cut to their high byte, as Pillow does (and as the exact mode decodes).
            var ours = try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true, sixteenBitReduction: .highByte)).bitmap
            let stored = try ImageDecoder().decode(data, options: DecodingOptions(
                firstFrameOnly: true, colorManagement: .keepSourcePixels, sixteenBitReduction: .highByte)).bitmap
            if ours != stored {
                if !carriesColorInformation(data) {
                    decoderFailures.append("\(reference.file): colour-managed pixels differ, but the file has no colour information")
                }
                taggedFiles += 1
                ours = stored
            }

            guard let expectedColor = reference.color else {
                // colorthief: "Empty pixels when quantize." Ours: a typed error.
                noPixelFiles += 1
                if !refusesNoPixels(pillowPixels) {
                    samePixelFailures.append("\(reference.file): colorthief finds no usable pixels, we do")
                }
                if isLossless, !pillowConversionsChangingColors.contains(reference.file), !refusesNoPixels(ours) {
                    decoderFailures.append("\(reference.file): colorthief finds no usable pixels, our decode has some")
                }
                continue
            }
            // 1. Same pixels: identical colours.
            for mismatch in try reference.mismatches(of: pillowPixels) {
                samePixelFailures.append("\(reference.file): \(mismatch)")
            }
            // 2. Our decoder.
            if isLossless {
                let samePixels = ours.width == reference.width && ours.height == reference.height && tightBytes(ours) == raw
                if samePixels == (pillowConversions[reference.file] != nil) {
                    decoderFailures.append("\(reference.file): our pixels \(samePixels ? "now equal" : "differ from") Pillow's")
                }
                if pillowConversionsChangingColors.contains(reference.file) { continue }
                for mismatch in try reference.mismatches(of: ours) {
                    decoderFailures.append("\(reference.file) (our decode): \(mismatch)")
                }
            } else {
                let color = try ours.dominantColor()
                let difference = max(abs(Int(color.red) - expectedColor[0]), abs(Int(color.green) - expectedColor[1]),
                                     abs(Int(color.blue) - expectedColor[2]))
                if difference > 8 {
                    decoderFailures.append("\(reference.file): our decode gives \(color), colorthief \(expectedColor) (off by \(difference))")
                }
            }
            checkedColors += 1
        }
        // The corpus has such files (skimage's color.png, page.png, rocket.jpg; the PngSuite's gAMA).
        if taggedFiles < 3 { decoderFailures.append("only \(taggedFiles) colour-managed files: the decoder ignores colour information") }
        return (samePixelFailures, decoderFailures, checkedColors, noPixelFiles)
    }

    /// Whether the file's header carries an ICC profile or PNG colour chunks (the chunk names or
    /// JPEG's APP2 signature among its first 64 KiB, where headers are).
    private static func carriesColorInformation(_ data: Data) -> Bool {
        let head = data.prefix(65_536)
        return ["iCCP", "gAMA", "cHRM", "ICC_PROFILE", "ICCP"].contains { head.range(of: Data($0.utf8)) != nil }
    }
}

/// One file's result from colorthief_reference.py.
private struct Reference: Decodable, Sendable {
    let file: String
    let width: Int
    let height: Int
    let pixels: String
    let color: [Int]?
    let palettes: [String: [[Int]]]?
    let color_q1: [Int]?

    /// Everything of `bitmap`'s colours that differs from colorthief's, as messages.
    func mismatches(of bitmap: Bitmap) throws -> [String] {
        var found: [String] = []
        func rgb(_ c: RGBColor) -> [Int] { [Int(c.red), Int(c.green), Int(c.blue)] }
        let color = try bitmap.dominantColor()
        if rgb(color) != self.color { found.append("dominant \(rgb(color)) != \(self.color ?? [])") }
        if let q1 = color_q1, rgb(try bitmap.dominantColor(quality: 1)) != q1 {
            found.append("dominant at quality 1 \(rgb(try bitmap.dominantColor(quality: 1))) != \(q1)")
        }
        for count in [2, 5, 10] {
            // Ours is the prefix of colorthief's palette for `count`, or for `count + 1` when
            // that one comes back short.
            guard let asked = palettes?[String(count)] else { continue }
            let source = asked.count >= count ? asked : palettes?[String(count + 1)]
            guard let source else { continue }
            // colorthief gives 256 for the centre of an empty box above the top bin
            // (4 * (32 + 31 + 1)); ours is a byte, 255. Documented on `palette(count:quality:)`.
            let expected = source.prefix(count).map { $0.map { min($0, 255) } }
            let ours = try bitmap.palette(count: count).map(rgb)
            if ours != expected { found.append("palette(\(count)) \(ours) != \(expected)") }
        }
        return found
    }
}

/// The bitmap's pixels without row padding.
func tightBytes(_ bitmap: Bitmap) -> [UInt8] {
    if bitmap.bytesPerRow == bitmap.width * 4 { return Array(bitmap.pixels.prefix(bitmap.width * bitmap.height * 4)) }
    var bytes: [UInt8] = []
    for y in 0..<bitmap.height {
        bytes += bitmap.pixels[y * bitmap.bytesPerRow ..< y * bitmap.bytesPerRow + bitmap.width * 4]
    }
    return bytes
}
