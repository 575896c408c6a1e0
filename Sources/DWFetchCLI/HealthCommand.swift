// HealthCommand: `dwfetch health`, imgproxy's `imgproxy health` — asks a running serve's /health, exits 0 or 1.
import ArgumentParser
import DWFileIO
import Foundation

/// `dwfetch health [--host H] [--port N] [--timeout SEC]`: a container's health probe. GETs `/health` (under
/// `IMGPROXY_PATH_PREFIX`, as `imgproxy health` asks) of the serve the environment describes (`IMGPROXY_BIND`, as
/// `imgproxy health` reads it, else `--host`/`--port`'s defaults) over a plain TCP connection and exits 0 on a 200,
/// 1 otherwise, printing why on stderr. Runs on the main thread.
package struct HealthCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "health",
        _superCommandName: "dwfetch",
        abstract: "Ask a running dwfetch serve's /health; exit 0 when it answers 200 (imgproxy's `health`).",
        discussion: "The address is IMGPROXY_BIND (HOST:PORT, :PORT) when set, else --host and --port.")

    package init() {}

    @Option(help: "Address of the server (default: IMGPROXY_BIND's host, else 127.0.0.1).") package var host: String?
    @Option(help: "Port of the server (default: IMGPROXY_BIND's port, else 8080).") package var port: Int?
    @Option(help: ArgumentHelp("Seconds to wait for the answer.", valueName: "SEC")) package var timeout: Double = 5

    /// Probes and returns the exit status (0 healthy, 1 not).
    package func probe(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        var target = (host: "127.0.0.1", port: 8080)
        if let bind = environment["IMGPROXY_BIND"], let flags = try? ServeEnvironment.bind("IMGPROXY_BIND", bind) {
            target = (flags[1] == "0.0.0.0" ? "127.0.0.1" : flags[1], Int(flags[3]) ?? 8080)
        }
        if let host { target.host = host }
        if let port { target.port = port }
        // imgproxy's health asks {IMGPROXY_PATH_PREFIX}/health.
        let prefix = (environment["IMGPROXY_PATH_PREFIX"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let path = (prefix.isEmpty ? "" : "/" + prefix) + "/health"
        switch HealthProbe.status(host: target.host, port: target.port, path: path, timeout: timeout) {
        case .success(200):
            return 0
        case .success(let status):
            StandardStream.error.write("dwfetch health: \(path) answered \(status)\n")
        case .failure(let reason):
            StandardStream.error.write("dwfetch health: \(target.host):\(target.port): \(reason)\n")
        }
        return 1
    }
}

/// One `GET /health` (or another path) over a blocking socket: the status code, or why there was none.
enum HealthProbe {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func status(host: String, port: Int, path: String = "/health", timeout: Double) -> Result<Int, Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            return .failure(Failure(description: "cannot resolve \(host)"))
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return .failure(Failure(description: "no socket")) }
        defer { close(fd) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            return .failure(Failure(description: "cannot connect (\(String(cString: strerror(errno))))"))
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            return .failure(Failure(description: "cannot send"))
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 12 else { return .failure(Failure(description: "no answer within \(timeout) s")) }
        let line = String(decoding: buffer[0..<count], as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return .failure(Failure(description: "not an HTTP answer"))
        }
        return .success(status)
    }
}
