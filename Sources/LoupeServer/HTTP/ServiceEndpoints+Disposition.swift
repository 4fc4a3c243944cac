import Foundation
import LoupeCodecs

extension ServiceEndpoints {
    /// The `Content-Disposition` of a result, as imgproxy writes it: `attachment` with
    /// `return_attachment`, else `inline`; the file name's stem is the URL's `filename` when it
    /// gives one, else the source's last path component without its extension; the extension is
    /// the result's format's.
    static func contentDisposition(for url: URL, options: ProcessingOptions, format: ImageFormat) -> String {
        let name = options.filename.map { quotable($0) + "." + format.fileExtension } ?? fileName(for: url, format: format)
        return (options.returnAttachment ? "attachment" : "inline") + "; filename=\"" + name + "\""
    }

    /// A `filename` option made safe inside a quoted header value: imgproxy writes `"` as `%22`;
    /// here every byte that is not printable ASCII, and `\`, are percent-encoded too, so that no
    /// name (a base64 one can hold anything) can end the value or start a header line. At most
    /// 255 bytes of the name are used.
    static func quotable(_ filename: String) -> String {
        var text = ""
        for byte in filename.utf8.prefix(255) {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                text += String(format: "%%%02X", Int(byte))
            }
        }
        return text
    }

    /// `Cache-Control`'s max-age: `--ttl`, or less when the URL's `expires` comes sooner (as
    /// imgproxy shortens it), so that no cache keeps a result past its URL's expiry.
    static func maxAge(timeToLive: Int, expires: Int?, now: Date = Date()) -> Int {
        guard let expires, expires > 0 else { return timeToLive }
        let remaining = Double(expires) - now.timeIntervalSince1970
        return min(timeToLive, max(0, Int(remaining.rounded(.down))))
    }
}
