// ServeRunner: runs DWImageServer for `dwfetch serve` until it stops (SIGTERM/SIGINT drain inside the server).
import DWFetchCLI
import DWWebImageServer
import DWFileIO
import Foundation
import Logging

/// Runs the server on a Task and blocks the main thread until it ends; returns the exit status.
enum ServeRunner {
    static func run(_ options: ServeOptions) throws -> Int32 {
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
        let failure = FailureBox()
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
                failure.message = "\(error)"
            }
            finished.signal()
        }
        finished.wait()
        if let message = failure.message {
            StandardStream.error.write("dwfetch serve: \(message)\n")
            return 1
        }
        return 0
    }

    /// Hands the server task's error to the blocked main thread (written before `finished.signal()`, read after).
    private final class FailureBox: @unchecked Sendable {
        // @unchecked: one write on the task before the semaphore is signalled, one read on main after it.
        var message: String?
    }
}
