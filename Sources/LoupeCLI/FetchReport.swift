import Foundation
import LoupeProcessing

/// How one source's outcome is printed: a JSON Lines record (`--json`) or a line for people.
enum FetchReport {
    /// The `--json` record: `{"source", "ok": true, "format", …}` or
    /// `{"source", "ok": false, "error": {"kind", "message"[, "status"]}}`.
    static func json(source: String, outcome: Result<FetchedImage, FetchFailure>) -> String {
        var object = JSONObject()
        object.add("source", .string(source))
        switch outcome {
        case .success(let image):
            object.add("ok", .bool(true))
            object.add("format", .string(image.format.rawValue))
            object.add("width", .int(image.width))
            object.add("height", .int(image.height))
            object.add("outputWidth", .int(image.outputWidth))
            object.add("outputHeight", .int(image.outputHeight))
            object.add("frames", .int(image.frames))
            object.add("bytes", .int(image.bytes))
            object.add("origin", .string(image.origin.rawValue))
            object.add("ms", .int(milliseconds(image.duration)))
            if let colors = image.colors {
                object.add("dominantColor", colors.dominant.map { .string($0.hex) } ?? .null)
                object.add("backgroundColor", colors.background.map { .string($0.hex) } ?? .null)
                object.add("palette", .strings(colors.palette.map(\.hex)))
            }
            switch image.placeholder {
            case .blurhash(let hash)?: object.add("blurhash", .string(hash))
            case .thumbhash(let hash)?: object.add("thumbhash", .string(hash))
            case nil: break
            }
            if let path = image.path { object.add("path", .string(path)) }
        case .failure(let failure):
            object.add("ok", .bool(false))
            var error = JSONObject()
            error.add("kind", .string(failure.kind.rawValue))
            error.add("message", .string(failure.message))
            if let status = failure.status { error.add("status", .int(status)) }
            object.add("error", .object(error))
        }
        return object.serialized
    }

    /// The line for people: `photo.jpg: jpeg 4000x3000 -> 256x192, 1.2 MB, network, 84 ms, …`
    /// or `photo.jpg: failed (http 404): HTTP 404 from …`.
    static func text(source: String, outcome: Result<FetchedImage, FetchFailure>) -> String {
        switch outcome {
        case .success(let image):
            var parts = ["\(image.format.rawValue) \(image.width)x\(image.height)"
                + (image.outputWidth == image.width && image.outputHeight == image.height ? "" : " -> \(image.outputWidth)x\(image.outputHeight)")]
            if image.frames > 1 { parts.append("\(image.frames) frames") }
            parts.append(ByteCount.format(image.bytes))
            parts.append(image.origin.rawValue)
            parts.append("\(milliseconds(image.duration)) ms")
            if let colors = image.colors {
                if let dominant = colors.dominant, let background = colors.background {
                    parts.append("dominant \(dominant.hex), background \(background.hex)")
                } else {
                    parts.append("no colours (nothing opaque and non-white)")
                }
                if !colors.palette.isEmpty { parts.append("palette " + colors.palette.map(\.hex).joined(separator: " ")) }
            }
            switch image.placeholder {
            case .blurhash(let hash)?: parts.append("blurhash \(hash)")
            case .thumbhash(let hash)?: parts.append("thumbhash \(hash)")
            case nil: break
            }
            if let path = image.path { parts.append("-> \(path)") }
            return "\(source): " + parts.joined(separator: ", ")
        case .failure(let failure):
            let kind = failure.status.map { "\(failure.kind.rawValue) \($0)" } ?? failure.kind.rawValue
            return "\(source): failed (\(kind)): \(failure.message)"
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
