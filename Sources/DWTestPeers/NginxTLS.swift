// NginxTLS: nginx (Debian's nginx-light) serving a document root over HTTPS with HTTP/2 on 127.0.0.1, with a
// certificate from a TestCA; /private/ needs a client certificate from that CA; gzip for BMP and SVG.
import Foundation

/// One nginx process; driven from one test thread.
public final class NginxTLS {
    let peer: PeerProcess
    /// The port it listens on (127.0.0.1, TLS).
    public var port: Int { peer.port }
    /// "https://127.0.0.1:<port>"
    public var baseURL: String { "https://127.0.0.1:\(port)" }
    /// Where `put` writes the files it serves.
    public var documentRoot: URL { peer.directory.appendingPathComponent("www") }

    /// Starts nginx with `ca`'s server certificate (and `ca` as the client CA for /private/).
    public init(ca: TestCA) throws {
        peer = try PeerProcess(name: "nginx")
        let d = peer.directory.path
        for sub in ["www", "www/private", "tmp"] {
            try FileManager.default.createDirectory(atPath: "\(d)/\(sub)", withIntermediateDirectories: true)
            chmod("\(d)/\(sub)", 0o755)
        }
        // $connection is nginx's connection serial number: one value for all requests means one connection.
        try peer.write(
            "nginx.conf",
            """
            daemon off;
            worker_processes 1;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log;
            events { worker_connections 256; }
            http {
                log_format plain '$connection $server_protocol "$request" $status $body_bytes_sent';
                access_log \(d)/access.log plain;
                client_body_temp_path \(d)/tmp/body;
                proxy_temp_path \(d)/tmp/proxy;
                fastcgi_temp_path \(d)/tmp/fastcgi;
                uwsgi_temp_path \(d)/tmp/uwsgi;
                scgi_temp_path \(d)/tmp/scgi;
                types { image/png png; image/gif gif; image/bmp bmp; image/svg+xml svg; image/x-icon ico; }
                gzip on;
                gzip_types image/bmp image/svg+xml image/x-icon;
                gzip_min_length 0;
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(ca.serverCertificate);
                    ssl_certificate_key \(ca.serverKey);
                    ssl_client_certificate \(ca.caFile);
                    ssl_verify_client optional;
                    root \(d)/www;
                    location /noetag/ { etag off; }  # Last-Modified alone
                    location /private/ {
                        if ($ssl_client_verify != SUCCESS) { return 403; }
                    }
                }
            }
            """)
        try peer.start(
            "/usr/sbin/nginx", ["-p", d, "-c", "\(d)/nginx.conf", "-e", "\(d)/error.log"], package: "nginx-light")
    }

    /// Stops nginx (its access log is complete afterwards).
    public func stop() { peer.stop() }

    /// Writes a file under the document root (readable by nginx's workers).
    public func put(_ name: String, _ data: Data) throws {
        let url = documentRoot.appendingPathComponent(name)
        try data.write(to: url)
        chmod(url.path, 0o644)
    }

    /// `connection protocol "request" status bytes` lines.
    public var accessLog: String { peer.read("access.log") }
}
