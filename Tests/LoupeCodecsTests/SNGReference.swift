import Foundation
@testable import LoupeCodecs

/// Reads the PngSuite reference descriptions that Go ships beside each file (`.sng`, the text
/// form of a PNG: header, palette, transparency and every pixel in hex) into an RGBA bitmap,
/// so decoded PngSuite files are compared with values written down by another project.
struct SNGReference {
    let bitmap: Bitmap

    init(_ text: String) throws {
        func block(_ name: String) -> String? {
            guard let start = text.range(of: "\n\(name) {") ?? text.range(of: "\(name) {") else { return nil }
            guard let end = text.range(of: "}", range: start.upperBound..<text.endIndex) else { return nil }
            return String(text[start.upperBound..<end.lowerBound])
        }
        func number(_ key: String, in body: String) -> Int? {
            guard let range = body.range(of: "\(key):") else { return nil }
            let digits = body[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }
            return Int(digits)
        }
        guard let header = block("IHDR"), let width = number("width", in: header), let height = number("height", in: header),
              let depth = number("bitdepth", in: header), let image = block("IMAGE") else { throw SNGError.malformed }
        let channels = header.contains("using color alpha") ? 4 : header.contains("using grayscale alpha") ? 2
            : header.contains("using color palette") ? 1 : header.contains("using color") ? 3 : 1
        let palette = header.contains("palette")
        let rows = image.split(separator: "\n").filter { !$0.contains("pixels") }.map { $0.filter(\.isHexDigit) }.filter { !$0.isEmpty }
        guard rows.count == height, let firstRow = rows.first else { throw SNGError.malformed }
        // Palette rows pack indices at the file's bit depth (rows padded to whole bytes); other
        // types are written with whole hex samples.
        guard palette || firstRow.count % width == 0 else { throw SNGError.malformed }
        let digits = palette ? 0 : firstRow.count / width
        let sampleDigits = digits / channels
        var colors: [(UInt8, UInt8, UInt8)] = []
        if palette, let plte = block("PLTE") {
            for line in plte.split(separator: "\n") {
                guard let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")") else { continue }
                let parts = line[line.index(after: open)..<close].split(separator: ",").compactMap { UInt8($0.trimmingCharacters(in: .whitespaces)) }
                if parts.count == 3 { colors.append((parts[0], parts[1], parts[2])) }
            }
        }
        let transparency = block("tRNS")
        let paletteAlpha = palette ? (transparency?.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0) } ?? []) : []
        let grayKey = transparency.flatMap { number("gray", in: $0) }
        let colorKey = transparency.flatMap { t in number("red", in: t).flatMap { r in number("green", in: t).flatMap { g in number("blue", in: t).map { [r, g, $0] } } } }

        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        let maxSample = (1 << (sampleDigits * 4)) - 1
        // libpng's png_set_scale_16 rounding for 16-bit samples.
        func eight(_ v: Int) -> UInt8 { sampleDigits == 4 ? UInt8((v * 255 + 32_895) >> 16) : UInt8(v * 255 / maxSample) }
        for row in rows {
            let chars = Array(row)
            let rowBits = palette ? chars.flatMap { c -> [Int] in
                let v = Int(String(c), radix: 16) ?? 0
                return [(v >> 3) & 1, (v >> 2) & 1, (v >> 1) & 1, v & 1]
            } : []
            for x in 0..<width {
                var samples: [Int] = []
                if palette {
                    guard (x + 1) * depth <= rowBits.count else { throw SNGError.malformed }
                    samples.append(rowBits[x * depth..<(x + 1) * depth].reduce(0) { $0 << 1 | $1 })
                }
                for c in 0..<(palette ? 0 : channels) {
                    let start = x * digits + c * sampleDigits
                    guard let v = Int(String(chars[start..<start + sampleDigits]), radix: 16) else { throw SNGError.malformed }
                    samples.append(v)
                }
                if palette {
                    guard samples[0] < colors.count else { throw SNGError.malformed }
                    let (r, g, b) = colors[samples[0]]
                    pixels += [r, g, b, samples[0] < paletteAlpha.count ? paletteAlpha[samples[0]] : 255]
                } else if channels <= 2 {
                    let gray = eight(samples[0])
                    let alpha: UInt8 = channels == 2 ? eight(samples[1]) : (grayKey == samples[0] ? 0 : 255)
                    pixels += [gray, gray, gray, alpha]
                } else {
                    let alpha: UInt8 = channels == 4 ? eight(samples[3]) : (colorKey == Array(samples.prefix(3)) ? 0 : 255)
                    pixels += [eight(samples[0]), eight(samples[1]), eight(samples[2]), alpha]
                }
            }
        }
        bitmap = try Bitmap(width: width, height: height, pixels: pixels)
    }
}

enum SNGError: Error { case malformed }
