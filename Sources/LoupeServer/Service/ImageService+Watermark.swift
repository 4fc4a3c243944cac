import Foundation
import LoupeCodecs
import LoupeLoading
import LoupeProcessing

/// The watermark image, decoded once: what every `watermark` step draws.
struct LoadedWatermark: Sendable {
    let bitmap: Bitmap
    /// A digest of the image's bytes: part of result keys, so a changed mark changes results.
    let identity: String
}

extension ImageService {
    /// Loads and decodes ``ServerSettings/watermark`` (nothing when none is set) and makes it
    /// the one URLs draw; on failure the one loaded before stays.
    /// - Throws: a ``SettingsError`` naming the setting and why it cannot be used.
    func reloadWatermark() async throws(SettingsError) {
        guard let source = settings.watermark else { return }
        let data = try await auxiliaryImageData(source, setting: source.settingName("watermark"))
        do {
            let loaded = try decodeMark(data)
            watermark.withLock { $0 = loaded }
        } catch {
            throw SettingsError("\(source.settingName("watermark")): the watermark cannot be decoded: \(error)")
        }
    }

    /// A mark's bytes decoded (first frame, oriented) within the source pixel limit.
    private func decodeMark(_ data: Data) throws -> LoadedWatermark {
        var options = DecodingOptions(appliesOrientation: true, firstFrameOnly: true)
        options.limits = DecodingLimits(maxPixelCount: settings.maximumSourcePixels, maxFrameCount: 1,
                                        maxTotalPixelCount: settings.maximumSourcePixels)
        let bitmap = try ImageDecoder().decode(data, options: options).bitmap
        return LoadedWatermark(bitmap: bitmap, identity: String(Self.digest(data.base64EncodedString()).prefix(16)))
    }

    /// The bytes at an http(s) URL through the service's loader (its size limit, timeouts and
    /// private-network guard); why not, in words.
    private func markData(at url: URL) async -> Result<Data, MarkLoadFailure> {
        do {
            let response = try await httpLoader.loadData(for: DataRequest(url: url))
            guard (200..<300).contains(response.statusCode) else { return .failure(MarkLoadFailure("answered \(response.statusCode)")) }
            return .success(response.data)
        } catch {
            return .failure(MarkLoadFailure("cannot be loaded: \(error)"))
        }
    }

    /// The marks thumbor's `watermark(url,…)` filters of `options` draw, then the frames of its
    /// `frame(url)` filters, each image loaded through the loader the server's own mark uses,
    /// after the source policy allowed its URL, and decoded within the source limits. An image
    /// that cannot be had is a 400 naming the filter, as thumbor answers it.
    func thumborMarks(for options: ProcessingOptions) async throws(ServiceError) -> [any ImageProcessing] {
        var marks: [any ImageProcessing] = []
        for request in options.thumborWatermarks {
            let loaded = try await thumborFilterImage(request.source, filter: "watermark")
            marks.append(ImageProcessors.PositionedWatermark(mark: loaded.bitmap, markIdentity: loaded.identity, x: request.x, y: request.y, alpha: request.alpha,
                                             widthRatio: request.widthRatio, heightRatio: request.heightRatio))
        }
        for source in options.thumborFrames {
            let loaded = try await thumborFilterImage(source, filter: "frame")
            marks.append(ImageProcessors.NinePatchFrame(ninePatch: loaded.bitmap, identity: loaded.identity))
        }
        return marks
    }

    /// The image at `source` a thumbor `filter` names, loaded and decoded; a source the allowed
    /// sources refuse is a 400 too, as thumbor's loader validation answers it.
    private func thumborFilterImage(_ source: String, filter: String) async throws(ServiceError) -> LoadedWatermark {
        let url: URL
        do {
            url = try settings.sources.check(source)
        } catch {
            throw .badOption("filter '\(filter)': '\(source)' is not an allowed source (\(error.message))")
        }
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw .badOption("filter '\(filter)': '\(source)' is not an http(s) image")
        }
        switch await markData(at: url) {
        case .failure(let failure): throw .badOption("filter '\(filter)': '\(source)' \(failure.reason)")
        case .success(let data):
            do {
                return try decodeMark(data)
            } catch {
                throw .badOption("filter '\(filter)': '\(source)' cannot be decoded: \(error)")
            }
        }
    }

    /// The bytes of an image of the server's own (the watermark, the fallback image), at most
    /// the largest source's size; a failure names `setting`.
    func auxiliaryImageData(_ source: AuxiliaryImageSource, setting: String) async throws(SettingsError) -> Data {
        let limit = settings.maximumSourceBytes
        switch source {
        case .data(let data):
            return data
        case .file(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw SettingsError("\(setting) '\(path)' cannot be read")
            }
            defer { try? handle.close() }
            let data: Data
            do {
                data = try handle.read(upToCount: limit + 1) ?? Data()
            } catch {
                throw SettingsError("\(setting) '\(path)' cannot be read")
            }
            guard data.count <= limit else { throw SettingsError("\(setting) '\(path)' is larger than --max-source-size") }
            return data
        case .url(let url):
            switch await markData(at: url) {
            case .success(let data): return data
            case .failure(let failure): throw SettingsError("\(setting) '\(url.absoluteString)' \(failure.reason)")
            }
        }
    }

    /// The watermark step a request with `options` gets: `nil` when the URL asks for none, the
    /// opacity is 0, or no watermark is loaded (then, as imgproxy, nothing is drawn).
    func watermarkStep(for options: ProcessingOptions) -> ImageProcessors.Watermark? {
        let opacity = options.watermarkOpacity * settings.watermarkOpacity
        guard opacity > 0, let loaded = watermark.withLock({ $0 }) else { return nil }
        return ImageProcessors.Watermark(mark: loaded.bitmap, markIdentity: loaded.identity, opacity: opacity, position: options.watermarkPosition,
                         xOffset: options.watermarkXOffset, yOffset: options.watermarkYOffset, scale: options.watermarkScale,
                         dpr: options.dpr)
    }
}

/// Why a mark's bytes could not be had.
struct MarkLoadFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
