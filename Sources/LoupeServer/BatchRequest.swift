import Crypto
import Foundation
import Loupe

/// `POST /batch`: a JSON list of sources in, JSON Lines out — one `/info` object per source in
/// input order, each written as soon as it and every earlier one are done, failures in place
/// (seed 004's feed post-processing as one call).
///
/// The body is `[{"source": "https://..."}, ...]` (or plain strings), at most
/// ``maximumItems`` items. It is authorised by `Authorization: Bearer <batch token>` or by
/// `X-Signature: <imgproxy-style signature of the body>` under a configured key pair; a server
/// with neither configured accepts it only when it serves unsigned URLs.
struct BatchRequest: Sendable {
    static let maximumItems = 1_000
    static let maximumBodyBytes = 1 << 20

    let sources: [String]

    /// Parses the body.
    init(body: Data) throws(ServiceError) {
        guard let list = try? JSONSerialization.jsonObject(with: body) as? [Any] else {
            throw .badURL("the batch body must be a JSON list of {\"source\": URL} objects")
        }
        guard list.count <= Self.maximumItems else { throw .badURL("a batch holds at most \(Self.maximumItems) items") }
        var sources: [String] = []
        for (index, item) in list.enumerated() {
            if let text = item as? String {
                sources.append(text)
            } else if let object = item as? [String: Any], let source = object["source"] as? String {
                if let unknown = object.keys.sorted().first(where: { $0 != "source" }) {
                    throw .badOption("batch item \(index) has the field '\(unknown)'; only 'source' is supported")
                }
                sources.append(source)
            } else {
                throw .badURL("batch item \(index) is not a source URL or {\"source\": URL}")
            }
        }
        self.sources = sources
    }

    /// Checks the request's credentials against the server's settings.
    static func authorize(authorization: String?, signature: String?, body: Data, settings: ServerSettings) throws(ServiceError) {
        if let token = settings.batchToken, let authorization, authorization.hasPrefix("Bearer ") {
            let given = Data(authorization.dropFirst("Bearer ".count).utf8)
            // Compared as HMACs of both, so the comparison's time says nothing about the token.
            let key = SymmetricKey(size: .bits256)
            let expected = HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: key)
            if HMAC<SHA256>.isValidAuthenticationCode(expected, authenticating: given, using: key) { return }
            throw .badSignature("invalid batch token")
        }
        if !settings.keys.isEmpty, let signature {
            let path = String(decoding: body, as: UTF8.self)
            if URLSigner(pairs: settings.keys).isValid(signature: signature, for: path) { return }
            throw .badSignature("invalid batch signature")
        }
        if settings.batchToken == nil, settings.keys.isEmpty, settings.allowsUnsigned { return }
        throw .badSignature("a batch needs 'Authorization: Bearer <token>' or 'X-Signature' over its body")
    }
}

extension ImageService {
    /// The batch's lines, in input order, each as soon as it and every earlier one are done.
    func batchLines(_ batch: BatchRequest) -> AsyncThrowingMapSequence<OrderedBatch<String, Data>.Results, Data> {
        let batchJob = OrderedBatch(batch.sources, maximumConcurrency: max(2, settings.workers * 2)) { [self] source in
            let url = try settings.sources.check(source)
            return try await info(for: url)
        }
        return batchJob.results().map { item -> Data in
            var object: [String: Any] = ["index": item.index, "source": item.input]
            switch item.result {
            case .success(let info):
                object["ok"] = true
                let fields = (try? JSONSerialization.jsonObject(with: info) as? [String: Any]) ?? [:]
                object.merge(fields) { current, _ in current }
            case .failure(let error):
                let failure = ServiceError.from(error)
                object["ok"] = false
                object["error"] = ["kind": failure.kind, "message": failure.message, "status": failure.status]
            }
            var line = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
            line.append(0x0A)
            return line
        }
    }
}
