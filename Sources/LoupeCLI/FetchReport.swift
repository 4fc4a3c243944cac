import Foundation
import Loupe
import LoupeProcessing

/// How one source's outcome is printed: a JSON Lines record (`--json`) or a line for people.
enum FetchReport {
    /// The `--json` record: `{"source", "ok": true, …}` with the ``ImageInfo`` fields and the
    /// fetch's own (`origin`, `ms`, `path`), or `{"source", "ok": false, "error": {"kind",
    /// "message"[, "status"]}}`; keys sorted.
    static func json(source: String, outcome: Result<FetchedImage, FetchFailure>) -> String {
        let data = (try? ImageInfo.encoder.encode(FetchRecord(source: source, outcome: outcome))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The line for people: `photo.jpg: jpeg 4000x3000 -> 256x192, 1.2 MB, network, 84 ms, …`
    /// or `photo.jpg: failed (http 404): HTTP 404 from …`.
    static func text(source: String, outcome: Result<FetchedImage, FetchFailure>) -> String {
        switch outcome {
        case .success(let image):
            let info = image.info
            let output = (width: info.outputWidth ?? info.width, height: info.outputHeight ?? info.height)
            var parts = ["\(info.format.rawValue) \(info.width)x\(info.height)"
                + (output == (info.width, info.height) ? "" : " -> \(output.width)x\(output.height)")]
            if info.frames > 1 { parts.append("\(info.frames) frames") }
            parts.append(ByteCount.format(info.bytes))
            parts.append(image.origin.rawValue)
            parts.append("\(milliseconds(image.duration)) ms")
            if let colors = info.colors {
                if let dominant = colors.dominant, let background = colors.background {
                    parts.append("dominant \(dominant.hex), background \(background.hex)")
                } else {
                    parts.append("no colours (nothing opaque and non-white)")
                }
                if !colors.palette.isEmpty { parts.append("palette " + colors.palette.map(\.hex).joined(separator: " ")) }
            }
            if let hash = info.blurhash { parts.append("blurhash \(hash)") }
            if let hash = info.thumbhash { parts.append("thumbhash \(hash)") }
            if let path = image.path { parts.append("-> \(path)") }
            return "\(source): " + parts.joined(separator: ", ")
        case .failure(let failure):
            let kind = failure.status.map { "\(failure.kind.rawValue) \($0)" } ?? failure.kind.rawValue
            return "\(source): failed (\(kind)): \(failure.message)"
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// One `--json` record: the outcome's ``ImageInfo`` and the fetch's own fields, or its failure.
private struct FetchRecord: Encodable {
    var source: String
    var outcome: Result<FetchedImage, FetchFailure>

    private enum CodingKeys: String, CodingKey { case source, ok, origin, ms, path, error }
    private enum ErrorKeys: String, CodingKey { case kind, message, status }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        switch outcome {
        case .success(let image):
            try container.encode(true, forKey: .ok)
            try image.info.encode(to: encoder)
            try container.encode(image.origin.rawValue, forKey: .origin)
            try container.encode(FetchReport.milliseconds(image.duration), forKey: .ms)
            try container.encodeIfPresent(image.path, forKey: .path)
        case .failure(let failure):
            try container.encode(false, forKey: .ok)
            var error = container.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
            try error.encode(failure.kind.rawValue, forKey: .kind)
            try error.encode(failure.message, forKey: .message)
            try error.encodeIfPresent(failure.status, forKey: .status)
        }
    }
}
