import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeProcessing
import LoupeServer
import LoupeTestSupport
import Testing

/// `/info` and `POST /batch` through the service's routes.
@Suite struct InfoAndBatchTests {
    /// A solid-colour image: its dominant colour is known exactly.
    static func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8, width: Int = 60, height: Int = 40) throws -> Data {
        try ImageEncoder().encode(try solidBitmap(r, g, b, width: width, height: height), as: .png)
    }

    static func solidBitmap(_ r: UInt8, _ g: UInt8, _ b: UInt8, width: Int = 60, height: Int = 40) throws -> Bitmap {
        try Bitmap(width: width, height: height, pixels: (0..<width * height).flatMap { _ in [r, g, b, 255] })
    }

    /// What the processing module says the dominant colour is (an image this small is sampled
    /// as stored, every 10th pixel).
    static func dominant(_ r: UInt8, _ g: UInt8, _ b: UInt8) throws -> RGBColor {
        try solidBitmap(r, g, b).dominantColor(quality: 10)
    }

    @Test func infoReportsTheFieldsOfFetchJSON() async throws {
        let red = try Self.solid(200, 30, 40)
        try await OriginServer.run(handler: { _ in .ok(red, contentType: "image/png") }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let answer = try await server.request("/info" + insecurePath("", origin.url("/red.png").absoluteString))
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "application/json")
                let info = answer.json
                #expect(info["format"] as? String == "png")
                #expect(info["width"] as? Int == 60 && info["height"] as? Int == 40)
                #expect(info["frames"] as? Int == 1)
                #expect(info["bytes"] as? Int == red.count)
                let expected = try Self.dominant(200, 30, 40)
                #expect(info["dominantColor"] as? String == expected.hex)
                #expect(info["backgroundColor"] as? String == expected.backgroundColor.hex)
                #expect((info["palette"] as? [String])?.isEmpty == false)
                #expect((info["blurhash"] as? String)?.count == 28)
                #expect((info["thumbhash"] as? String)?.isEmpty == false)
                let missing = try await server.request("/info" + insecurePath("", origin.url("/x").absoluteString.replacingOccurrences(of: "127.0.0.1", with: "127.0.0.3")))
                #expect(missing.status == 403)
            }
        }
    }

    @Test func batchStreamsLinesInInputOrderWithFailuresInPlace() async throws {
        let colors: [String: Data] = ["/a.png": try Self.solid(255, 0, 0), "/b.png": try Self.solid(0, 0, 255)]
        try await OriginServer.run(handler: { request in
            // The first item is the slowest: later ones wait for it, in order.
            if request.path == "/a.png", let data = colors["/a.png"] { return .ok(data, contentType: "image/png", delay: .milliseconds(300)) }
            if let data = colors[request.path] { return .ok(data, contentType: "image/png") }
            return .status(404)
        }) { origin in
            var settings = testSettings()
            settings.allowsUnsigned = false
            settings.batchToken = "s3cret"
            try await RoutedServer.with(settings) { server in
                let sources = [origin.url("/a.png").absoluteString, origin.url("/gone.png").absoluteString, origin.url("/b.png").absoluteString]
                let body = try JSONSerialization.data(withJSONObject: sources.map { ["source": $0] })
                let refused = try await server.request("/batch", method: .POST, headers: [("Authorization", "Bearer wrong")], body: body)
                #expect(refused.status == 403)
                let answer = try await server.request("/batch", method: .POST, headers: [("Authorization", "Bearer s3cret")], body: body)
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "application/x-ndjson")
                let lines = try String(decoding: answer.body, as: UTF8.self).split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
                #expect(lines.count == 3)
                #expect(lines.map { $0["index"] as? Int } == [0, 1, 2])
                #expect(lines.map { $0["source"] as? String } == sources)
                #expect(lines.map { $0["ok"] as? Bool } == [true, false, true])
                #expect(lines[0]["dominantColor"] as? String == (try Self.dominant(255, 0, 0)).hex)
                #expect(lines[2]["dominantColor"] as? String == (try Self.dominant(0, 0, 255)).hex)
                #expect(lines[0]["dominantColor"] as? String != lines[2]["dominantColor"] as? String)
                let error = try #require(lines[1]["error"] as? [String: Any])
                #expect(error["kind"] as? String == "sourceNotFound")
                #expect(error["status"] as? Int == 404)
                let malformed = try await server.request("/batch", method: .POST, headers: [("Authorization", "Bearer s3cret")], body: Data("{".utf8))
                #expect(malformed.status == 400)
            }
        }
    }

    /// 60×40: the left half red, the right half blue. A `fill` to 20×40 keeps 20 columns of one
    /// half or the other (no scaling), so its colours are known exactly.
    static func halves() throws -> Data {
        let pixels = (0..<40).flatMap { _ in (0..<60).flatMap { x -> [UInt8] in x < 30 ? [255, 0, 0, 255] : [0, 0, 255, 255] } }
        return try ImageEncoder().encode(try Bitmap(width: 60, height: 40, pixels: pixels), as: .png)
    }

    /// Each batch item carries its own options, parsed and limited as a URL's; a bad item is a
    /// failure line in its place, the others are served.
    @Test func batchItemsCarryTheirOwnOptionsAndBadOnesFailInPlace() async throws {
        let image = try Self.halves()
        try await OriginServer.run(handler: { _ in .ok(image, contentType: "image/png") }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let source = origin.url("/halves.png").absoluteString
                let items: [Any] = [
                    ["source": source, "options": "rs:fill:20:40/g:we"],
                    ["source": source, "options": "rs:fill:20:40/g:ea"],
                    ["source": source, "options": "dt:1"],
                    ["source": source, "options": "w:99999"],
                    ["source": source],
                    ["source": source, "options": 5],
                    ["source": source, "options": "rs:fill:20:40", "extra": 1],
                    ["source": "http://127.0.0.3/forbidden.png", "options": "w:10"],
                ]
                let body = try JSONSerialization.data(withJSONObject: items)
                let answer = try await server.request("/batch", method: .POST, body: body)
                #expect(answer.status == 200)
                let lines = try String(decoding: answer.body, as: UTF8.self).split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
                try #require(lines.count == items.count)
                #expect(lines.map { $0["index"] as? Int } == Array(0..<items.count))
                #expect(lines.map { $0["ok"] as? Bool } == [true, true, false, false, true, false, false, false])
                #expect(lines[0]["options"] as? String == "rs:fill:20:40/g:we")
                #expect(lines[0]["dominantColor"] as? String == (try Self.dominant(255, 0, 0)).hex)
                #expect(lines[1]["dominantColor"] as? String == (try Self.dominant(0, 0, 255)).hex)
                for line in lines[0...1] {
                    #expect(line["outputWidth"] as? Int == 20 && line["outputHeight"] as? Int == 40)
                    // The source's own fields stay the source's.
                    #expect(line["width"] as? Int == 60 && line["height"] as? Int == 40)
                    #expect(line["bytes"] as? Int == image.count)
                }
                // No options: the whole source, no result size.
                #expect(lines[4]["outputWidth"] == nil)
                #expect(lines[4]["width"] as? Int == 60)
                let errors = lines.map { ($0["error"] as? [String: Any])?["kind"] as? String }
                #expect(errors == [nil, nil, "unsupportedOption", "badOption", nil, "badOption", "badOption", "forbiddenSource"])
                let statuses = lines.map { ($0["error"] as? [String: Any])?["status"] as? Int }
                #expect(statuses == [nil, nil, 400, 400, nil, 400, 400, 403])
            }
        }
    }

    /// `/info` with options describes the processed result, as a batch item with them does.
    @Test func infoWithOptionsDescribesTheProcessedResult() async throws {
        let image = try Self.halves()
        try await OriginServer.run(handler: { _ in .ok(image, contentType: "image/png") }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let source = origin.url("/halves.png").absoluteString
                let east = try await server.request("/info" + insecurePath("rs:fill:20:40/g:ea", source))
                #expect(east.status == 200)
                #expect(east.json["dominantColor"] as? String == (try Self.dominant(0, 0, 255)).hex)
                #expect(east.json["outputWidth"] as? Int == 20)
                #expect(east.json["width"] as? Int == 60)
            }
        }
    }
}
