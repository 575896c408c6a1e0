// Tinyproxy: Debian's tinyproxy as a forward proxy on 127.0.0.1 (plain requests and CONNECT), logging each request.
import Foundation

/// One tinyproxy process; driven from one test thread.
public final class Tinyproxy {
    let peer: PeerProcess
    /// The port it listens on (127.0.0.1).
    public var port: Int { peer.port }
    /// "http://127.0.0.1:<port>", for CURLOPT_PROXY or http_proxy.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Starts tinyproxy, allowing 127.0.0.1 only.
    public init() throws {
        peer = try PeerProcess(name: "tinyproxy")
        let d = peer.directory.path
        try peer.write(
            "tinyproxy.conf",
            """
            Port \(peer.port)
            Listen 127.0.0.1
            Timeout 30
            LogFile "\(d)/tinyproxy.log"
            LogLevel Info
            PidFile "\(d)/tinyproxy.pid"
            MaxClients 50
            Allow 127.0.0.1
            """)
        try peer.start("/usr/bin/tinyproxy", ["-d", "-c", "\(d)/tinyproxy.conf"], package: "tinyproxy")
    }

    /// Stops tinyproxy (its log is complete afterwards).
    public func stop() { peer.stop() }

    /// The request lines tinyproxy logged: "GET http://127.0.0.1:…/a.png HTTP/1.1", "CONNECT 127.0.0.1:… HTTP/1.1".
    public var requests: [String] {
        peer.read("tinyproxy.log").split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "): "), line.contains("Request (file descriptor") else { return nil }
            return String(line[range.upperBound...])
        }
    }
}
