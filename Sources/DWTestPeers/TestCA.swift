// TestCA: a certificate authority made by the test with the openssl CLI — a CA, a server certificate for 127.0.0.1
// and localhost, a client certificate, a hashed CA directory (for CURLOPT_CAPATH) and the server key's pin.
import Foundation

/// Files made once by `init`; read-only afterwards.
public final class TestCA {
    /// Holds every file; removed with the CA.
    public let directory: URL
    /// The CA certificate (PEM), for CURLOPT_CAINFO / --cacert.
    public var caFile: String { path("ca.crt") }
    /// A directory with the CA under its subject hash (`openssl rehash`), as /etc/ssl/certs is.
    public var caDirectory: String { path("capath") }
    /// The server's certificate (CN and SAN 127.0.0.1, SAN localhost) and key, signed by the CA.
    public var serverCertificate: String { path("server.crt") }
    public var serverKey: String { path("server.key") }
    /// A client certificate (extendedKeyUsage clientAuth) and key, signed by the CA.
    public var clientCertificate: String { path("client.crt") }
    public var clientKey: String { path("client.key") }
    /// `sha256//<base64 of the SHA-256 of the server key's SubjectPublicKeyInfo>` (curl's --pinnedpubkey form).
    public private(set) var serverPin = ""
    /// Another CA's file: a server certificate it did not sign must be refused.
    public var otherCAFile: String { path("other-ca.crt") }

    /// Makes both CAs, the server and client certificates, the hashed directory and the pin (openssl CLI).
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dwca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("capath"), withIntermediateDirectories: true)
        chmod(directory.path, 0o755)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for name in ["ca", "other-ca"] {
            try openssl(
                ["req", "-x509"] + ec + [
                    "-keyout", path("\(name).key"), "-out", path("\(name).crt"), "-days", "2",
                    "-subj", "/CN=DWWebImage test \(name)", "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign,cRLSign"
                ])
        }
        for (name, cn, extensions) in [
            ("server", "127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"),
            ("client", "dw-client", "extendedKeyUsage=clientAuth\n")
        ] {
            try openssl(
                ["req"] + ec + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(cn)"])
            try extensions.write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
            try openssl([
                "x509", "-req", "-in", path("\(name).csr"), "-CA", caFile, "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("\(name).crt"), "-days", "2", "-extfile", path("\(name).ext")
            ])
        }
        for file in ["server.key", "client.key", "ca.key"] { chmod(path(file), 0o644) }  // nginx workers read them
        try FileManager.default.copyItem(atPath: caFile, toPath: path("capath/ca.pem"))
        try openssl(["rehash", caDirectory])
        let der = try openssl(["pkey", "-in", serverKey, "-pubout", "-outform", "DER"])
        let digest = try run("/usr/bin/openssl", ["dgst", "-sha256", "-binary"], input: der)
        serverPin = "sha256//" + digest.base64EncodedString()
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A file in ``directory``.
    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    private func openssl(_ arguments: [String]) throws -> Data { try run("/usr/bin/openssl", arguments) }

    private func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw PeerUnavailable(description: "\(executable) is missing: apt-get install openssl")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerDidNotStart(
                description: "openssl \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
        return data
    }
}
