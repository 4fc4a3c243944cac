import CLoupeCodecs

/// The C libraries the shim opens on first use instead of linking (libheif, libavif, libjxl, libtiff,
/// librsvg):
/// linked, they and the codecs they bring cost every process ~8 ms of start-up CPU whether it
/// ever sees such a file or not, and a deployment may leave them out. A decoder or encoder of
/// their format calls ``require(_:)`` first, so a missing library is a typed error of its own,
/// not a "corrupt" one.
enum CodecLibrary {
    /// Loads the library `format` needs (the first call does; later ones only look), or throws
    /// ``ImageCodecError/libraryUnavailable(_:library:reason:)``.
    static func require(_ format: ImageFormat) throws {
        // Without a message buffer first: every decode of the format passes here.
        guard let library = library(for: format), lc_codec_library_load(library, nil) != LC_OK else { return }
        var message = CMessage()
        _ = message.withPointer { lc_codec_library_load(library, $0) }
        throw ImageCodecError.libraryUnavailable(format, library: String(cString: lc_codec_library_name(library)), reason: message.text)
    }

    /// The lazily loaded library behind `format`; `nil` for the linked ones.
    static func library(for format: ImageFormat) -> lc_codec_library? {
        switch format {
        case .heif: LC_LIBRARY_HEIF
        case .avif: LC_LIBRARY_AVIF
        case .jxl: LC_LIBRARY_JXL
        case .tiff: LC_LIBRARY_TIFF
        case .svg: LC_LIBRARY_SVG
        case .jpeg, .png, .webp, .gif, .bmp, .ico: nil
        }
    }
}
