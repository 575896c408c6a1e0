// PeerProcess: a real program (a web server, a proxy) run by a test on 127.0.0.1 with a generated config, in its own
// temporary directory; ready once its port accepts connections, stopped (and its logs flushed) by `stop()`.
import Foundation

/// The program is not installed: thrown out of the test, it fails it naming the Debian package (scripts/setup.sh
/// installs every one; a test never skips).
public struct PeerUnavailable: Error, CustomStringConvertible {
    /// What is missing and which package has it.
    public let description: String
}

/// The program is installed but did not start: a failure, with the end of its log.
public struct PeerDidNotStart: Error, CustomStringConvertible {
    /// What failed, with the end of the program's output.
    public let description: String
}

/// One child process serving on 127.0.0.1:`port`. Not thread-safe: a test drives it from one thread.
public final class PeerProcess {
    /// A short name (also in the directory's name).
    public let name: String
    /// Everything the peer owns: config, logs, documents. Removed when the peer is deallocated.
    public let directory: URL
    /// The port the program is told to listen on (free when chosen).
    public let port: Int
    private let process = Process()
    let logURL: URL

    /// Makes the directory and picks a free port; `start` runs the program.
    public init(name: String, port: Int? = nil) throws {
        self.name = name
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dwpeer-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o755)  // servers that drop to www-data/nobody read from here
        self.port = try port ?? Self.freePort()
        logURL = directory.appendingPathComponent("process.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Path inside ``directory``.
    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs `executable arguments` (stdout and stderr to ``processLog``) and waits until the port accepts (10 s).
    /// - Throws: ``PeerUnavailable`` when the executable is missing (`package` says which Debian package has it),
    ///   ``PeerDidNotStart`` when it exits or does not listen in time.
    public func start(
        _ executable: String, _ arguments: [String], package: String,
        environment: [String: String] = [:]
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw PeerUnavailable(
                description: "\(executable) is missing: apt-get install \(package) (scripts/setup.sh does)")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw PeerDidNotStart(
                    description: "\(name) did not start on 127.0.0.1:\(port): \(processLog.suffix(800))")
            }
            usleep(20_000)
        }
    }

    /// SIGTERM, then waits (SIGKILL after 5 s). Servers buffer their logs: read them after this.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// What the program wrote to stdout and stderr.
    public var processLog: String { read("process.log") }

    /// A file in ``directory`` as text ("" when missing).
    public func read(_ name: String) -> String {
        (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? ""
    }

    /// Writes a text file into ``directory``.
    public func write(_ name: String, _ text: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    /// A port that was free a moment ago on 127.0.0.1.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
