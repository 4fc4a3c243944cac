import Foundation
import Loupe
import LoupeLoading

extension ImageService {
    /// What the origin said to a request that goes to it (``ValidatorPolicy/asksOrigin``).
    enum OriginAnswer: Sendable {
        /// It answered `304` to the client's conditions: the client's copy is current.
        case notModified(ValidatorPolicy.Validators)
        /// The result for the version it sent, and whether the result cache had it.
        case result(EncodedResult, ValidatorPolicy.Validators, cacheHit: Bool)
    }

    /// Whether `plan`'s source is one the service asks its origin for itself with
    /// ``ValidatorPolicy/asksOrigin``: an http(s) URL, or an S3 object when S3 is on.
    func asksOrigin(_ plan: Plan) -> Bool {
        guard validatorPolicy.asksOrigin, plan.source == nil, let scheme = plan.url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https" || (scheme == "s3" && pipeline.configuration.s3DataLoader != nil)
    }

    /// imgproxy 4's request to the origin: the client's conditions sent with it (through the
    /// sources' loader, so the address guard checks every hop before anything is sent), a
    /// `304` answered as such with nothing decoded, else the result for the bytes it sent.
    ///
    /// Every such request goes to the origin, as imgproxy's does: a cached result cannot tell
    /// whether the origin changed. The bytes name the result (their SHA-256 is part of its key
    /// and of the pipeline's identifier for them), so a changed origin is a new result and an
    /// unchanged one finds the result already made, in memory, on disk or in the bucket. The
    /// pipeline's source disk cache is not used for these: the bytes are this request's.
    ///
    /// A source that cannot be had fails in the pipeline as a download would (so the fallback
    /// image stands in for it the same way).
    func askOrigin(_ plan: Plan, conditions: ValidatorPolicy.Conditions, arrival: UInt64) async throws -> OriginAnswer {
        let loader: any DataLoading = plan.url.scheme?.lowercased() == "s3"
            ? pipeline.configuration.s3DataLoader ?? RetryingDataLoader(httpLoader) : RetryingDataLoader(httpLoader)
        var versioned = plan
        let response: DataResponse
        do {
            response = try await loader.loadData(for: DataRequest(url: plan.url, headers: validatorPolicy.originHeaders(conditions)))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            versioned.resultKey = Self.digest(plan.resultKey + "\nsource=unavailable")
            versioned.source = .provider(id: "origin-unavailable:" + plan.url.absoluteString) { throw error }
            return .result(try await makeResult(for: versioned, arrival: arrival), ValidatorPolicy.Validators(), cacheHit: false)
        }
        // A 304 without an ETag (Ceph's S3 gateway sends none) is of the one tag asked about, if one was.
        let sent = validatorPolicy.originHeaders(conditions)["If-None-Match"]
        let matched = response.isNotModified ? sent.flatMap { $0.contains(",") || $0 == "*" ? nil : $0 } : nil
        let validators = validatorPolicy.validators(etag: response.header("ETag") ?? matched, lastModified: response.header("Last-Modified"),
                                                     local: false)
        if response.isNotModified {
            // A 304 to a request without conditions names no copy the client holds.
            guard !validatorPolicy.originHeaders(conditions).isEmpty else {
                throw ServiceError(502, "sourceFailed", "the source answered 304 to a request without conditions")
            }
            return .notModified(validators)
        }
        let version = Hex.string(Digest.sha256(response.data))
        versioned.resultKey = Self.digest(plan.resultKey + "\nsource=" + version)
        versioned.source = .data(id: "origin:" + version, response.data)
        if let cached = cachedResult(for: versioned) { return .result(cached, validators, cacheHit: true) }
        return .result(try await makeResult(for: versioned, arrival: arrival), validators, cacheHit: false)
    }
}
