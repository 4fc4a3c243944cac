import Hummingbird
import LoupeCaching
import NIOCore
import NIOHTTPTypes

/// Tells a request's work that its client went away, so the work is cancelled — this
/// request's share of it: work shared with other requests goes on for them (the pipeline's and
/// the encoding stage's single-flight loaders cancel a load only when its last waiter leaves).
///
/// Hummingbird's own hook for this (`consumeWithCancellationOnInboundClose`) closes the
/// connection after every response, which ends keep-alive; instead a channel handler on each
/// connection watches for the client closing its side (`inputClosed`, with remote half-closure
/// on as Hummingbird sets it) or the connection going away, and wakes the requests waiting on
/// that connection.
final class ClientConnections: Sendable {
    private let open = Locked<[ObjectIdentifier: ClientConnection]>([:])

    /// A handler for a new connection's pipeline.
    func makeWatcher() -> any RemovableChannelHandler {
        Watcher(connections: self)
    }

    /// The state of the connection `channel`, if it is watched.
    func connection(for channel: any Channel) -> ClientConnection? {
        open.withLock { $0[ObjectIdentifier(channel)] }
    }

    fileprivate func register(_ channel: any Channel) -> ClientConnection {
        let connection = ClientConnection()
        open.withLock { $0[ObjectIdentifier(channel)] = connection }
        return connection
    }

    fileprivate func remove(_ channel: any Channel) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Passes everything through; notes when the client's side closes.
    private final class Watcher: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart

        let connections: ClientConnections
        var connection: ClientConnection?

        init(connections: ClientConnections) {
            self.connections = connections
        }

        func handlerAdded(context: ChannelHandlerContext) {
            connection = connections.register(context.channel)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            connections.remove(context.channel)
            connection?.close()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed { connection?.close() }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection?.close()
            connections.remove(context.channel)
            context.fireChannelInactive()
        }
    }
}

/// One client connection: closed once, waited on by the requests it carries.
final class ClientConnection: Sendable {
    private struct State {
        var isClosed = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Locked(State())

    var isClosed: Bool { state.withLock { $0.isClosed } }

    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isClosed else { return [] }
            state.isClosed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when the client's side closes, or when the calling task is cancelled.
    func waitUntilClosed() async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isClosed || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}

/// Hummingbird's request context with the connection's channel, so a request can find its
/// ``ClientConnection``.
struct ServiceRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
