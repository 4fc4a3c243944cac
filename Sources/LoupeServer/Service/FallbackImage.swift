import Foundation
import Loupe
import LoupeCodecs

/// The image answered in place of a source that cannot be had (imgproxy's fallback image,
/// ``ServerSettings/fallbackImage``): loaded once at start-up, then processed with each failed
/// request's own options and answered with ``ServerSettings/fallbackImageStatus``.
struct FallbackImage: Sendable {
    /// The encoded image, as loaded.
    let data: Data
    /// A digest of its bytes: its identity in the pipeline's caches and coalescing.
    let identity: String

    /// The pipeline request that makes of the fallback image what `request` would have made of
    /// its source: the same thumbnail decode, processors, frames and orientation.
    func request(like request: ImageRequest) -> ImageRequest {
        var fallback = ImageRequest(id: "fallback-image:" + identity, data: data, thumbnail: request.thumbnail, processors: request.processors)
        fallback.maximumFrames = request.maximumFrames
        fallback.appliesOrientation = request.appliesOrientation
        fallback.usesEmbeddedThumbnail = request.usesEmbeddedThumbnail
        return fallback
    }

    /// Whether the fallback image stands in for `error`, a pipeline failure. imgproxy answers it
    /// for a failed download, which there includes recognising the bytes as an image: the
    /// source's status, the network, the address guard, the size limit, the download's
    /// deadline, a file that cannot be read, bytes that are no image. Not for what the request
    /// itself asks wrongly (its URL, options and signature are refused before any loading) nor
    /// for an image that loaded and then failed (corrupt, over the pixel or cost limits, a
    /// format this server cannot decode, processing, encoding), which imgproxy answers as errors too.
    static func standsIn(for error: any Error) -> Bool {
        switch ImageFailure(error).reason {
        case .httpStatus, .network, .forbiddenSource, .accessDenied, .tooLarge, .timeout, .unreadableFile, .unsupportedFormat: true
        case .invalidSource, .notCached, .codecUnavailable, .limitExceeded, .tooExpensive, .corrupt, .processingFailed, .encodingFailed,
             .cancelled, .other: false
        }
    }
}

extension ImageService {
    /// Loads ``ServerSettings/fallbackImage`` (nothing when none is set) with the sources' limits
    /// — the size limit, for a URL the loader's timeouts and address guard — and checks that it
    /// decodes within the pixel limits, once: a fallback image that cannot serve would answer
    /// every failed source with a second failure.
    /// - Throws: a ``SettingsError`` naming the setting (its flag and imgproxy variable) and why.
    func loadFallbackImage() async throws(SettingsError) {
        guard let source = settings.fallbackImage else { return }
        let flag = source.settingName("fallback-image")
        let setting = "\(flag) (IMGPROXY_\(flag.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")))"
        let data = try await auxiliaryImageData(source, setting: setting)
        var options = DecodingOptions(firstFrameOnly: true)
        options.limits = DecodingLimits(maxPixelCount: settings.maximumSourcePixels, maxFrameCount: 1, maxTotalPixelCount: settings.maximumSourcePixels)
        do {
            _ = try ImageDecoder().decode(data, options: options)
        } catch {
            throw SettingsError("\(setting): the fallback image cannot be decoded: \(error)")
        }
        let loaded = FallbackImage(data: data, identity: String(Self.digest(data.base64EncodedString()).prefix(16)))
        fallbackImage.withLock { $0 = loaded }
    }

    /// The fallback image for a request whose source failed with `error`, when one is loaded
    /// and stands in for that failure (``FallbackImage/standsIn(for:)``).
    func fallbackImage(standingInFor error: any Error) -> FallbackImage? {
        guard let loaded = fallbackImage.withLock({ $0 }), FallbackImage.standsIn(for: error) else { return nil }
        return loaded
    }

    /// Whether the fallback image answers for a local source refused when the request is
    /// planned: missing, not a regular file, unreadable or over the size limit. imgproxy reads a
    /// local file as it downloads a source, so these are failed downloads there, which its
    /// fallback image answers; a path the root refuses (`..`, a link) is not.
    func fallbackStandsIn(forLocal error: ServiceError) -> Bool {
        (error.kind == "sourceNotFound" || error.kind == "sourceTooLarge") && fallbackImage.withLock({ $0 != nil })
    }

    /// The status of a fallback image's answer for `failure`: the setting's, or with 0 the
    /// failure's own (imgproxy's rule).
    func fallbackStatus(for failure: ServiceError) -> Int {
        settings.fallbackImageStatus == 0 ? failure.status : settings.fallbackImageStatus
    }

    /// A fallback answer's `Cache-Control` max-age, `nil` for none: ``ServerSettings/fallbackImageTimeToLive``
    /// when set (the URL's own `max_age` and `expires` only shorten it); else as any answer
    /// with `status` — a result's lifetime below 400, nothing from 400 on (imgproxy's rules).
    func fallbackMaxAge(options: ProcessingOptions, status: Int) -> Int? {
        let configured = settings.fallbackImageTimeToLive
        if configured > 0 {
            return ServiceEndpoints.maxAge(timeToLive: min(configured, options.maxAge ?? configured), expires: options.expires)
        }
        guard status < 400 else { return nil }
        return ServiceEndpoints.maxAge(timeToLive: options.maxAge ?? settings.timeToLive, expires: options.expires)
    }
}
