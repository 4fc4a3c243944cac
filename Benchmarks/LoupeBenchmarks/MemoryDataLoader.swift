import Foundation
import LoupeLoading

/// Answers every request at once with bytes held in memory, chosen by the URL's last path
/// component (the query is ignored, so distinct URLs can share bytes): the pipeline's loads with
/// the network taken out, so what remains beyond the decode is the pipeline's own plumbing.
struct MemoryDataLoader: DataLoading {
    let files: [String: Data]

    func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        guard let data = files[request.url.lastPathComponent] else { throw BenchmarkError("no bytes for \(request.url)") }
        return DataResponse(data: data, statusCode: 200, headers: [:], url: request.url)
    }
}
