// Runs the built `dwfetch serve` as a child process and talks plain HTTP/1.1 to it over a socket, as a client would.
import DWLocking
import DWTestSupport
import Foundation
import XCTest

/// One running `dwfetch serve`; stopped (SIGKILL if needed) by `stop()`, and killed when dropped still running (a
/// test that forgot `stop()` leaves no server behind it).
final class ServeProcess: @unchecked Sendable {
    // @unchecked: every stored property is a constant set in init; Process may be queried from any thread.
    let process: Process
    let port: Int
    /// The `--metrics-bind` listener's port (every test server has one on 127.0.0.1 unless its args name another).
    let metricsPort: Int?
    let cacheDir: URL
    /// The temporary directory of its stdout and stderr (and cache, unless one was given); removed by `stop()`.
    private let workDir: URL
    private let errURL: URL
    private let outURL: URL

    /// `dwfetch serve --port 0 --cache-dir <temp, or cacheDir> --metrics-bind 127.0.0.1:0 args`, with `environment`
    /// added to this process's; waits until it prints the port it listens on.
    init(
        _ args: [String], environment: [String: String] = [:], cacheDir: URL? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        workDir = dir
        self.cacheDir = cacheDir ?? dir.appendingPathComponent("cache")
        let out = dir.appendingPathComponent("stdout")
        outURL = out
        errURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let binary = Self.binary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ServeStartFailure(
                "dwfetch is not built at \(binary.path); run scripts/test.sh (it builds every product)")
        }
        process = Process()
        process.executableURL = binary
        let metrics = args.contains("--metrics-bind") ? [] : ["--metrics-bind", "127.0.0.1:0"]
        process.arguments = ["serve", "--port", "0", "--cache-dir", self.cacheDir.path] + metrics + args
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var found: Int?
        var metricsFound: Int?
        let wantsMetrics = args.contains("--metrics-bind") || metrics.count > 0
        let process = process  // the closure reads the local: self is not yet initialised
        _ = eventually(timeout: 30, interval: 0.02) {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://[^:]+:(\d+)"#, options: .regularExpression) {
                found = Int(text[range].split(separator: ":").last!)
            }
            if let range = text.range(of: #"metrics on port \d+"#, options: .regularExpression) {
                metricsFound = Int(text[range].split(separator: " ").last!)
            }
            return (found != nil && (!wantsMetrics || metricsFound != nil)) || !process.isRunning
        }
        metricsPort = metricsFound
        guard let found else {
            process.terminate()
            let log = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            throw ServeStartFailure("dwfetch serve did not start: \(log)")
        }
        port = found
    }

    deinit {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: workDir)
    }

    var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }
    /// What the server wrote to stdout so far (the listening lines; structured and JSON logs).
    var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }

    /// Sends `sig` and waits for the exit status (SIGKILL after `timeout`).
    @discardableResult
    func stop(signal sig: Int32 = SIGTERM, timeout: TimeInterval = 20) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, sig) }
        _ = eventually(timeout: timeout, interval: 0.01) { !process.isRunning }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: workDir)
            return -1
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: workDir)
        return process.terminationStatus
    }

    /// The exit status once the process has ended by itself within `timeout` (polled), nil if it is still running.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        _ = eventually(timeout: timeout) { !process.isRunning }
        if process.isRunning { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether stderr shows `text` within `timeout` (polled).
    func waitForStderr(containing text: String, timeout: TimeInterval = 10) -> Bool {
        eventually(timeout: timeout) { stderr.contains(text) }
    }

    /// GET (or another method) of a raw request target, exactly as given.
    func get(_ target: String, headers: [String: String] = [:], method: String = "GET") throws -> HTTPResult {
        try HTTPClient.request(port: port, target: target, headers: headers, method: method)
    }

    /// A Prometheus sample's value from /metrics on the metrics listener ("name{labels}" as printed), 0 when absent.
    func metric(_ sample: String) throws -> Double {
        let metricsPort = try XCTUnwrap(metricsPort, "this server has no --metrics-bind listener")
        let text = String(decoding: try HTTPClient.request(port: metricsPort, target: "/metrics").body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.split(separator: " ").last!) ?? 0
        }
        return 0
    }

    /// Resident set size of the server, bytes (/proc/PID/status VmRSS).
    var residentBytes: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return 0
    }

    /// `.build/<triple>/debug/dwfetch`, beside the test bundle.
    static var binary: URL { BuiltBinary.url("dwfetch") }

    /// The exit status of `dwfetch serve --port 0 <args>` that should refuse its arguments at start; a server that
    /// starts after all is stopped after 20 s (its status then fails the caller's check).
    static func exitStatus(refusing args: [String]) throws -> Int32 {
        try startFailure(args).status
    }

    /// `dwfetch serve --port 0 <args>` with `environment` added, expected to refuse to start: its exit status and
    /// stderr. A server that starts after all is killed after 20 s (status -1), so the caller's check fails
    /// instead of hanging.
    static func startFailure(_ args: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, stderr: String)
    {
        let run = try ProcessRun.run(
            binary.path, ["serve", "--port", "0"] + args, environment: environment, timeout: 20)
        return (run.timedOut ? -1 : run.status, run.errors)
    }
}

