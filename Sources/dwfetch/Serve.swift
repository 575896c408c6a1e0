// `dwfetch serve`: the caching image proxy (DWWebImageServer) from the command line.
import ArgumentParser
import DWWebImage
import DWWebImageServer
import Foundation
import Logging

/// `dwfetch serve [--host H] [--port N] [--key HEX --salt HEX] ...`
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images through the pipeline at imgproxy-style URLs.",
        discussion: """
            GET /{signature}/{options}/{base64url source}[.ext]  or  /{signature}/{options}/plain/{source}[@ext]
            options: rs:{fit|fill|force}:{w}:{h}  w:{w}  h:{h}  el:1  q:{1-100}  f:{jpeg|png|webp|avif|gif}  bl:{sigma}  g:ce
            GET /health; GET /metrics (Prometheus) only on --metrics-bind. SIGTERM or SIGINT finishes the requests in
            flight and exits 0. Security defaults (limits, keys, timeouts): README.
            Sources on loopback, private, link-local, CGNAT, ULA, multicast or IPv4-mapped addresses are refused (403)
            unless inside an --allow-network CIDR; the check is on the address actually connected, redirects included.
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 = any free port; the port is printed on stdout).") var port = 8080
    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "Only fetch from this host (repeatable; *.example.com for subdomains).", valueName: "HOST"))
    var allowHosts: [String] = []
    @Option(name: .customLong("allow-network"), help: ArgumentHelp(
        "Let the SSRF guard connect inside this network (repeatable), e.g. 127.0.0.1/32.", valueName: "CIDR"))
    var allowNetworks: [String] = []
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Cache root.", valueName: "DIR")) var cacheDir: String?
    @Option(name: .customLong("max-size"), help: ArgumentHelp(
        "Largest source body (bytes, or with a K, M or G suffix as in dwfetch --max-size).", valueName: "BYTES"))
    var maxSize = ByteCount(bytes: 50 * 1024 * 1024)
    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Largest source pixel count.", valueName: "N"))
    var maxPixels = 50_000_000
    @Option(name: .customLong("max-frames"), help: ArgumentHelp("Most frames in a source.", valueName: "N"))
    var maxFrames = 1000
    @Option(name: .customLong("max-age"), help: ArgumentHelp("Cache-Control max-age of images.", valueName: "SEC"))
    var maxAge = 31_536_000
    @Flag(name: .customLong("auto-format"), help: "WebP or AVIF when Accept allows and the URL names no format.")
    var autoFormat = false
    @Option(name: [.short, .customLong("jobs")], help: ArgumentHelp("Concurrent origin downloads.", valueName: "N"))
    var jobs = 16
    @Option(help: ArgumentHelp("Origin fetch timeout (504 when it runs out).", valueName: "SEC")) var timeout: Double = 15
    @Option(name: .customLong("memory-cache"), help: ArgumentHelp(
        "Memory cache of originals and variants, MiB (the disk cache holds the rest).", valueName: "MIB"))
    var memoryCache = 128
    @Flag(name: [.short, .long], help: "One access-log line per request on stderr.") var verbose = false
    @OptionGroup(title: "Security") var security: ServeSecurityOptions

    func validate() throws {
        for cidr in allowNetworks where DWCIDR(cidr) == nil { throw ValidationError("not a CIDR: \(cidr)") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        guard jobs > 0, maxPixels > 0, maxFrames > 0, maxSize.bytes > 0, maxAge >= 0, timeout > 0, memoryCache >= 0 else {
            throw ValidationError("limits must be positive")
        }
    }

    func run() throws {
        var configuration = DWServeConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.allowedHosts = allowHosts
        configuration.allowedNetworks = allowNetworks.compactMap(DWCIDR.init)
        configuration.cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
        configuration.maxSize = maxSize.bytes
        configuration.maxPixels = maxPixels
        configuration.maxFrames = maxFrames
        configuration.maxAge = maxAge
        configuration.autoFormat = autoFormat
        configuration.jobs = jobs
        configuration.timeout = timeout
        configuration.memoryCacheBytes = memoryCache * 1024 * 1024
        configuration.logLevel = verbose ? .info : .warning
        do {
            try security.apply(to: &configuration)
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data("dwfetch serve: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        // Cache files 0600 and directories 0700: what a proxy fetched for one client is no other local user's to read.
        // (The library's default modes stay 0644/0755, which the CLI keeps: its cache is the user's own files.)
        umask(0o077)

        let server = DWImageServer(configuration: configuration)
        let host = configuration.host
        let finished = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        Task {
            do {
                try await server.run(onListening: { port in
                    FileHandle.standardOutput.write(Data("dwfetch serve: listening on http://\(host):\(port)\n".utf8))
                }, onMetricsListening: { port in
                    FileHandle.standardOutput.write(Data("dwfetch serve: metrics on port \(port)\n".utf8))
                })
            } catch {
                failure.message = "\(error)"
            }
            finished.signal()
        }
        finished.wait()
        if let message = failure.message {
            FileHandle.standardError.write(Data("dwfetch serve: \(message)\n".utf8))
            throw ExitCode(1)
        }
        throw ExitCode(0)
    }

    /// Hands the server task's error to the blocked main thread (written before `finished.signal()`, read after).
    private final class FailureBox: @unchecked Sendable {
        // @unchecked: one write on the task before the semaphore is signalled, one read on main after it.
        var message: String?
    }

    /// `dwfetch serve ...`: parses and runs; exits with the same codes as the rest of dwfetch (2 for usage).
    static func main(arguments: [String]) -> Never {
        do {
            var command = try Serve.parseAsRoot(arguments)
            try command.run()
            Foundation.exit(0)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            if Serve.exitCode(for: error) == .success {
                print(Serve.fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((Serve.fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}
