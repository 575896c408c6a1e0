// SlowReader: an HTTP/1.1 client that reads a response only when the test says so, through a small receive buffer.
import Foundation

/// One request on its own connection. The receive buffer is small (16 KiB, set before connecting), so a large body
/// the reader has not read stays in the server's buffers: what a slow client on a long link looks like.
final class SlowReader {
    /// The response head as received.
    struct Head {
        let status: Int
        let headers: [(String, String)]
        /// The first value of a header (case-insensitive name).
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var contentLength: Int? { header("Content-Length").flatMap(Int.init) }
    }

    private let fd: Int32
    private var received = [UInt8]()
    private var bodyStart: Int?

    /// Connects to 127.0.0.1:`port` and sends `GET target` (`Connection: close` unless `keepAlive`).
    init(port: Int, target: String, keepAlive: Bool = false) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var small: Int32 = 16384
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        let request = Array(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(keepAlive ? "" : "Connection: close\r\n")\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else {
            close(fd)
            throw POSIXError(.EPIPE)
        }
    }

    deinit { close(fd) }

    /// Reads until the head and at least `bodyBytes` of the body are in (or `timeout` passes: then throws).
    func readHead(bodyBytes: Int = 1, timeout: TimeInterval = 30) throws -> Head {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if bodyStart == nil, let split = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                bodyStart = split.upperBound
            }
            if let bodyStart, received.count - bodyStart >= bodyBytes { return try head() }
            if readOnce() == 0 { break }
        }
        throw POSIXError(.ETIMEDOUT)
    }

    /// Reads until the server closes the connection (or `timeout` passes); returns the body bytes so far.
    func readToEnd(timeout: TimeInterval = 60) -> Data {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, readOnce() != 0 {}
        return body
    }

    /// Reads until `count` body bytes are in, the connection ends or `timeout` passes (for keep-alive answers).
    func readBody(count: Int, timeout: TimeInterval = 60) -> Data {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, body.count < count, readOnce() != 0 {}
        return body
    }

    var body: Data { Data(received[(bodyStart ?? received.count)...]) }

    /// One recv: the byte count, -1 for a timeout (nothing yet), 0 at the end of the stream or an error.
    private func readOnce() -> Int {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n > 0 {
            received += buffer[0..<n]
            if bodyStart == nil, let split = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                bodyStart = split.upperBound
            }
            return n
        }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return -1 }
        return 0
    }

    private func head() throws -> Head {
        guard let bodyStart else { throw POSIXError(.EBADMSG) }
        let lines = String(decoding: received[..<(bodyStart - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") else {
            throw POSIXError(.EBADMSG)
        }
        let headers: [(String, String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Head(status: status, headers: headers)
    }
}
