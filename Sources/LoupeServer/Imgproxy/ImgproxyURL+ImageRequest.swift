import Foundation
import Loupe

extension ImgproxyURL {
    /// The pipeline request the service makes for this URL's options (its processors and decode
    /// size), for a source at `source`; results larger than `resultLimit` a side are refused as
    /// `--max-result-dimension` refuses them. The URL fuzz target runs these processors.
    package func imageRequest(source: URL, resultLimit: Int) -> ImageRequest {
        ImageService.imageRequest(url: source, options: options, resultLimit: resultLimit)
    }
}
