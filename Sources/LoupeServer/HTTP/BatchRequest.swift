import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeLoading
import NIOCore

/// `POST /batch`: a JSON list of sources in, JSON Lines out — one `/info` object per source in
/// input order, each written as soon as it and every earlier one are done, failures in place
/// (the poster feed's post-processing as one call).
///
/// The body is `[{"source": "https://...", "options": "rs:fill:300:300/g:ce"}, ...]` (or plain
/// source strings), at most ``maximumItems`` items. An item's `options` are imgproxy processing
/// options, parsed and limited exactly as a URL's: the line's colours and placeholders then
/// describe the processed result (the crop a client shows), as `/info` with options does. An
/// item that is wrong (unknown field, bad options, forbidden source) is a failure line in its
/// place; only a body that is not a list, or too long, fails the batch. It is authorised by
/// `Authorization: Bearer <batch token>` or by `X-Signature: <imgproxy-style signature of the
/// body>` under a configured key pair; a server with neither configured accepts it only when it
/// serves unsigned URLs.
struct BatchRequest: Sendable {
    static let maximumItems = 1_000
    static let maximumBodyBytes = 1 << 20

    /// One item of the list, as given; checked when it runs, so its problems fail it alone.
    struct Item: Sendable {
        /// The source URL (`nil` when the item names none).
        var source: String?
        /// The options string, when the item has one.
        var options: String?
        /// What is wrong with the item's shape, found while parsing the body.
        var problem: ServiceError?
    }

    let items: [Item]

    /// Parses the body.
    init(body: Data) throws(ServiceError) {
        guard let list = try? JSONSerialization.jsonObject(with: body) as? [Any] else {
            throw .badURL("the batch body must be a JSON list of {\"source\": URL, \"options\": string} objects")
        }
        guard list.count <= Self.maximumItems else { throw .badURL("a batch holds at most \(Self.maximumItems) items") }
        items = list.map(Self.item)
    }

    private static func item(_ value: Any) -> Item {
        if let text = value as? String { return Item(source: text) }
        guard let object = value as? [String: Any] else {
            return Item(problem: .badURL("a batch item is a source URL or {\"source\": URL, \"options\": string}"))
        }
        var item = Item(source: object["source"] as? String)
        if item.source == nil {
            item.problem = .badURL("the batch item has no 'source' string")
        } else if let unknown = object.keys.sorted().first(where: { $0 != "source" && $0 != "options" }) {
            item.problem = .badOption("the batch item has the field '\(unknown)'; only 'source' and 'options' are supported")
        } else if let options = object["options"] {
            if let text = options as? String {
                item.options = text
            } else {
                item.problem = .badOption("the batch item's 'options' must be a string such as \"rs:fill:300:300/g:ce\"")
            }
        }
        return item
    }

    /// Checks the request's credentials against the server's settings.
    static func authorize(authorization: String?, signature: String?, body: Data, settings: ServerSettings) throws(ServiceError) {
        if let token = settings.batchToken, let authorization, authorization.hasPrefix("Bearer ") {
            let given = Data(authorization.dropFirst("Bearer ".count).utf8)
            // Compared as digests of both in constant time, so the comparison's time says nothing
            // about the token (not even its length, which a byte-wise comparison would need equal).
            if Digest.constantTimeEquals(Digest.sha256(given), Digest.sha256(Data(token.utf8))) { return }
            throw .badSignature("invalid batch token")
        }
        if !settings.keys.isEmpty, let signature {
            let path = String(decoding: body, as: UTF8.self)
            if URLSigner(pairs: settings.keys, size: settings.signatureSize).isValid(signature: signature, for: path) { return }
            throw .badSignature("invalid batch signature")
        }
        if settings.batchToken == nil, settings.keys.isEmpty, settings.allowsUnsigned { return }
        throw .badSignature("a batch needs 'Authorization: Bearer <token>' or 'X-Signature' over its body")
    }
}

extension ServiceEndpoints {
    /// `POST /batch`: the body read within its limits, authorised and parsed, then the lines as
    /// they are ready.
    func batch(_ request: Request) async throws -> Response {
        let body = try await RequestBodyLimit(maximumBytes: BatchRequest.maximumBodyBytes, deadline: service.settings.requestTimeout,
                                              tooLargeMessage: "a batch body is at most \(BatchRequest.maximumBodyBytes) bytes").read(request)
        let data = Data(buffer: body)
        let signature = request.headers.first { $0.name.canonicalName == "x-signature" }?.value
        try BatchRequest.authorize(authorization: request.headers[.authorization], signature: signature,
                                   body: data, settings: service.settings)
        let batch = try BatchRequest(body: data)
        // Not counted by the admission gate: the body is written after this returns, and a
        // slot taken here could leak if the connection dies first. Each batch runs at most
        // twice `workers` items at once, through the pipeline's own limits.
        let service = self.service
        var headers = HTTPFields()
        headers[.contentType] = "application/x-ndjson"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            for try await line in service.batchLines(batch) {
                try await writer.write(ByteBuffer(data: line))
            }
            try await writer.finish(nil)
        })
    }
}

extension ImageService {
    /// The batch's lines, in input order, each as soon as it and every earlier one are done.
    func batchLines(_ batch: BatchRequest) -> AsyncThrowingMapSequence<OrderedBatch<BatchRequest.Item, ImageInfo>.Results, Data> {
        let batchJob = OrderedBatch(batch.items, maximumConcurrency: max(2, settings.workers * 2)) { [self] item in
            try await info(for: item)
        }
        return batchJob.results().map { item -> Data in
            let line = BatchLine(index: item.index, source: item.input.source, options: item.input.options,
                                 outcome: item.result.mapError(ServiceError.from))
            var data = (try? ImageInfo.encoder.encode(line)) ?? Data("{}".utf8)
            data.append(0x0A)
            return data
        }
    }

    /// One item's `/info` object: its options through the same parser and limits as a URL's.
    private func info(for item: BatchRequest.Item) async throws -> ImageInfo {
        if let problem = item.problem { throw problem }
        guard let source = item.source else { throw ServiceError.badURL("the batch item has no 'source' string") }
        var options = try ImgproxyURL.options(item.options ?? "", presets: settings.presets, onlyPresets: settings.onlyPresets, parsing: settings.urlParsing)
        try check(&options)
        let (url, local) = try sourceURL(settings.urlParsing.source(source))
        return try await info(for: url, options: options, cacheKey: local?.pipelineKey)
    }
}

/// One line of `/batch`'s answer: the item's place, source and options, then its ``ImageInfo``
/// (`"ok": true`) or its error (`"ok": false`, `{"kind", "message", "status"}`).
struct BatchLine: Encodable {
    var index: Int
    var source: String?
    var options: String?
    var outcome: Result<ImageInfo, ServiceError>

    private enum CodingKeys: String, CodingKey { case index, source, options, ok, error }
    private enum ErrorKeys: String, CodingKey { case kind, message, status }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(source, forKey: .source)
        try container.encodeIfPresent(options, forKey: .options)
        switch outcome {
        case .success(let info):
            try container.encode(true, forKey: .ok)
            try info.encode(to: encoder)
        case .failure(let failure):
            try container.encode(false, forKey: .ok)
            var error = container.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
            try error.encode(failure.kind, forKey: .kind)
            try error.encode(failure.message, forKey: .message)
            try error.encode(failure.status, forKey: .status)
        }
    }
}
