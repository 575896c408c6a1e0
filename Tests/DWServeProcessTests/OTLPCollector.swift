// OTLPCollector: a small OTLP/HTTP receiver on 127.0.0.1 for the trace tests: it keeps every POST's path,
// Content-Type and body and answers 200 `{}`.
import DWTestSupport
import Foundation

/// One HTTP/1.1 listener on a thread of its own, a thread per connection (keep-alive, Content-Length or chunked
/// bodies). Stopped by ``stop()``. What it received is recorded behind one lock (``Recorder``).
final class OTLPCollector: Sendable {
    struct Export {
        let path: String
        let contentType: String
        let body: Data
    }

    let port: Int
    private let fd: Int32
    private let received = Recorder<Export>()

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else { close(listener); throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        fd = listener
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { [self] in serve(client) }
            }
        }
    }

    /// Everything received so far.
    var exports: [Export] { received.values }

    /// Waits until `done` holds for what was received (polled); false on timeout.
    func wait(timeout: TimeInterval, until done: ([Export]) -> Bool) -> Bool {
        eventually(timeout: timeout, interval: 0.05) { done(exports) }
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffer = [UInt8]()
        while let (head, rest) = Self.readHead(client, &buffer) {
            let lines = head.components(separatedBy: "\r\n")
            let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            var fields: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            buffer = rest
            var body: [UInt8]
            if fields["transfer-encoding"]?.lowercased() == "chunked" {
                guard let chunked = Self.readChunked(client, &buffer) else { return }
                body = chunked
            } else {
                let count = Int(fields["content-length"] ?? "0") ?? 0
                while buffer.count < count { guard Self.fill(client, &buffer) else { return } }
                body = Array(buffer[..<count])
                buffer.removeFirst(count)
            }
            received.append(Export(path: path, contentType: fields["content-type"] ?? "", body: Data(body)))
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
            _ = answer.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
    }

    private static func fill(_ client: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(client, &chunk, chunk.count, 0)
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }

    private static func readHead(_ client: Int32, _ buffer: inout [UInt8]) -> (String, [UInt8])? {
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                return (String(decoding: buffer[..<end.lowerBound], as: UTF8.self), Array(buffer[end.upperBound...]))
            }
            guard fill(client, &buffer) else { return nil }
        }
    }

    private static func readChunked(_ client: Int32, _ buffer: inout [UInt8]) -> [UInt8]? {
        var body = [UInt8]()
        while true {
            while buffer.firstRange(of: Array("\r\n".utf8)) == nil { guard fill(client, &buffer) else { return nil } }
            let lineEnd = buffer.firstRange(of: Array("\r\n".utf8))!
            let size =
                Int(
                    String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self)
                        .split(separator: ";").first ?? "", radix: 16) ?? 0
            buffer.removeFirst(lineEnd.upperBound)
            while buffer.count < size + 2 { guard fill(client, &buffer) else { return nil } }
            body += buffer[..<size]
            buffer.removeFirst(size + 2)
            if size == 0 { return body }
        }
    }
}
