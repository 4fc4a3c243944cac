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
        let data = try await watermarkData(source)
        var options = DecodingOptions(appliesOrientation: true, firstFrameOnly: true)
        options.limits = DecodingLimits(maxPixelCount: settings.maximumSourcePixels, maxFrameCount: 1,
                                        maxTotalPixelCount: settings.maximumSourcePixels)
        let bitmap: Bitmap
        do {
            bitmap = try ImageDecoder().decode(data, options: options).bitmap
        } catch {
            throw SettingsError("\(source.settingName): the watermark cannot be decoded: \(error)")
        }
        let loaded = LoadedWatermark(bitmap: bitmap, identity: String(Self.digest(data.base64EncodedString()).prefix(16)))
        watermark.withLock { $0 = loaded }
    }

    /// The image's bytes, at most the largest source's size.
    private func watermarkData(_ source: WatermarkSource) async throws(SettingsError) -> Data {
        let limit = settings.maximumSourceBytes
        switch source {
        case .data(let data):
            return data
        case .file(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw SettingsError("\(source.settingName) '\(path)' cannot be read")
            }
            defer { try? handle.close() }
            let data: Data
            do {
                data = try handle.read(upToCount: limit + 1) ?? Data()
            } catch {
                throw SettingsError("\(source.settingName) '\(path)' cannot be read")
            }
            guard data.count <= limit else { throw SettingsError("\(source.settingName) '\(path)' is larger than --max-source-size") }
            return data
        case .url(let url):
            do {
                let response = try await httpLoader.loadData(for: DataRequest(url: url))
                guard (200..<300).contains(response.statusCode) else {
                    throw SettingsError("\(source.settingName) '\(url.absoluteString)' answered \(response.statusCode)")
                }
                return response.data
            } catch let error as SettingsError {
                throw error
            } catch {
                throw SettingsError("\(source.settingName) '\(url.absoluteString)' cannot be loaded: \(error)")
            }
        }
    }

    /// The watermark step a request with `options` gets: `nil` when the URL asks for none, the
    /// opacity is 0, or no watermark is loaded (then, as imgproxy, nothing is drawn).
    func watermarkStep(for options: ProcessingOptions) -> Watermark? {
        let opacity = options.watermarkOpacity * settings.watermarkOpacity
        guard opacity > 0, let loaded = watermark.withLock({ $0 }) else { return nil }
        return Watermark(mark: loaded.bitmap, markIdentity: loaded.identity, opacity: opacity, position: options.watermarkPosition,
                         xOffset: options.watermarkXOffset, yOffset: options.watermarkYOffset, scale: options.watermarkScale,
                         dpr: options.dpr)
    }
}
