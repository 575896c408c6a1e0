// LoopbackHTTPServer: a programmable HTTP/1.1 server on 127.0.0.1 for tests, fault injection and the demo.
import Foundation
import DWLocking

#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 (ephemeral port), one thread per connection, keep-alive, with routes that
/// serve bodies, statuses, redirects and byte ranges, and fault modifiers (delays, drops, stalls, trickles).
/// It records every request so tests can check order, headers, concurrency and connection reuse.
public final class LoopbackHTTPServer: Sendable {
    private struct State {
        var routes: [String: Route] = [:]
        var handlers: [String: @Sendable (RecordedRequest) -> Route] = [:]
        var log: [RecordedRequest] = []
        var counts: [String: Int] = [:]
        var bodyBytes: [String: Int] = [:]
        var accepted = 0
        var active = 0
        var maxActive = 0
        var clients: Set<Int32> = []
        var shutDown = false
    }

    private let listener: Int32
    /// The TCP port the server listens on.
    public let port: Int
    private let state = DWLock(State())
    private let wake = NSCondition()  // broadcast on shutdown and on every change of `active`

    /// The loopback address the server listens on: 127.0.0.1, or ::1 (`ipv6: true`).
    public let host: String

    /// Binds 127.0.0.1 (or ::1 with `ipv6: true`) on an ephemeral port and starts accepting immediately.
    public init(routes: [String: Route] = [:], ipv6: Bool = false) throws {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        let length: socklen_t
        if ipv6 {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_addr = in6addr_loopback
            withUnsafeBytes(of: v6) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_addr.s_addr = inet_addr("127.0.0.1")
            withUnsafeBytes(of: v4) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 512) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        var boundLength = length
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &boundLength) }
        }
        listener = fd
        // sin_port and sin6_port sit at the same offset (2), in network order.
        port = withUnsafeBytes(of: storage) { Int(UInt16($0[2]) << 8 | UInt16($0[3])) }
        host = ipv6 ? "::1" : "127.0.0.1"
        state.withLock { $0.routes = routes }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    deinit { shutdown() }

    /// "http://127.0.0.1:<port>" (or "http://[::1]:<port>")
    public var baseURL: String { host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)" }
    /// baseURL + path (path starts with "/").
    public func url(_ path: String) -> String { baseURL + path }

    /// Adds or replaces a static route (any time, from any thread). Matching ignores the query string.
    public func setRoute(_ path: String, _ route: Route) {
        state.withLock {
            $0.routes[path] = route
            $0.handlers[path] = nil
        }
    }

    /// A dynamic route: `handler` picks the response for every request to `path`.
    public func setHandler(_ path: String, _ handler: @escaping @Sendable (RecordedRequest) -> Route) {
        state.withLock { $0.handlers[path] = handler }
    }

    /// Closes the listener and every connection and wakes every stalled or delayed response. Idempotent.
    public func shutdown() {
        let clients = state.withLock { s -> Set<Int32>? in
            guard !s.shutDown else { return nil }
            s.shutDown = true
            return s.clients
        }
        guard let clients else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in clients { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    // MARK: Observations

    /// Requests received for `path` (query ignored).
    public func requestCount(path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    /// Body bytes written to clients for `path` so far (all requests; a dropped connection counts what was sent).
    public func bodyBytesSent(path: String) -> Int { state.withLock { $0.bodyBytes[path] ?? 0 } }

    /// Waits until at least `bytes` body bytes were sent for `path`; false on timeout.
    public func waitForBodyBytes(path: String, atLeast bytes: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        wake.lock()
        defer { wake.unlock() }
        while bodyBytesSent(path: path) < bytes {
            if Date() >= deadline || isShutDown { return false }
            _ = wake.wait(until: min(deadline, Date().addingTimeInterval(0.05)))
        }
        return true
    }
    /// Every request, in arrival order.
    public var requestLog: [RecordedRequest] { state.withLock { $0.log } }
    /// The paths of ``requestLog``.
    public var requestedPaths: [String] { state.withLock { $0.log.map(\.path) } }
    /// TCP connections accepted so far.
    public var acceptedConnections: Int { state.withLock { $0.accepted } }
    /// Requests being served right now.
    public var activeRequests: Int { state.withLock { $0.active } }
    /// The most requests served at once so far.
    public var maxConcurrentRequests: Int { state.withLock { $0.maxActive } }

    /// Waits until ``activeRequests`` equals `n`; false on timeout.
    public func waitForActiveRequests(_ n: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        wake.lock()
        defer { wake.unlock() }
        while activeRequests != n {
            if !wake.wait(until: deadline) { return activeRequests == n }
        }
        return true
    }

    /// Clears the log, counts and maxima (routes stay).
    public func resetStatistics() {
        state.withLock { s in
            s.log.removeAll()
            s.counts.removeAll()
            s.bodyBytes.removeAll()
            s.accepted = 0
            s.maxActive = s.active
        }
    }

    // MARK: - Connections

    private var isShutDown: Bool { state.withLock { $0.shutDown } }

    private func acceptLoop() {
        while !isShutDown {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let id = state.withLock { s -> Int? in
                guard !s.shutDown else { return nil }
                s.accepted += 1
                s.clients.insert(client)
                return s.accepted
            }
            guard let id else {
                close(client)
                return
            }
            let thread = Thread { [self] in serve(client, connectionID: id) }
            thread.name = "LoopbackHTTPServer.conn\(id)"
            thread.start()
        }
    }

    private func serve(_ fd: Int32, connectionID: Int) {
        defer {
            state.withLock { _ = $0.clients.remove(fd) }
            close(fd)
        }
        var buffer = [UInt8]()
        while !isShutDown {
            guard let request = readRequest(fd, &buffer, connectionID: connectionID) else { return }
            let route = state.withLock { s -> Route in
                s.log.append(request)
                s.counts[request.path, default: 0] += 1
                s.active += 1
                s.maxActive = max(s.maxActive, s.active)
                if let handler = s.handlers[request.path] { return .dynamic(handler) }
                return s.routes[request.path] ?? .status(404, body: Data("not found\n".utf8))
            }
            signalChange()
            let resolved = route.resolve(request)
            let keepOpen = respond(fd, request, resolved)
            state.withLock { $0.active -= 1 }
            signalChange()
            if !keepOpen || request.header("Connection")?.lowercased() == "close" { return }
        }
    }

    private func signalChange() {
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// Reads one request head; nil on EOF, error, or an oversized head (answered with 431).
    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8], connectionID: Int) -> RecordedRequest? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                guard var request = RecordedRequest(head: head, connectionID: connectionID) else { return nil }
                if let length = request.header("Content-Length").flatMap(Int.init), length > 0 {
                    // Skip a request body.
                    while buffer.count < length {
                        let n = recv(fd, &chunk, chunk.count, 0)
                        if n <= 0 { return nil }
                        buffer += chunk[..<n]
                    }
                    buffer.removeSubrange(..<length)
                }
                request.receivedAt = Date()
                return request
            }
            if buffer.count > 64 * 1024 {
                _ = sendAll(
                    fd,
                    Array(
                        "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .utf8))
                return nil
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[..<n]
        }
    }

    /// Sends the response; returns whether the connection may serve another request.
    private func respond(_ fd: Int32, _ request: RecordedRequest, _ plan: ResponsePlan) -> Bool {
        if plan.delay > 0 && !sleep(plan.delay) { return false }
        switch plan.fault {
        case .hang:
            while !isShutDown && !peerClosed(fd) { _ = sleep(0.05) }
            return false
        case .closeImmediately:
            return false
        default:
            break
        }
        let body = request.method == "HEAD" ? Data() : plan.body
        // No reason phrase (RFC 9112 makes it optional; HTTP/2 has none): clients must not depend on one, and the
        // project keeps one table of them (the core's, for its error messages), not a copy here.
        var head = "HTTP/1.1 \(plan.status) \r\n"
        for (name, value) in plan.headers { head += "\(name): \(value)\r\n" }
        var chunked = plan.chunked
        if case .endless = plan.fault { chunked = true }
        if chunked {
            head += "Transfer-Encoding: chunked\r\n"
        } else {
            head += "Content-Length: \(plan.contentLength ?? plan.body.count)\r\n"
        }
        head += "\r\n"
        guard sendAll(fd, Array(head.utf8)) else { return false }
        if request.method == "HEAD" { return true }

        if case .endless(let size) = plan.fault {
            let piece = [UInt8](repeating: 0x55, count: size)
            let frame = Array(String(size, radix: 16).utf8) + [13, 10] + piece + [13, 10]
            while !isShutDown { if !sendAll(fd, frame) { return false } }
            return false
        }
        var limit = body.count
        switch plan.fault {
        case .dropAfter(let n), .closeAfter(let n), .stallAfter(let n): limit = min(n, body.count)
        default: break
        }
        var offset = 0
        let bytes = [UInt8](body)
        let piece = plan.throttle?.chunk ?? 256 * 1024
        while offset < limit {
            let n = min(piece, limit - offset)
            let slice = Array(bytes[offset..<offset + n])
            let framed = chunked ? Array(String(n, radix: 16).utf8) + [13, 10] + slice + [13, 10] : slice
            guard sendAll(fd, framed) else { return false }
            offset += n
            state.withLock { $0.bodyBytes[request.path, default: 0] += n }
            signalChange()
            if let throttle = plan.throttle, offset < limit, !sleep(throttle.interval) { return false }
        }
        switch plan.fault {
        case .dropAfter:
            var hard = linger(l_onoff: 1, l_linger: 0)  // RST, as a crashed peer would
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, socklen_t(MemoryLayout<linger>.size))
            return false
        case .stallAfter:
            while !isShutDown && !peerClosed(fd) { _ = sleep(0.05) }
            return false
        case .closeAfter:
            Glibc.shutdown(fd, Int32(SHUT_WR))  // FIN now; the caller closes the socket
            return false
        default:
            break
        }
        if chunked { guard sendAll(fd, Array("0\r\n\r\n".utf8)) else { return false } }
        return true
    }

    /// Waits `seconds` unless the server shuts down first (returns false then).
    private func sleep(_ seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        wake.lock()
        defer { wake.unlock() }
        while !isShutDown && Date() < deadline { _ = wake.wait(until: deadline) }
        return !isShutDown
    }

    private func peerClosed(_ fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
}

/// One request as the server received it.
public struct RecordedRequest: Sendable {
    /// A request header.
    public struct Header: Sendable, Equatable {
        /// As sent.
        public let name: String
        /// Trimmed.
        public let value: String
    }
    /// "GET", "HEAD", …
    public let method: String
    /// The path without the query string.
    public let path: String
    /// The raw request target, query included.
    public let target: String
    /// Headers in the order received.
    public let headers: [Header]
    /// Which accepted connection (1-based, in accept order) carried it.
    public let connectionID: Int
    /// When its head was read.
    public internal(set) var receivedAt = Date()

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    init?(head: String, connectionID: Int) {
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return nil }
        let parts = lines.removeFirst().split(separator: " ")
        guard parts.count >= 2 else { return nil }
        method = String(parts[0])
        target = String(parts[1])
        path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return Header(
                name: String(line[..<colon]),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        self.connectionID = connectionID
    }
}
