import Loupe
import LoupeCodecs
@testable import LoupeServer
import Testing

/// How pipeline failures map onto the service's statuses, where the real failure is hard to
/// cause over HTTP.
@Suite struct ServiceErrorTests {
    /// libheif, libavif and libjxl are loaded on first use; a deployment without one answers
    /// its format like any other it cannot read, not with a 5xx.
    @Test func aMissingCodecLibraryIsAnUnsupportedFormat() {
        let missing = ImageCodecError.libraryUnavailable(.heif, library: "libheif.so.1", reason: "libheif.so.1 cannot be loaded (not found)")
        let error = ServiceError.from(ImagePipelineError.decodingFailed(missing))
        #expect(error.status == 415)
        #expect(error.kind == "unsupportedFormat")
        #expect(error.message == "the source is a HEIF image, which this server cannot decode")
        #expect(!error.message.contains("libheif.so.1"))
        #expect(ImagePipelineError.decodingFailed(missing).reason == .codecUnavailable)
    }
}
