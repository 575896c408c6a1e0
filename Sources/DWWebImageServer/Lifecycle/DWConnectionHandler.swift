// DWConnectionHandler: a connection's one handler of ours — holds its close back until its response bytes are in the
// socket (draining), closes it when slow to send a request head, idle too long between requests or not reading its
// response (timers), and refuses a client's connections beyond its share.
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// One per connection, between the HTTP codec and Hummingbird's connection-state handler (HTTP1Channel's
/// `additionalChannelHandlers`), plus a ``DWByteArrivalHandler`` it puts at the front of the pipeline (before the HTTP
/// decoder) to see raw bytes. All of it runs on the connection's event loop. Draining and the timers were two
/// handlers; one handler is one hop less per read, write and flush and one write promise per write instead of two.
///
/// **Draining.** When Hummingbird quiesces a connection (SIGTERM) or ends one after its response, it closes the
/// channel right after writing the response's end; NIO fails the writes still queued in the channel (a large body
/// the client has not read yet) and the client gets a short body. This handler tracks every write's promise, which
/// NIO completes once the bytes are in the kernel's socket buffer (or the client has gone), and holds a close back
/// until none is outstanding; the kernel then delivers the rest after the close, even after the process exits.
/// During a shutdown it adds `Connection: close` to every response head, so keep-alive clients reconnect elsewhere.
/// Once ``DWConnectionDrain/isForcing`` (the shutdown deadline), closes pass at once.
///
/// **Timers**, at most one of the first two waits running:
/// - the **header wait** (`--header-timeout`): from the connection's start, or from the first byte of a keep-alive
///   connection's next request, until that request's head has been decoded in full — a slowloris is closed then;
/// - the **idle wait** (`--idle-timeout`): from the end of a response (its last write done), while no byte of a next
///   request has arrived — an idle keep-alive connection is closed then;
/// - the **write wait** (`--write-timeout`): while writes are pending, from the last one that completed (or the first
///   handed on) — a client that does not read its response is closed then, its buffers freed. A
///   body is handed on in slices of ``sliceBytes``, so a slow reader that does read completes a write every slice
///   and keeps its connection.
///
/// Neither of the first two runs while a request is open (its head arrived, its response not yet written): a slow
/// body upload or a long transform is the request deadline's business. A wait is a deadline checked by one
/// event-loop timer that is rescheduled only when it would fire too late (not cancelled and scheduled again per
/// request or write): when it fires before the earliest deadline, it sets itself for that deadline; with no wait
/// running, it does nothing.
///
/// **Per-client share.** A connection from a client address that already holds its share
/// (``DWConnectionDrain/maxPerClient``) is closed as soon as it is active, before anything is read from it.
final class DWConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let drain: DWConnectionDrain
    /// Writes handed on whose promise has not completed.
    private var unwritten = 0
    /// Closes asked for while bytes were still unwritten, in order.
    private var heldCloses: [(mode: CloseMode, promise: EventLoopPromise<Void>?)] = []

    private let headerTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let writeTimeout: TimeAmount
    /// Counted by the drain (within its client's share); false: closed at once.
    private var admitted = false
    /// Request heads decoded whose response's end has not been written yet (more than one when pipelined).
    private var openRequests = 0
    /// Between requests, with no byte of the next one seen: the idle wait's state.
    private var isIdle = false
    /// When the running header or idle wait ends; nil while none runs.
    private var deadline: NIODeadline?
    /// When the write wait ends (no write completed since); nil while no write is pending.
    private var writeDeadline: NIODeadline?
    /// The event-loop timer and when it fires (at or before the earlier of ``deadline`` and ``writeDeadline``).
    private var timer: (task: Scheduled<Void>, at: NIODeadline)?

    /// The largest body part handed on in one write: a write's promise is the only progress a handler sees.
    static let sliceBytes = 64 * 1024

    /// `headerTimeout`, `idleTimeout` and `writeTimeout` in seconds (all > 0).
    init(drain: DWConnectionDrain, headerTimeout: Double, idleTimeout: Double, writeTimeout: Double) {
        self.drain = drain
        self.headerTimeout = .nanoseconds(Int64(headerTimeout * 1_000_000_000))
        self.idleTimeout = .nanoseconds(Int64(idleTimeout * 1_000_000_000))
        self.writeTimeout = .nanoseconds(Int64(writeTimeout * 1_000_000_000))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        admitted = drain.opened(context.channel)
        guard admitted else {
            if context.channel.isActive { context.close(promise: nil) }  // else once active (channelActive)
            return
        }
        let watcher = DWByteArrivalHandler { [self] in bytesArrived(context: context) }
        do {
            try context.pipeline.syncOperations.addHandler(watcher, position: .first)
        } catch {
            context.close(promise: nil)  // never serve a connection without its timers
            return
        }
        wait(headerTimeout, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        guard admitted else {
            context.close(promise: nil)
            return
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if admitted { drain.closed(context.channel) }
        stopTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            drain.requestStarted(on: context.channel, path: head.path ?? "")
            openRequests += 1
            isIdle = false
            deadline = nil  // no wait while a request is open; the timer, if set, finds nothing to do
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
        case .body(var buffer):
            while buffer.readableBytes > Self.sliceBytes, let slice = buffer.readSlice(length: Self.sliceBytes) {
                hand(.body(slice), isEnd: false, promise: nil, context: context)
            }
            part = .body(buffer)
        }
        hand(part, isEnd: isEnd, promise: promise, context: context)
    }

    /// Hands one part on, its write tracked: the drain's count, the held closes and the write wait.
    private func hand(
        _ part: HTTPResponsePart, isEnd: Bool, promise: EventLoopPromise<Void>?,
        context: ChannelHandlerContext
    ) {
        if unwritten == 0 { writesAdvanced(context: context) }
        unwritten += 1
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise { written.futureResult.cascade(to: promise) }
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            unwritten -= 1
            if isEnd {
                drain.responseWritten(on: context.channel)
                responseEnded(context: context)
            }
            if unwritten == 0 {
                writeDeadline = nil
                releaseHeldCloses(context: context)
            } else {
                writesAdvanced(context: context)
            }
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

    // MARK: - Timers

    private func responseEnded(context: ChannelHandlerContext) {
        openRequests = max(0, openRequests - 1)
        guard openRequests == 0, context.channel.isActive else { return }
        isIdle = true
        wait(idleTimeout, context: context)
    }

    /// The first byte after a response ends the idle wait: the next request's head now has `--header-timeout`.
    private func bytesArrived(context: ChannelHandlerContext) {
        guard isIdle else { return }
        isIdle = false
        wait(headerTimeout, context: context)
    }

    /// Starts a wait of `timeout` from now (replacing the running one); the timer moves only if it would fire late.
    private func wait(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        let due = NIODeadline.now() + timeout
        deadline = due
        arm(for: due, context: context)
    }

    /// A write was handed on with none pending, or a pending one completed: the write wait starts again from now.
    private func writesAdvanced(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }  // closed: the failed writes complete, no wait
        let due = NIODeadline.now() + writeTimeout
        writeDeadline = due
        arm(for: due, context: context)
    }

    /// Makes the timer fire by `due`: it moves only if it would fire later (then it sets itself for what is left).
    private func arm(for due: NIODeadline, context: ChannelHandlerContext) {
        if let timer, timer.at <= due { return }
        timer?.task.cancel()
        setTimer(at: due, context: context)
    }

    /// The earliest running wait's end; nil when none runs.
    private var nextDeadline: NIODeadline? {
        switch (deadline, writeDeadline) {
        case (let a?, let b?): min(a, b)
        case (let a?, nil): a
        case (nil, let b): b
        }
    }

    private func setTimer(at due: NIODeadline, context: ChannelHandlerContext) {
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
            timer = nil
            guard let next = nextDeadline else { return }  // no wait running
            if NIODeadline.now() >= next {
                stopTimer()
                context.close(promise: nil)  // toward the socket: pending writes fail, nothing held back
            } else {
                setTimer(at: next, context: context)
            }
        }
        timer = (task, due)
    }

    private func stopTimer() {
        deadline = nil
        writeDeadline = nil
        timer?.task.cancel()
        timer = nil
    }
}

/// At the front of a connection's pipeline (on its event loop): tells its ``DWConnectionHandler`` that bytes
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
