import AsyncHTTPClient
import Foundation
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
import NIOCore
import Testing

/// thumbor's `smart` through a real `loupe serve` over HTTP. On photos with faces (from
/// scikit-image's data and thumbor's detector tests, none made for this test) the cut contains every
/// face that OpenCV's own Python binding finds with thumbor's parameters, where the same cut
/// aligned away from them does not; on photos without faces the answer is the cut centred on
/// their corners; and a `loupe` without libLoupeVision beside it answers with the edge-energy
/// cut and says why in its log.
@Suite(.serialized) struct ThumborSmartCropTests {
    /// What `face_reference.py` (OpenCV's Python binding) finds in one image.
    struct Reference: Decodable {
        let path: String
        let width: Int
        let height: Int
        let faces: [[Int]]
        let corners: [[Double]]
    }

    /// A cut along the image's longer side, the other side whole: which side, and the offset of
    /// a cut of `length` along it.
    struct Cut {
        let horizontal: Bool
        let length: Int

        /// The URL's size for an image of `width`×`height`: the cut itself, so that the result
        /// is the cut's pixels, unscaled.
        func size(width: Int, height: Int) -> String { horizontal ? "\(length)x\(height)" : "\(width)x\(length)" }
    }

    /// Photos with faces: scikit-image's astronaut, and the portrait thumbor's face detector
    /// tests expect one face in (a Wikimedia Commons photo).
    static let faceImages = [Corpus.url("skimage/astronaut.png"), thumborFixture("Giunchedi%2C_Filippo_January_2015_01.jpg")]
    /// Photos without: scikit-image's coffee, and thumbor's own `no_face.jpg`.
    static let facelessImages = [Corpus.url("skimage/coffee.png"), thumborFixture("no_face.jpg")]

    static func thumborFixture(_ name: String) -> URL {
        ThumborFilterConformanceTests.sdist.appendingPathComponent("tests/fixtures/images").appendingPathComponent(name)
    }