/// `dwfetch serve` could not be started: thrown from a test, it fails the test (never a skip).
struct ServeStartFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A response as received.
struct HTTPResult {
    let status: Int
    let headers: [(String, String)]
    let body: Data

    /// The first value of a header (case-insensitive name).
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal HTTP/1.1 client over a blocking socket: one request per connection (`Connection: close`), the raw
/// target sent as given (no normalisation, which a URL-session client would do).
enum HTTPClient {
    static func request(
        host: String = "127.0.0.1", port: Int, target: String, headers: [String: String] = [:],
        method: String = "GET", body: [UInt8] = [], timeout: TimeInterval = 30
    ) throws -> HTTPResult {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var lines = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { lines += "\(name): \(value)\r\n" }
        if !body.isEmpty { lines += "Content-Length: \(body.count)\r\n" }
        lines += "\r\n"
        let bytes = Array(lines.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            sent += n
        }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        guard let split = received.firstRange(of: Array("\r\n\r\n".utf8)) else { throw POSIXError(.EBADMSG) }
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else {
            throw POSIXError(.EBADMSG)
        }
        let fields: [(String, String)] = head.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Data(received[split.upperBound...])
        if fields.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") })
        {
            body = dechunk(body)
        }
        return HTTPResult(status: status, headers: fields, body: body)
    }

    private static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let lineEnd = rest.firstRange(of: Data("\r\n".utf8)) {
            let sizeText =
                String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText, radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            let end = rest.index(start, offsetBy: size, limitedBy: rest.endIndex) ?? rest.endIndex
            out += rest[start..<end]
            rest = rest[min(rest.endIndex, rest.index(end, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        return out
    }
}

/// A listener on an address other than the origin's that only counts the connections it accepts (and closes them).
/// Its count and stop flag behind one lock.
final class ConnectionCounter: Sendable {
    let port: Int
    private let fd: Int32
    private let state = DWLock((accepted: 0, stopped: false))

    init(address: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr(address)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let thread = Thread { [self] in loop() }
        thread.start()
    }

    var count: Int { state.withLock { $0.accepted } }

    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func loop() {
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 100)
            if state.withLock({ $0.stopped }) { close(fd); return }
            guard pfd.revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(fd, nil, nil)
            if client >= 0 {
                state.withLock { $0.accepted += 1 }
                close(client)
            }
        }
    }
}

extension ServeProcess {
    /// Peak resident set size of the server, bytes (/proc/PID/status VmHWM).
    var peakResidentBytes: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return 0
    }

    /// CPU seconds of the server and of its reaped children (the SVG helpers) (utime, stime, cutime, cstime of /proc/PID/stat).
    var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        let fields = stat[(stat.lastIndex(of: ")").map { stat.index(after: $0) } ?? stat.startIndex)...]
            .split(separator: " ")
        guard fields.count > 15 else { return 0 }
        let ticks = fields[11...14].compactMap { Double($0) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// Raw TCP connections to a server, for the tests that hold sockets open, send by hand or read slowly.
enum RawSocket {
    /// A TCP connection to 127.0.0.1:`port` (from `source`, any port, when given), with a small receive buffer when
    /// asked and a receive timeout.
    static func connect(port: Int, from source: String? = nil, receiveBuffer: Int32? = nil, receiveTimeout: Int) throws
        -> Int32
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var bound: Int32 = 0
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        return fd
    }
}
