import Foundation

/// What the embedded origin sends back for a request: a status, headers and body, after an
/// optional delay, and optionally broken in one of the ways real servers and networks break.
package struct OriginResponse: Sendable {
    /// The HTTP status code.
    package var status: Int
    /// Response headers. `Content-Length` and `Transfer-Encoding` are set by the server (from
    /// the body, or from the fault) and ignored here.
    package var headers: [(String, String)]
    /// The body (for ``Fault/endless(chunkBytes:)``, the pattern the endless body repeats).
    package var body: Data
    /// Waited before the response head is sent: the origin's latency.
    package var delay: Duration
    /// How the response breaks; `nil` for a correct response with an exact `Content-Length`.
    package var fault: Fault?

    /// The ways a response can break: what nginx will not do on demand.
    package enum Fault: Sendable, Equatable {
        /// Sends the head (with the full body's `Content-Length`) and the first `bytes` bytes of
        /// the body, then resets the connection (`SO_LINGER` 0: an RST, not a FIN).
        case resetAfter(bytes: Int)
        /// Sends the body (with a correct `Content-Length`) in chunks of `chunkBytes`, waiting
        /// `interval` between them.
        case drip(chunkBytes: Int, interval: Duration)
        /// Declares `Content-Length` as given while sending `body` as it is, then closes the
        /// connection: with a longer declared length, a body cut short.
        case declaredLength(Int)
        /// A chunked body of `chunkBytes`-sized chunks that does not end until the client goes
        /// away or the server stops (bounded only by ``OriginServer/endlessBodyLimit``).
        case endless(chunkBytes: Int)
    }

    /// A response; by default `200 OK`, no headers, empty body, no delay, no fault.
    package init(
        status: Int = 200, headers: [(String, String)] = [], body: Data = Data(), delay: Duration = .zero,
        fault: Fault? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.fault = fault
    }

    /// `200 OK` with `body` of type `contentType`, after `delay`.
    package static func ok(_ body: Data, contentType: String = "image/jpeg", delay: Duration = .zero) -> OriginResponse {
        OriginResponse(status: 200, headers: [("Content-Type", contentType)], body: body, delay: delay)
    }

    /// A response with `status` and no body (e.g. 404, or 503 with `Retry-After`).
    package static func status(_ status: Int, headers: [(String, String)] = []) -> OriginResponse {
        OriginResponse(status: status, headers: headers)
    }
}
