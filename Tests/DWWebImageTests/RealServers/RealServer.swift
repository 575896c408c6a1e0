// RealServer: a Debian web server (Apache httpd, lighttpd, Caddy) or Python's http.server, started by a test with a
// generated config on 127.0.0.1 and a free port, serving a temporary document root; stopped by `stop()`.
import Foundation
import XCTest

final class RealServer {
    enum Kind: String, CaseIterable {
        case apache, lighttpd, caddy, python

        /// The executable, and the Debian package that has it (scripts/setup.sh installs them).
        var executable: (path: String, package: String) {
            switch self {
            case .apache: ("/usr/sbin/apache2", "apache2")
            case .lighttpd: ("/usr/sbin/lighttpd", "lighttpd")
            case .caddy: ("/usr/bin/caddy", "caddy")
            case .python: ("/usr/bin/env", "python3")
            }
        }
    }

    let kind: Kind
    let port: Int
    /// Everything the server owns: config, logs, `www/` (the document root).
    let directory: URL
    var documentRoot: URL { directory.appendingPathComponent("www") }
    var baseURL: String { "http://127.0.0.1:\(port)" }
    private let process: Process
    private let logURL: URL

    /// Starts the server and waits until it accepts connections (10 s at most).
    init(_ kind: Kind) throws {
        let exe = kind.executable
        if kind != .python, !FileManager.default.isExecutableFile(atPath: exe.path) {
            throw XCTSkip("\(exe.path) is missing: apt-get install \(exe.package) (scripts/setup.sh does)")
        }
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dw-\(kind)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("www"), withIntermediateDirectories: true)
        // Apache drops to www-data: the tree must be readable by others.
        chmod(directory.path, 0o755)
        chmod(directory.appendingPathComponent("www").path, 0o755)
        port = try Self.freePort()
        logURL = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: exe.path)
        let d = directory.path
        var environment = ProcessInfo.processInfo.environment
        switch kind {
        case .apache:
            try """
                ServerRoot \(d)
                DefaultRuntimeDir \(d)
                PidFile \(d)/apache.pid
                Listen 127.0.0.1:\(port)
                ServerName 127.0.0.1
                LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
                LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
                LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
                LoadModule filter_module /usr/lib/apache2/modules/mod_filter.so
                LoadModule deflate_module /usr/lib/apache2/modules/mod_deflate.so
                User www-data
                Group www-data
                ErrorLog \(d)/error.log
                LogFormat "%r %>s %b" plain
                CustomLog \(d)/access.log plain
                TypesConfig /etc/mime.types
                DocumentRoot \(d)/www
                <Directory \(d)/www>
                  Require all granted
                </Directory>
                # Everything under compressed/ goes out gzipped (as misconfigured sites send images).
                <Directory \(d)/www/compressed>
                  SetOutputFilter DEFLATE
                </Directory>
                """.write(to: directory.appendingPathComponent("apache.conf"), atomically: true, encoding: .utf8)
            process.arguments = ["-f", "\(d)/apache.conf", "-DFOREGROUND"]
        case .lighttpd:
            try """
                server.document-root = "\(d)/www"
                server.bind = "127.0.0.1"
                server.port = \(port)
                server.errorlog = "\(d)/error.log"
                server.modules = ("mod_accesslog")
                accesslog.filename = "\(d)/access.log"
                accesslog.format = "%r %>s %b"
                # lighttpd's stat cache answers from what it saw up to a second ago: a file rewritten in place then
                # keeps its old ETag, and a 206 or 304 for it is wrong (a client cannot tell). The tests change
                # files between requests, so they turn it off; production servers see the same with atomic renames.
                server.stat-cache-engine = "disable"
                mimetype.assign = (".png" => "image/png", ".bmp" => "image/bmp", ".gif" => "image/gif")
                """.write(to: directory.appendingPathComponent("lighttpd.conf"), atomically: true, encoding: .utf8)
            process.arguments = ["-D", "-f", "\(d)/lighttpd.conf"]
        case .caddy:
            // No admin endpoint, no automatic HTTPS (so no ACME traffic), HTTP/1.1 and h2c only (no UDP). Any Host
            // (requests come through a proxy's port), else Caddy serves but does not log them.
            try """
                {
                \tadmin off
                \tauto_https off
                \tservers {
                \t\tprotocols h1 h2c
                \t}
                }
                http://:\(port) {
                \tbind 127.0.0.1
                \troot * \(d)/www
                \tfile_server
                \tlog {
                \t\toutput file \(d)/access.log
                \t}
                }
                """.write(to: directory.appendingPathComponent("Caddyfile"), atomically: true, encoding: .utf8)
            process.arguments = ["run", "--config", "\(d)/Caddyfile", "--adapter", "caddyfile"]
            environment["HOME"] = d
            environment["XDG_DATA_HOME"] = d
            environment["XDG_CONFIG_HOME"] = d
        case .python:
            process.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1",
                                 "--directory", "\(d)/www"]
        }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
                stop()
                throw NSError(domain: "RealServer", code: 1, userInfo: [
                    NSLocalizedDescriptionKey: "\(kind) did not start on 127.0.0.1:\(port): \(log.suffix(600))"])
            }
            usleep(20_000)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGTERM, then waits for the process (SIGKILL after 5 s). Logs are complete afterwards (servers buffer them).
    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Writes a file under the document root with the given modification time.
    func put(_ name: String, _ data: Data, modified: Date) throws {
        let url = documentRoot.appendingPathComponent(name)
        try data.write(to: url)
        chmod(url.path, 0o644)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
    }

    /// What the server logged: access log (Apache, lighttpd, Caddy's JSON) or stderr (Python).
    var accessLog: String {
        let file = kind == .python ? logURL : directory.appendingPathComponent("access.log")
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    /// A port that was free a moment ago on 127.0.0.1.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:port.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
