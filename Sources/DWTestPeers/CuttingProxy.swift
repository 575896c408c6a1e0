// CuttingProxy: a TCP relay on 127.0.0.1 in front of a real server that can cut a connection after N bytes of the
// server's response, the way a dropped link or a killed process ends a download: what arrived stays arrived.
import DWLocking
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A relay whose state sits behind one lock (`state`); its threads block in accept/read and end on `shutdown`.
public final class CuttingProxy: Sendable {
    private struct State {
        var cuts: [Int] = []  // byte budgets for the next connections, in order
        var sockets: Set<Int32> = []
        var connections = 0
        var closed = false
        var sent = Data()  // every byte clients sent, in arrival order
    }

    /// The port it listens on (127.0.0.1).
    public let port: Int
    private let listener: Int32
    private let targetPort: Int
    private let state = DWLock(State())  // every field above, from the accept and pump threads

    /// Listens on a free port and relays each connection to 127.0.0.1:`targetPort`.
    public init(targetPort: Int) throws {
        self.targetPort = targetPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// "http://127.0.0.1:<port>"
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The next connection is closed once `bytes` of the server's response have been relayed.
    public func cutNextConnection(after bytes: Int) { state.withLock { $0.cuts.append(bytes) } }

    /// What clients sent (request heads), as text; `clear` empties it.
    public func clientBytes(clear: Bool = false) -> String {
        state.withLock { s in
            defer { if clear { s.sent = Data() } }
            return String(decoding: s.sent, as: UTF8.self)
        }
    }

    /// Connections accepted so far.
    public var connections: Int { state.withLock { $0.connections } }

    /// Closes the listener and every relayed connection.
    public func shutdown() {
        let sockets = state.withLock { s -> Set<Int32> in
            s.closed = true
            return s.sockets
        }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in sockets { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private static func loopback(port: Int) -> sockaddr_in { PeerProcess.loopback(port: port) }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            let budget = state.withLock { s -> Int? in
                s.connections += 1
                s.sockets.formUnion([client, upstream])
                return s.cuts.isEmpty ? nil : s.cuts.removeFirst()
            }
            guard connected else {
                close(client)
                close(upstream)
                continue
            }
            let done = DispatchGroup()
            for (from, to, limit) in [(client, upstream, Int?.none), (upstream, client, budget)] {
                done.enter()
                Thread { [self] in
                    pump(from, to, limit: limit, peers: (client, upstream), record: from == client)
                    done.leave()
                }.start()
            }
            Thread { [self] in
                done.wait()
                state.withLock { $0.sockets.subtract([client, upstream]) }
                close(client)
                close(upstream)
            }.start()
        }
    }

    /// Copies `from` → `to`; after `limit` bytes (if any), or at EOF/error, shuts both connections down.
    private func pump(_ from: Int32, _ to: Int32, limit: Int?, peers: (Int32, Int32), record: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        var relayed = 0
        loop: while true {
            let want = limit.map { min(buffer.count, $0 - relayed) } ?? buffer.count
            if want <= 0 { break }
            let n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, want) }
            if n <= 0 { break }
            if record { state.withLock { $0.sent.append(contentsOf: buffer[0..<n]) } }
            var sent = 0
            while sent < n {
                let m = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                if m <= 0 { break loop }
                sent += m
            }
            relayed += n
        }
        Glibc.shutdown(peers.0, Int32(SHUT_RDWR))
        Glibc.shutdown(peers.1, Int32(SHUT_RDWR))
    }
}
