import Foundation

/// Where an image of the server's own comes from — the watermark (imgproxy's
/// `IMGPROXY_WATERMARK_DATA`, `_PATH` and `_URL`) or the fallback image
/// (`IMGPROXY_FALLBACK_IMAGE_DATA`, `_PATH` and `_URL`); when several are set, the first of
/// those three wins, as in imgproxy.
public enum AuxiliaryImageSource: Sendable, Equatable {
    /// The image's bytes (from base64).
    case data(Data)
    /// A file, read at start-up and on every reload.
    case file(path: String)
    /// An http(s) URL, loaded through the service's loader (its size limit, timeouts and
    /// private-network guard) at start-up and on every reload.
    case url(URL)

    /// The setting's flag for the image named `image` (`watermark`, `fallback-image`), for messages.
    func settingName(_ image: String) -> String {
        switch self {
        case .data: "--\(image)-data"
        case .file: "--\(image)-path"
        case .url: "--\(image)-url"
        }
    }

    /// The source the three settings (each a value and where it came from) name; `nil` when
    /// all are absent or empty.
    init?(data: (value: String, origin: String)?, path: (value: String, origin: String)?,
          url: (value: String, origin: String)?) throws(SettingsError) {
        if let (text, origin) = data, !text.isEmpty {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let bytes = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
                throw SettingsError("\(origin) is not base64")
            }
            self = .data(bytes)
        } else if let (text, _) = path, !text.isEmpty {
            self = .file(path: text)
        } else if let (text, origin) = url, !text.isEmpty {
            guard let parsed = URL(string: text), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw SettingsError("\(origin) '\(text)' is not an http(s) URL")
            }
            self = .url(parsed)
        } else {
            return nil
        }
    }
}
