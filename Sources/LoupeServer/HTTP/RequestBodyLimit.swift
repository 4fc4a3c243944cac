import Hummingbird
import NIOCore

/// How the service reads a request body: never more than a limit, never longer than a
/// deadline. A declared `Content-Length` over the limit is refused with 413 before a byte of the
/// body is read (so a client that declares gigabytes and sends five bytes is answered at once);
/// a body that grows past the limit as it arrives is refused at that point, with at most the
/// limit held; a body that stops arriving is refused with 408 at the deadline. Both refusals
/// say `Connection: close`, since the rest of the body is still on the connection.
struct RequestBodyLimit: Sendable {
    /// The most bytes read.
    let maximumBytes: Int
    /// How long the whole body may take to arrive.
    let deadline: Duration
    /// The 413's message: what the limit is for.
    let tooLargeMessage: String

    /// The body of `request`, or a 413 or 408 ``ServiceError``.
    func read(_ request: Request) async throws(ServiceError) -> ByteBuffer {
        if let declared = request.headers[.contentLength], let length = Int(declared), length > maximumBytes {
            throw .bodyTooLarge(tooLargeMessage)
        }
        let body = request.body, limit = maximumBytes
        do {
            return try await withDeadline(deadline) { try await body.collect(upTo: limit) }
        } catch let error as ServiceError where error == .timedOut {
            throw .bodyTimedOut(deadline)
        } catch is NIOTooManyBytesError {
            throw .bodyTooLarge(tooLargeMessage)
        } catch {
            throw .from(error)
        }
    }
}

extension ServiceError {
    /// 413 for a request body over its limit.
    static func bodyTooLarge(_ message: String) -> ServiceError { ServiceError(413, "bodyTooLarge", message) }

    /// 408 for a request body that did not arrive within `deadline`.
    static func bodyTimedOut(_ deadline: Duration) -> ServiceError {
        ServiceError(408, "bodyTimeout", "the request body did not arrive within \(deadline)")
    }

    /// Whether the answer leaves a request body unread on the connection, which is then closed.
    var endsConnection: Bool { kind == "bodyTooLarge" || kind == "bodyTimeout" }
}
