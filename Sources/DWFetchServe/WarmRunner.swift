// WarmRunner: runs `dwfetch warm` (DWFetchCLI/WarmCommand.swift) with the server's own plan and key code.
import DWFetchCLI
import DWLocking
import DWWebImageServer
import DWFileIO
import Foundation

/// Builds the server `serve` would run with the same flags (never listening), warms every preset of every source
/// through it (``DWImageServer/warm(sources:presets:concurrency:)``, `--jobs` at a time) and prints one line a
/// variant: `stored`, `present` or `failed`, the preset, the source (and why, when it failed). Blocks the main thread
/// until the last write is stored; returns the exit status (1 when any variant failed).
enum WarmRunner {
    static func run(_ command: WarmCommand) throws -> Int32 {
        let configuration = try DWServeConfiguration(command.serve)
        let sources = try command.sources()
        umask(0o077)  // the cache's files as serve makes them
        let server = DWImageServer(configuration: configuration)
        let presets = command.presetNames
        let finished = DispatchSemaphore(value: 0)
        let box = DWLock<[DWWarmOutcome]>([])  // the task's outcomes, for the blocked main thread
        Task {
            let outcomes = await server.warm(sources: sources, presets: presets, concurrency: configuration.jobs)
            box.withLock { $0 = outcomes }
            finished.signal()
        }
        finished.wait()
        let outcomes = box.withLock { $0 }
        var failed = 0
        for outcome in outcomes {
            var line = "\(outcome.result.rawValue)\tpr:\(outcome.preset)\t\(outcome.source)"
            if let message = outcome.message {
                line += "\t\(message)"
                failed += 1
            }
            print(line)
        }
        let stored = outcomes.filter { $0.result == .stored }.count
        StandardStream.error.write(
            "dwfetch warm: \(stored) stored, \(outcomes.count - stored - failed) "
                + "already stored, \(failed) failed\n")
        return failed > 0 ? 1 : 0
    }
}
