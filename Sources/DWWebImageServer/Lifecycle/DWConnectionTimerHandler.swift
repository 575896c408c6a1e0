// DWConnectionTimerHandler: closes a connection slow to send its request head, or idle too long between requests.
import NIOCore
import NIOHTTPTypes

/// One per connection, beside ``DWDrainHandler`` in HTTP1Channel's `additionalChannelHandlers`, plus a
/// ``DWByteArrivalHandler`` it puts at the front of the pipeline (before the HTTP decoder) to see raw bytes. All of it
/// runs on the connection's event loop.
///
/// Two timers, at most one running:
/// - the **header timer** (`--header-timeout`): from the connection's start, or from the first byte of a keep-alive
///   connection's next request, until that request's head has been decoded in full — a slowloris is closed then;
/// - the **idle timer** (`--idle-timeout`): from the end of a response (its last write done), while no byte of a next
///   request has arrived — an idle keep-alive connection is closed then.
///
/// Neither runs while a request is open (its head arrived, its response not yet written): a slow body upload or a
/// long transform is the request deadline's business. A close goes through ``DWDrainHandler``, so it waits for
/// bytes still being written.
final class DWConnectionTimerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headerTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    /// Request heads decoded whose response's end has not been written yet (more than one when pipelined).
    private var openRequests = 0
    /// Between requests, with no byte of the next one seen: the idle timer's state.
    private var isIdle = false
    private var timer: Scheduled<Void>?

    /// `headerTimeout` and `idleTimeout` in seconds (both > 0).
    init(headerTimeout: Double, idleTimeout: Double) {
        self.headerTimeout = .nanoseconds(Int64(headerTimeout * 1_000_000_000))
        self.idleTimeout = .nanoseconds(Int64(idleTimeout * 1_000_000_000))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let watcher = DWByteArrivalHandler { [self] in bytesArrived(context: context) }
        do {
            try context.pipeline.syncOperations.addHandler(watcher, position: .first)
        } catch {
            context.close(promise: nil)  // never serve a connection without its timers
            return
        }
        arm(headerTimeout, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            openRequests += 1
            isIdle = false
            cancelTimer()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise { written.futureResult.cascade(to: promise) }
        written.futureResult.assumeIsolated().whenComplete { [self] _ in responseEnded(context: context) }
        context.write(data, promise: written)
    }

    private func responseEnded(context: ChannelHandlerContext) {
        openRequests = max(0, openRequests - 1)
        guard openRequests == 0, context.channel.isActive else { return }
        isIdle = true
        arm(idleTimeout, context: context)
    }

    /// The first byte after a response ends the idle wait: the next request's head now has `--header-timeout`.
    private func bytesArrived(context: ChannelHandlerContext) {
        guard isIdle else { return }
        isIdle = false
        arm(headerTimeout, context: context)
    }

    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        cancelTimer()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}

/// At the front of a connection's pipeline (on its event loop): tells its ``DWConnectionTimerHandler`` that bytes
/// arrived, before the HTTP decoder has a whole head to hand on.
final class DWByteArrivalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let onBytes: () -> Void

    init(onBytes: @escaping () -> Void) {
        self.onBytes = onBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        onBytes()
        context.fireChannelRead(data)
    }
}
