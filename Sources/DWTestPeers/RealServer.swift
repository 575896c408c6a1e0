// RealServer: Apache httpd, lighttpd or Caddy from Debian, or Python's http.server, serving a document root on
// 127.0.0.1 with a generated config.
import Foundation

/// One server process; driven from one test thread.
public final class RealServer {
    /// Which server: Apache httpd, lighttpd, Caddy (Debian packages) or `python3 -m http.server` (no Range).
    public enum Kind: String, CaseIterable, Sendable {
        case apache, lighttpd, caddy, python
    }

    /// Which server this is.
    public let kind: Kind
    let peer: PeerProcess
    /// The port it listens on (127.0.0.1).
    public var port: Int { peer.port }
    /// Where `put` writes the files it serves.
    public var documentRoot: URL { peer.directory.appendingPathComponent("www") }
    /// "http://127.0.0.1:<port>"
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server. Apache sends everything under `compressed/` with `Content-Encoding: gzip`
    /// (mod_deflate), as misconfigured sites send images.
    public init(_ kind: Kind) throws {
        self.kind = kind
        peer = try PeerProcess(name: kind.rawValue)
        let d = peer.directory.path
        try FileManager.default.createDirectory(
            at: documentRoot.appendingPathComponent("compressed"),
            withIntermediateDirectories: true)
        chmod(documentRoot.path, 0o755)
        chmod(documentRoot.appendingPathComponent("compressed").path, 0o755)
        let port = peer.port
        switch kind {
        case .apache:
            try peer.write("apache.conf", Self.apacheConfiguration(directory: d, port: port))
            try peer.start("/usr/sbin/apache2", ["-f", "\(d)/apache.conf", "-DFOREGROUND"], package: "apache2")
        case .lighttpd:
            try peer.write(
                "lighttpd.conf",
                """
                server.document-root = "\(d)/www"
                server.bind = "127.0.0.1"
                server.port = \(port)
                server.errorlog = "\(d)/error.log"
                server.modules = ("mod_accesslog")
                accesslog.filename = "\(d)/access.log"
                accesslog.format = "%r %>s %b"
                mimetype.assign = (".png" => "image/png", ".bmp" => "image/bmp", ".gif" => "image/gif")
                # lighttpd's stat cache answers from what it saw up to a second ago: a file rewritten in place then
                # keeps its old ETag, and a 206 or 304 for it is wrong (a client cannot tell). The tests change
                # files between requests, so they turn it off.
                server.stat-cache-engine = "disable"
                """)
            try peer.start("/usr/sbin/lighttpd", ["-D", "-f", "\(d)/lighttpd.conf"], package: "lighttpd")
        case .caddy:
            // No admin endpoint, no automatic HTTPS (so no ACME traffic), HTTP/1.1 and h2c only (no UDP). Any Host
            // (requests come through a proxy's port), else Caddy serves but does not log them.
            try peer.write(
                "Caddyfile",
                """
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
                """)
            try peer.start(
                "/usr/bin/caddy", ["run", "--config", "\(d)/Caddyfile", "--adapter", "caddyfile"],
                package: "caddy", environment: ["HOME": d, "XDG_DATA_HOME": d, "XDG_CONFIG_HOME": d])
        case .python:
            try peer.start(
                "/usr/bin/env",
                [
                    "python3", "-m", "http.server", String(port), "--bind", "127.0.0.1",
                    "--directory", "\(d)/www"
                ], package: "python3")
        }
    }

    /// Apache with mod_deflate on `compressed/`, logging `%r %>s %b`, rooted in `directory`.
    private static func apacheConfiguration(directory d: String, port: Int) -> String {
        """
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
        <Directory \(d)/www/compressed>
          SetOutputFilter DEFLATE
        </Directory>
        """
    }

    /// Stops the server (its access log is complete afterwards).
    public func stop() { peer.stop() }

    /// Writes a file under the document root with the given modification time.
    public func put(_ name: String, _ data: Data, modified: Date) throws {
        let url = documentRoot.appendingPathComponent(name)
        try data.write(to: url)
        chmod(url.path, 0o644)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
    }

    /// The access log (Apache, lighttpd; Caddy's is JSON) or stderr (Python).
    public var accessLog: String { kind == .python ? peer.processLog : peer.read("access.log") }
}
