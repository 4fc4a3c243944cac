import Foundation
import NIOCore
import NIOHTTP1

/// One client connection of an ``OriginServer``: reads requests one at a time, asks the
/// handler, and writes each response — correct, or broken as its fault says.
///
/// Work per connection is bounded: one request at a time (NIO's pipelining handler holds any
/// pipelined requests until the response before them has ended, and stops reading meanwhile),
/// request bodies are discarded and capped, and every write waits until the socket took it, so
/// a client that stops reading holds one chunk in memory, not the whole response. A client that
/// goes away makes the next write fail, which ends the connection; `stop()` closes it.
struct OriginConnection {
    /// A request body larger than this closes the connection (the origin serves GETs).
    static let maximumRequestBodyBytes = 1 << 20

    let connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    let handler: OriginServer.Handler
    let registry: OriginRegistry

    private var channel: any Channel { connection.channel }

    /// Serves the connection until the client closes it, a response ends it, or the server stops.
    func run() async {
        guard registry.open(channel) else {
            try? await channel.close()
            return
        }
        defer { registry.closed(channel) }
        do {
            try await connection.executeThenClose { inbound, _ in
                var pending: HTTPRequestHead?
                var bodyBytes = 0
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        pending = head
                        bodyBytes = 0
                        registry.countRequest(path: OriginRequest.splitting(target: head.uri).path)
                    case .body(let chunk):
                        bodyBytes += chunk.readableBytes
                        guard bodyBytes <= Self.maximumRequestBodyBytes else { return }
                    case .end:
                        guard let head = pending else { return }
                        pending = nil
                        guard try await respond(to: head) else { return }
                    }
                }
            }
        } catch {
            // The client went away, a write failed, or the server is stopping: in every case the
            // connection is closed now, and there is no one to report to.
        }
    }

    /// Answers one request; returns whether the connection stays open for another.
    private func respond(to head: HTTPRequestHead) async throws -> Bool {
        let (path, query) = OriginRequest.splitting(target: head.uri)
        let request = OriginRequest(
            method: head.method.rawValue, path: path, query: query, headers: head.headers.map { ($0.name, $0.value) })
        registry.log(request)
        let response = await handler(request)
        if response.delay > .zero { try await Task.sleep(for: response.delay) }
        let body = ByteBuffer(bytes: response.body)
        let version = head.version
        let keepAlive = head.isKeepAlive

        switch response.fault {
        case nil:
            let hasBody = Self.statusAllowsBody(response.status)
            let responseHead = Self.head(
                response, version: version, contentLength: hasBody ? body.readableBytes : nil, close: !keepAlive)
            channel.write(HTTPServerResponsePart.head(responseHead), promise: nil)
            if hasBody, head.method != .HEAD, body.readableBytes > 0 {
                channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
            }
            try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
            return keepAlive

        case .resetAfter(let bytes):
            channel.write(HTTPServerResponsePart.head(Self.head(response, version: version, contentLength: body.readableBytes)), promise: nil)
            let sent = body.getSlice(at: body.readerIndex, length: min(max(0, bytes), body.readableBytes)) ?? ByteBuffer()
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(sent)))
            // Linger 0: close() discards what is unsent and answers with an RST, as a crashed
            // server or a middlebox does, instead of an orderly FIN.
            if let options = channel as? any SocketOptionProvider {
                try await options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            }
            try? await channel.close()
            return false

        case .drip(let chunkBytes, let interval):
            try await channel.writeAndFlush(HTTPServerResponsePart.head(
                Self.head(response, version: version, contentLength: body.readableBytes)))
            let step = max(1, chunkBytes)
            var offset = 0
            // Bounded: offset grows by at least one byte per round, up to the body's size.
            while offset < body.readableBytes {
                if offset > 0 { try await Task.sleep(for: interval) }
                let length = min(step, body.readableBytes - offset)
                let chunk = body.getSlice(at: body.readerIndex + offset, length: length) ?? ByteBuffer()
                try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(chunk)))
                offset += length
            }
            try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
            return keepAlive

        case .declaredLength(let declared):
            channel.write(HTTPServerResponsePart.head(Self.head(response, version: version, contentLength: max(0, declared))), promise: nil)
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(body)))
            // An orderly close: the client sees the body end before its declared length.
            try? await channel.close()
            return false

        case .endless(let chunkBytes):
            let chunk = Self.repeating(response.body, count: max(1, chunkBytes))
            let chunked = version.major > 1 || (version.major == 1 && version.minor >= 1)
            try await channel.writeAndFlush(HTTPServerResponsePart.head(
                Self.head(response, version: version, contentLength: nil, chunked: chunked)))
            var sent = 0
            // Ends when a write fails (the client went away), at `stop()` (cancellation, and the
            // channel closed under the write), or at the safety limit.
            while sent < OriginServer.endlessBodyLimit {
                try Task.checkCancellation()
                try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(chunk)))
                sent += chunk.readableBytes
            }
            return false
        }
    }

    /// The response head: the handler's headers, with the framing headers the server decides.
    private static func head(
        _ response: OriginResponse, version: HTTPVersion, contentLength: Int?, chunked: Bool = false, close: Bool = false
    ) -> HTTPResponseHead {
        let framing: Set<String> = ["content-length", "transfer-encoding", "connection"]
        var headers = HTTPHeaders(response.headers.filter { !framing.contains($0.0.lowercased()) })
        if let contentLength { headers.add(name: "Content-Length", value: String(contentLength)) }
        if chunked { headers.add(name: "Transfer-Encoding", value: "chunked") }
        if close { headers.add(name: "Connection", value: "close") }
        return HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
    }

    /// 1xx, 204 and 304 responses carry no body and no length (RFC 9110 §6.4.1, §8.6).
    private static func statusAllowsBody(_ status: Int) -> Bool {
        !((100..<200).contains(status) || status == 204 || status == 304)
    }

    /// `count` bytes of `pattern` repeated (zeros when it is empty).
    private static func repeating(_ pattern: Data, count: Int) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(count)
        guard !pattern.isEmpty else {
            buffer.writeRepeatingByte(0, count: count)
            return buffer
        }
        // Bounded: each round writes at least one byte, until `count`.
        while buffer.readableBytes < count {
            buffer.writeBytes(pattern.prefix(count - buffer.readableBytes))
        }
        return buffer
    }
}
