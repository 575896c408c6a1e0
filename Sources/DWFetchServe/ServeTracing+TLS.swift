// ServeTracing + TLS: imgproxy's IMGPROXY_OPEN_TELEMETRY_SERVER_CERT, _CLIENT_CERT and _CLIENT_KEY (PEM text in the
// variable) handed to swift-otel's OTLP/HTTP exporter, which reads certificates from files.
import ArgumentParser
import Foundation
import OTel

extension ServeTracing {
    /// The exporter's TLS material, written where swift-otel reads it.
    struct TLSFiles {
        /// The private directory (0700) holding the files; nil when no variable was set.
        let directory: URL?
        /// Files the exporter has read once it is made (the client certificate and key): removed after.
        let readOnce: [URL]
    }

    /// Sets `configuration`'s certificate paths from imgproxy's variables: `SERVER_CERT` the CA that verifies the
    /// collector, `CLIENT_CERT` with `CLIENT_KEY` the client's certificate for mutual TLS; each is PEM text, a
    /// literal `\n` read as a line break (imgproxy's rule). They apply to an `https` endpoint, as imgproxy's do. Each
    /// goes to a file of its own (0600) in a new private directory; the server certificate stays there while the
    /// process runs (the exporter reads it at each connection), the client's are removed by ``removeReadOnce(_:)``.
    /// A value that is not PEM, or a client certificate without its key (or the reverse), is a ValidationError
    /// naming the variable, never its value. On the main thread, before the exporter is made.
    static func applyTLS(_ environment: [String: String], to configuration: inout OTel.Configuration) throws -> TLSFiles
    {
        func pem(_ name: String, marker: String) throws -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            let text = value.replacingOccurrences(of: "\\n", with: "\n")
            guard text.contains("-----BEGIN "), text.contains(marker) else {
                throw ValidationError("\(name): not a PEM \(marker.lowercased()) (-----BEGIN …-----)")
            }
            return text
        }
        let prefix = "IMGPROXY_OPEN_TELEMETRY_"
        let server = try pem(prefix + "SERVER_CERT", marker: "CERTIFICATE")
        let (cert, key) = (
            try pem(prefix + "CLIENT_CERT", marker: "CERTIFICATE"), try pem(prefix + "CLIENT_KEY", marker: "KEY")
        )
        guard (cert == nil) == (key == nil) else {
            throw ValidationError("\(prefix)CLIENT_CERT and \(prefix)CLIENT_KEY: set both (mutual TLS) or neither")
        }
        guard server != nil || cert != nil else { return TLSFiles(directory: nil, readOnce: []) }
        let manager = FileManager.default
        let directory = manager.temporaryDirectory.appendingPathComponent("dwserve-otel-\(UUID().uuidString)")
        try manager.createDirectory(
            at: directory, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        func write(_ text: String, _ name: String) throws -> URL {
            let file = directory.appendingPathComponent(name)
            guard
                manager.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
            else { throw ValidationError("cannot write the OpenTelemetry TLS file \(file.path)") }
            return file
        }
        var readOnce: [URL] = []
        if let server { configuration.traces.otlpExporter.certificateFilePath = try write(server, "server.pem").path }
        if let cert, let key {
            let (certFile, keyFile) = (try write(cert, "client.pem"), try write(key, "client-key.pem"))
            configuration.traces.otlpExporter.clientCertificateFilePath = certFile.path
            configuration.traces.otlpExporter.clientKeyFilePath = keyFile.path
            readOnce = [certFile, keyFile]
        }
        return TLSFiles(directory: directory, readOnce: readOnce)
    }

    /// Removes the client's certificate and key once the exporter has read them (and the directory when nothing
    /// else is left in it).
    static func removeReadOnce(_ files: TLSFiles) {
        let manager = FileManager.default
        for file in files.readOnce { try? manager.removeItem(at: file) }
        if let directory = files.directory, (try? manager.contentsOfDirectory(atPath: directory.path))?.isEmpty == true
        {
            try? manager.removeItem(at: directory)
        }
    }
}