    /// A local root holding `files` under plain names (`image0.jpg`, …), for `local:///` URLs.
    static func localRoot(_ files: [URL]) throws -> (folder: TemporaryFolder, names: [String]) {
        let folder = try TemporaryFolder.created()
        var names: [String] = []
        for (index, file) in files.enumerated() {
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw CorpusMissing(path: "\(file.path) (run Scripts/fetch-corpus.sh and bash Scripts/conformance/venv.sh)")
            }
            let name = "image\(index).\(file.pathExtension)"
            try FileManager.default.copyItem(at: file, to: folder.url.appendingPathComponent(name))
            names.append(name)
        }
        return (folder, names)
    }

    @Test func cutsKeepEveryFaceOpenCVFinds() async throws {
        try await Self.withServedImages(Self.faceImages) { file, reference, source, port, client in
            try #require(!reference.faces.isEmpty, "OpenCV finds no face in \(reference.path)")
            #expect((source.width, source.height) == (reference.width, reference.height))
            let horizontal = reference.width >= reference.height
            let extent = horizontal ? reference.width : reference.height
            // The faces' span along the cut's side.
            let starts = reference.faces.map { horizontal ? $0[0] : $0[1] }
            let ends = reference.faces.map { horizontal ? $0[0] + $0[2] : $0[1] + $0[3] }
            let span = try #require(ends.max()) - (try #require(starts.min()))
            let cut = Cut(horizontal: horizontal, length: min(extent - 1, max(extent / 2, span + span / 4)))
            // Aligned to the side away from the faces, so that only the faces can move the cut there.
            let facesCentre = (starts.reduce(0, +) + ends.reduce(0, +)) / (2 * starts.count)
            let away = horizontal ? (facesCentre > extent / 2 ? "left" : "right") : (facesCentre > extent / 2 ? "top" : "bottom")
            let size = cut.size(width: reference.width, height: reference.height)
            let smart = try await Self.offset(of: "/unsafe/\(size)/\(away)/smart/filters:format(png)/local:///\(file)", in: source, cut: cut,
                                              port: port, client: client)
            let aligned = try await Self.offset(of: "/unsafe/\(size)/\(away)/filters:format(png)/local:///\(file)", in: source, cut: cut,
                                                port: port, client: client)
            func keepsEveryFace(_ offset: Int) -> Bool {
                zip(starts, ends).allSatisfy { start, end in start >= offset && end <= offset + cut.length }
            }
            #expect(keepsEveryFace(smart), "\(file): the smart cut at \(smart) (\(cut.length) long) loses a face of \(reference.faces)")
            #expect(!keepsEveryFace(aligned), "\(file): the cut aligned \(away) keeps the faces too, so it proves nothing")
        }
    }

    @Test func cutsWithoutFacesCentreOnTheirCorners() async throws {
        try await Self.withServedImages(Self.facelessImages) { file, reference, source, port, client in
            #expect(reference.faces.isEmpty, "OpenCV finds faces in \(reference.path)")
            try #require(reference.corners.count > 1)
            let cut = Cut(horizontal: true, length: reference.width / 2)
            let size = cut.size(width: reference.width, height: reference.height)
            let smart = try await Self.offset(of: "/unsafe/\(size)/left/smart/filters:format(png)/local:///\(file)", in: source, cut: cut,
                                              port: port, client: client)
            // Centred on the corners' centre of mass as thumbor centres it; the service finds
            // them on a copy of at most 300 pixels on the short side, so its corners are
            // not all the full image's.
            let centre = reference.corners.map { Int($0[0]) }.reduce(0, +) / reference.corners.count
            let expected = min(max(centre - cut.length / 2, 0), reference.width - cut.length)
            #expect(abs(smart - expected) <= reference.width / 10, "\(file): cut at \(smart), the corners' centre puts it at \(expected)")
            #expect(smart > 0, "\(file): the smart cut stayed at the left alignment")
        }
    }

    /// Runs `body` for each of `images` served by a `loupe serve` child process over a local
    /// root: the file's name, OpenCV's reference for it, its upright pixels, the port and a client.
    private static func withServedImages(
        _ images: [URL],
        _ body: (String, Reference, Bitmap, Int, HTTPClient) async throws -> Void
    ) async throws {
        let references = try await references(images)
        let root = try localRoot(images)
        defer { root.folder.remove() }
        let serve = try ServeProcess(arguments(root: root.folder))
        defer { serve.kill() }
        let port = try await serve.port()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            for (file, reference) in zip(root.names, references) {
                try await body(file, reference, try upright(root.folder.url.appendingPathComponent(file)), port, client)
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test func withoutOpenCVTheCutFollowsEdgeEnergyAndTheLogSaysWhy() async throws {
        // A copy of `loupe` in a folder of its own: libLoupeVision.so is not beside it.
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let executable = URL(fileURLWithPath: folder.path("loupe"))
        try FileManager.default.copyItem(at: ChildProcess.product("loupe"), to: executable)
        let root = try Self.localRoot([Corpus.url("skimage/coffee.png")])
        defer { root.folder.remove() }
        let serve = try ServeProcess(Self.arguments(root: root.folder), executable: executable)
        defer { serve.kill() }
        let port = try await serve.port()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let file = root.names[0]
            let source = try Self.upright(root.folder.url.appendingPathComponent(file))
            let cut = Cut(horizontal: true, length: source.width / 2)
            let smart = try await Self.offset(of: "/unsafe/\(cut.size(width: source.width, height: source.height))/left/smart/filters:format(png)/local:///\(file)",
                                              in: source, cut: cut, port: port, client: client)
            let window = FocalPointDetection.energyWindow(in: source, width: cut.length, height: source.height)
            #expect(smart == window.x)
            try await serve.waitForLog("falls back to edge energy")
            try await serve.waitForLog("libLoupeVision.so cannot be loaded")
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func arguments(root: TemporaryFolder) -> [String] {
        ["--port", "0", "--quiet", "--local-root", root.url.path, "--thumbor-allow-unsafe"]
    }

    /// What OpenCV's Python binding finds in each file.
    static func references(_ files: [URL]) async throws -> [Reference] {
        let output = try await PythonReference.run("face_reference.py", arguments: files.map(\.path), interpreter: .system)
        let references = try String(decoding: output, as: UTF8.self).split(separator: "\n").map { line in
            try JSONDecoder().decode(Reference.self, from: Data(line.utf8))
        }
        try #require(references.count == files.count)
        return references
    }

    /// A file decoded upright, as the service decodes it.
    static func upright(_ file: URL) throws -> Bitmap {
        try ImageDecoder().decode(try Data(contentsOf: file), options: DecodingOptions(appliesOrientation: true, firstFrameOnly: true)).bitmap
    }

    /// Where along its side the cut that `path` answers with lies in `source`: the offset at
    /// which the result's pixels are the source's (a PNG of an unscaled cut: equal, not close).
    static func offset(of path: String, in source: Bitmap, cut: Cut, port: Int, client: HTTPClient) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(120))
        let body = Data(try await response.body.collect(upTo: 256 << 20).readableBytesView)
        try #require(response.status.code == 200, "\(path): \(response.status) \(String(decoding: body.prefix(300), as: UTF8.self))")
        let result = try ImageDecoder().decode(body, options: DecodingOptions(firstFrameOnly: true)).bitmap
        let expectedSize = cut.horizontal ? (cut.length, source.height) : (source.width, cut.length)
        try #require((result.width, result.height) == expectedSize, "\(path)")
        // Every offset, compared on a sparse grid of the result's pixels; then the best one on all of them.
        let along = (cut.horizontal ? source.width : source.height) - cut.length
        func difference(at offset: Int, step: Int) -> Int {
            var total = 0
            for y in stride(from: 0, to: result.height, by: step) {
                for x in stride(from: 0, to: result.width, by: step) {
                    let theirs = source.pixel(x: cut.horizontal ? x + offset : x, y: cut.horizontal ? y : y + offset)
                    let ours = result.pixel(x: x, y: y)
                    total += abs(Int(theirs.g) - Int(ours.g)) + abs(Int(theirs.r) - Int(ours.r))
                }
            }
            return total
        }
        let step = max(1, min(result.width, result.height) / 24)
        let scores = (0...along).map { difference(at: $0, step: step) }
        let best = try #require(scores.indices.min { scores[$0] < scores[$1] })
        #expect(difference(at: best, step: 1) == 0, "\(path): the result is not a cut of the source")
        return best
    }
}
