// ServeRunner: runs DWImageServer for `dwfetch serve` until it stops (SIGTERM/SIGINT drain inside the server).
import DWFetchCLI
import DWWebImageServer
import DWFileIO
import DWLocking
import Foundation
import Logging

/// Runs the server on a Task and blocks the main thread until it ends; returns the exit status. The wait is a
/// semaphore rather than an async main because `DWFetchMain` dispatches every command through one synchronous
/// engines table (`serve`, `warm` and the fetch alike); the server runs on the cooperative pool, never on the main
/// thread, so the blocked main thread holds nothing it needs.
enum ServeRunner {
    static func run(_ options: ServeOptions) throws -> Int32 {
        DWImageServer.capMallocArenas()  // before any thread allocates
        let configuration = try DWServeConfiguration(options)
        let format = configuration.logFormat
        LoggingSystem.bootstrap(
            { label, provider in format.makeHandler(label: label, metadataProvider: provider) },
            metadataProvider: nil)
        // Cache files 0600 and directories 0700 (the library's privateFiles covers the entries; this also the lock and
        // marker files). The CLI keeps 0644/0755: its cache holds what its user fetched, for that user.
        umask(0o077)
        let tracing = try ServeTracing.bootstrap(options, environment: ProcessInfo.processInfo.environment)
        let server = DWImageServer(configuration: configuration)
        let host = configuration.host
        let finished = DispatchSemaphore(value: 0)
        let failure = DWLock<String?>(nil)  // the server task's error, for the main thread
        Task {
            do {
                try await server.run(
                    onListening: { port in
                        StandardStream.output.write("dwfetch serve: listening on http://\(host):\(port)\n")
                    },
                    onMetricsListening: { port in
                        StandardStream.output.write("dwfetch serve: metrics on port \(port)\n")
                    }, services: tracing.map { [$0] } ?? [])
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            finished.signal()
        }
        finished.wait()
        if let message = failure.withLock({ $0 }) {
            StandardStream.error.write("dwfetch serve: \(message)\n")
            return 1
        }
        return 0
    }
}
