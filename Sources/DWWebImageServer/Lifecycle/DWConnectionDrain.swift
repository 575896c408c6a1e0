// DWConnectionDrain: every open connection of one server and whether a response is still on its way to the socket.
import DWLocking
import Logging
import NIOCore

/// The server-wide side of a graceful shutdown. Each connection's ``DWConnectionHandler`` reports here (from its event
/// loop) when it opens and closes, when a request arrives and when its response's last byte has been written to the
/// socket. ``DWImageServer/run(onListening:)`` starts the shutdown (``beginShutdown()``) on the first signal and, if
/// responses are still being written when the timeout runs out, cuts them (``cutRemaining(after:)``).
///
/// Thread-safe: one lock guards the state; it is called from event loops, the signal queue and Swift tasks.
final class DWConnectionDrain: Sendable {
    private struct Connection {
        let channel: any Channel
        /// The client's address (without its port), nil for one that has none (a Unix socket).
        let peer: String?
        /// Requests read whose response has not been written to the socket in full yet.
        var busy = 0
        /// The latest request's target, for the line that reports a cut.
        var path = ""
    }

    private struct State {
        var connections: [ObjectIdentifier: Connection] = [:]
        /// Open connections per client address.
        var perPeer: [String: Int] = [:]
        var shuttingDown = false
        var forcing = false
        var finished = false
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = DWLock(State())
    private let logger: Logger
    /// Connections one client address may hold at once (`--max-connections-per-client`).
    let maxPerClient: Int

    /// A drain that reports on `logger` (notice level: shutdown started; error level: responses cut), admitting at
    /// most `maxPerClient` connections from one client address.
    init(logger: Logger, maxPerClient: Int = .max) {
        self.logger = logger
        self.maxPerClient = maxPerClient
    }

    /// Whether the shutdown has started: responses written from now on carry `Connection: close`.
    var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }
    /// Whether the deadline has passed: closes are no longer held back for unwritten bytes.
    var isForcing: Bool { state.withLock { $0.forcing } }

    /// A new connection: false (and not counted) when its client address already holds ``maxPerClient``
    /// connections — its handler closes it at once, so one client cannot take every connection slot.
    func opened(_ channel: any Channel) -> Bool {
        let peer = channel.remoteAddress?.ipAddress
        return state.withLock { state in
            if let peer {
                let count = state.perPeer[peer, default: 0]
                guard count < maxPerClient else { return false }
                state.perPeer[peer] = count + 1
            }
            state.connections[ObjectIdentifier(channel)] = Connection(channel: channel, peer: peer)
            return true
        }
    }

    /// A connection ``opened(_:)`` admitted has closed (others are ignored).
    func closed(_ channel: any Channel) {
        state.withLock { state in
            guard let connection = state.connections.removeValue(forKey: ObjectIdentifier(channel)),
                let peer = connection.peer, let count = state.perPeer[peer]
            else { return }
            state.perPeer[peer] = count > 1 ? count - 1 : nil
        }
    }

    func requestStarted(on channel: any Channel, path: String) {
        state.withLock {
            $0.connections[ObjectIdentifier(channel)]?.busy += 1
            $0.connections[ObjectIdentifier(channel)]?.path = path
        }
    }

    /// The last byte of one response is in the socket (or its write failed: the client has gone).
    func responseWritten(on channel: any Channel) {
        state.withLock { state in
            if let busy = state.connections[ObjectIdentifier(channel)]?.busy, busy > 0 {
                state.connections[ObjectIdentifier(channel)]?.busy = busy - 1
            }
        }
    }

    /// The first signal: from now on responses carry `Connection: close`; wakes ``waitForShutdown()``.
    func beginShutdown() {
        let (waiters, inFlight) = state.withLock { state -> ([CheckedContinuation<Bool, Never>], Int) in
            state.shuttingDown = true
            defer { state.waiters = [] }
            return (state.waiters, state.connections.values.reduce(0) { $0 + $1.busy })
        }
        logger.notice("shutting down: no new connections; draining \(inFlight) response(s) in flight")
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Returns true once the shutdown has started, false if the server ended (``finish()``) without one.
    func waitForShutdown() async -> Bool {
        await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { state in
                if state.shuttingDown { return true }
                if state.finished { return false }
                state.waiters.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// The server has stopped: wakes ``waitForShutdown()`` with false if it is still waiting.
    func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }

    /// The deadline: logs every response still being written (and their count), then closes every connection now.
    /// Returns the number of responses cut.
    @discardableResult
    func cutRemaining(after seconds: Double) -> Int {
        let connections = state.withLock { state -> [Connection] in
            state.forcing = true
            return Array(state.connections.values)
        }
        let cut = connections.filter { $0.busy > 0 }
        for connection in cut {
            logger.error(
                "shutdown: cut \(connection.busy) response(s) at the \(seconds) s deadline: \(connection.path)")
        }
        let total = cut.reduce(0) { $0 + $1.busy }
        logger.error("shutdown: \(total) response(s) cut at the \(seconds) s deadline")
        for connection in connections { connection.channel.close(mode: .all, promise: nil) }
        return total
    }
}
