// DWDrainHandler: holds a connection's close back until its response bytes are in the socket.
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// One per connection, between the HTTP codec and Hummingbird's connection-state handler (HTTP1Channel's
/// `additionalChannelHandlers`). All of it runs on the connection's event loop.
///
/// Why it exists: when Hummingbird quiesces a connection (SIGTERM) or ends one after its response, it closes the
/// channel right after writing the response's end; NIO fails the writes still queued in the channel (a large body
/// the client has not read yet) and the client gets a short body. This handler tracks every write's promise, which
/// NIO completes once the bytes are in the kernel's socket buffer (or the client has gone), and holds a close back
/// until none is outstanding; the kernel then delivers the rest after the close, even after the process exits.
/// During a shutdown it adds `Connection: close` to every response head, so keep-alive clients reconnect elsewhere.
/// Once ``DWConnectionDrain/isForcing`` (the shutdown deadline), closes pass at once.
final class DWDrainHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let drain: DWConnectionDrain
    /// Writes handed on whose promise has not completed.
    private var unwritten = 0
    /// Closes asked for while bytes were still unwritten, in order.
    private var heldCloses: [(mode: CloseMode, promise: EventLoopPromise<Void>?)] = []

    init(drain: DWConnectionDrain) {
        self.drain = drain
    }

    func handlerAdded(context: ChannelHandlerContext) {
        drain.opened(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        drain.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            drain.requestStarted(on: context.channel, path: head.path ?? "")
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var part = unwrapOutboundIn(data)
        var isEnd = false
        switch part {
        case .head(var head):
            if drain.isShuttingDown {
                head.headerFields[.connection] = "close"
                part = .head(head)
            }
        case .end:
            isEnd = true
        case .body:
            break
        }
        unwritten += 1
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise { written.futureResult.cascade(to: promise) }
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            unwritten -= 1
            if isEnd { drain.responseWritten(on: context.channel) }
            if unwritten == 0 { releaseHeldCloses(context: context) }
        }
        context.write(wrapOutboundOut(part), promise: written)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode != .input, unwritten > 0, !drain.isForcing else {
            context.close(mode: mode, promise: promise)
            return
        }
        heldCloses.append((mode, promise))
        context.flush()
    }

    private func releaseHeldCloses(context: ChannelHandlerContext) {
        let closes = heldCloses
        heldCloses = []
        for close in closes { context.close(mode: close.mode, promise: close.promise) }
    }
}
