import Foundation

/// Loads `file` URLs from disk and `data` URLs from themselves (RFC 2397), with the same size
/// limit as the HTTP loaders, checked before anything is read.
public struct LocalDataLoader: DataLoading {
    /// The largest payload accepted, in bytes.
    public var maximumSize: Int

    /// A loader refusing payloads over `maximumSize` bytes.
    public init(maximumSize: Int = HTTPLoadingLimits().maximumBodySize) {
        self.maximumSize = maximumSize
    }

    public func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        let data: Data
        switch request.url.scheme?.lowercased() {
        case "file": data = try readFile(request.url)
        case "data": data = try decodeDataURL(request.url.absoluteString)
        default: throw DataLoadingError.unsupportedScheme(request.url.scheme ?? "")
        }
        progress?(data.count, data.count)
        return DataResponse(data: data, statusCode: 200, headers: [:], url: request.url)
    }

    private func readFile(_ url: URL) throws -> Data {
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw DataLoadingError.file(path: path, reason: "no such file or not accessible")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw DataLoadingError.file(path: path, reason: "not a regular file")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumSize else { throw DataLoadingError.tooLarge(limit: maximumSize, declared: size) }
        do {
            let data = try Data(contentsOf: url)
            // The file may have grown between the check and the read.
            guard data.count <= maximumSize else { throw DataLoadingError.tooLarge(limit: maximumSize, declared: data.count) }
            return data
        } catch let error as DataLoadingError {
            throw error
        } catch {
            throw DataLoadingError.file(path: path, reason: error.localizedDescription)
        }
    }

    /// `data:[<media type>][;base64],<payload>`; the payload is percent-decoded unless base64.
    private func decodeDataURL(_ string: String) throws -> Data {
        guard let comma = string.firstIndex(of: ",") else { throw DataLoadingError.invalidURL("data URL without a comma") }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma].lowercased()
        let payload = string[string.index(after: comma)...]
        // Base64 decodes to 3/4 of its length and percent-encoding only shrinks: refuse early.
        let bound = header.hasSuffix(";base64") ? payload.utf8.count / 4 * 3 : payload.utf8.count
        guard bound <= maximumSize + 2 else { throw DataLoadingError.tooLarge(limit: maximumSize, declared: nil) }
        let data: Data?
        if header.hasSuffix(";base64") {
            data = Data(base64Encoded: PercentDecoding.string(payload) ?? String(payload))
        } else {
            data = PercentDecoding.bytes(payload.utf8).map { Data($0) }
        }
        guard let data else { throw DataLoadingError.invalidURL("data URL payload does not decode") }
        guard data.count <= maximumSize else { throw DataLoadingError.tooLarge(limit: maximumSize, declared: data.count) }
        return data
    }
}
