import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Innermost of the service's middleware: every failure becomes the service's JSON error with
/// its status (nothing escapes as a 500), and an answer to HEAD carries no body.
///
/// On `loupe serve`'s own router it also shapes what no route matched: a path that is not
/// there is 404 `notFound`, a method a path does not take is 405.
struct ServiceErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // The router's own answer when no route matched. Every path has an image route for
            // GET and HEAD, so another method is the one thing that was not found.
            response = (request.method == .get || request.method == .head ? ServiceError.notFound : .methodNotAllowed(request.method)).response
        } catch let error as HTTPError {
            response = ServiceError(Int(error.status.code), "badRequest", error.body ?? error.status.reasonPhrase).response
        } catch {
            response = ServiceError.from(error).response
        }
        if request.method == .head { response.body = ResponseBody() }
        return response
    }
}

extension ServiceError {
    /// 405 for a method a path does not take.
    static func methodNotAllowed(_ method: HTTPRequest.Method) -> ServiceError {
        ServiceError(405, "methodNotAllowed", "method \(method.rawValue) is not allowed here")
    }

    /// The answer: the JSON body, `Retry-After` for 429, and `Connection: close` when the
    /// request's body was refused unread. No `Cache-Control`, as imgproxy 4 sends none on an
    /// error: a cache in front decides by its own rules (nginx's `proxy_cache` without
    /// `proxy_cache_valid` keeps nothing without it), so a source that was missing for a moment
    /// is not answered as missing for longer than the cache's operator chose.
    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if endsConnection { headers[.connection] = "close" }
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: json)))
    }
}
