// FetchRunner: runs one dwfetch invocation over the manager singleton and reports each URL in input order.
import Crypto
import DWWebImage
import Foundation
import DWLocking

/// What happened to one distinct URL.
struct FetchOutcome: Sendable {
    let url: String
    let result: Result<DWImage, DWWebImageError>
    let path: String?
    let writeError: String?
}

/// Totals for the summary line and the exit status.
struct FetchReport {
    var fetched = 0
    var failed = 0
    var bytes: Int64 = 0
    var elapsed: TimeInterval = 0
}

final class FetchRunner: Sendable {
    private let command: DWFetch
    private let manager: DWWebImageManager
    private let output: OutputWriter?
    private let progress: ProgressView?
    private let state = DWLock(RunState())

    private struct RunState {
        var outcomes: [String: FetchOutcome] = [:]
        var nextToPrint = 0
        var tokens: [DWWebImageToken] = []
        var interrupted = false
    }

    init(command: DWFetch, manager: DWWebImageManager) {
        self.command = command
        self.manager = manager
        self.output = command.output.map { OutputWriter(directory: $0) }
        self.progress = (!command.quiet && isatty(STDERR_FILENO) == 1) ? ProgressView() : nil
    }

    /// Fetches every URL (each distinct one once), printing one line per mention in input order.
    func run(_ urls: [String]) -> FetchReport {
        let started = Date()
        manager.maxConcurrentDownloads = command.jobs
        manager.configuration = command.managerConfiguration(base: manager.configuration)
        var distinct: [String] = []
        var seen = Set<String>()
        for url in urls where seen.insert(url).inserted { distinct.append(url) }
        let names = output == nil ? [:] : OutputNames.assign(distinct)
        if let output, let failure = output.prepare() {
            FileHandle.standardError.write(Data("dwfetch: \(failure)\n".utf8))
            return FetchReport(fetched: 0, failed: urls.count)
        }
        let done = DispatchGroup()
        let interrupt = installInterruptHandler()
        progress?.begin(total: distinct.count)
        let options = command.requestOptions
        for url in distinct {
            done.enter()
            progress?.started(url)
            let token = manager.downloadImage(withURL: url, options: options, progress: { [progress] received, expected in
                progress?.update(url, received: received, expected: expected)
            }) { [self] result in
                let (path, writeError) = save(result, url: url, name: names[url])
                progress?.finished(url, bytes: (try? result.get())?.data.count ?? 0, ok: result.value != nil)
                state.withLock { $0.outcomes[url] = FetchOutcome(url: url, result: result, path: path, writeError: writeError) }
                printReady(urls)
                done.leave()
            }
            state.withLock { $0.tokens.append(token) }
        }
        done.wait()
        interrupt.cancel()
        progress?.end()
        manager.cache.waitForPendingWrites()
        printReady(urls)

        var report = FetchReport()
        let outcomes = state.withLock { $0.outcomes }
        for url in urls {
            guard let outcome = outcomes[url] else { continue }
            if case .success(let image) = outcome.result, outcome.writeError == nil {
                report.fetched += 1
                report.bytes += Int64(image.data.count)
            } else {
                report.failed += 1
            }
        }
        report.elapsed = Date().timeIntervalSince(started)
        if !command.quiet { printSummary(report) }
        if state.withLock({ $0.interrupted }) {
            output?.removeTemporaryFiles()
            exit(130)
        }
        return report
    }

    /// Writes the image into the output directory (atomically), returning its path or why it failed.
    private func save(_ result: Result<DWImage, DWWebImageError>, url: String, name: String?) -> (String?, String?) {
        guard let output, let name, case .success(let image) = result else { return (nil, nil) }
        do {
            return (try output.write(image.data, name: name), nil)
        } catch {
            return (nil, "cannot write \(name): \(error.localizedDescription)")
        }
    }

    /// Prints every line whose turn has come (input order), as soon as its URL is done.
    private func printReady(_ urls: [String]) {
        var lines: [String] = []
        state.withLock { s in
            while s.nextToPrint < urls.count, let outcome = s.outcomes[urls[s.nextToPrint]] {
                lines.append(command.json ? OutputFormat.json(outcome) : OutputFormat.human(outcome))
                s.nextToPrint += 1
            }
        }
        guard !lines.isEmpty else { return }
        progress?.clear()
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        progress?.redraw()
    }

    private func printSummary(_ report: FetchReport) {
        let rate = report.elapsed > 0 ? Double(report.bytes) / report.elapsed : 0
        let line = "\(report.fetched) fetched, \(report.failed) failed, \(OutputFormat.size(report.bytes)) in "
            + String(format: "%.2f s (%@/s)", report.elapsed, OutputFormat.size(Int64(rate)))
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Ctrl-C: cancel every request (each completes with 10007), then `run` cleans up and exits 130.
    private func installInterruptHandler() -> DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            let tokens = state.withLock { s -> [DWWebImageToken] in
                s.interrupted = true
                return s.tokens
            }
            for token in tokens { manager.cancel(token) }
        }
        source.resume()
        return source
    }
}

extension Result {
    var value: Success? {
        if case .success(let v) = self { return v }
        return nil
    }
}
