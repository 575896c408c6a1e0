// FetchRunner: runs one dwfetch invocation over the manager singleton and reports each URL in input order.
import DWWebImage
import DWFileIO
import Foundation
import DWLocking
import DWSignals

/// One dwfetch run over a manager. Requests run on the library's queues; each result is handled (`-o` write, hashing,
/// printing) one at a time; with `--preview`, lines and pictures are drawn on a display queue of their own. The run
/// makes its own serial queue (``outputQueue``) the manager's callback queue, where the cache entry of each download
/// is written too, and then its `-o` file: the file work of one image overlaps the transfers of the next ones on the
/// engine thread. With a pixel stage, a result it passes straight through is handled in the callback itself, and
/// results it finishes on its own workers are queued to the output queue.
package final class FetchRunner: Sendable {
    private let command: DWFetch
    private let manager: DWWebImageManager
    private let output: OutputWriter?
    private let progress: ProgressView?
    /// `--preview`: draws each image after its line (nil when off or stdout is not a terminal).
    private let preview: (any FetchPreview)?
    private let state = DWLock(RunState())
    /// Held while the lines whose turn has come are claimed and written (with --preview, handed to
    /// ``displayQueue``): results finish on several threads (the callback queue, the pixel stage's workers), and
    /// output must leave in input order. Lock order: `printing`, then ``state`` inside it, never the other way
    /// round; no lock is held while a picture is drawn.
    private let printing = DWLock(())
    /// With --preview: where lines and their pictures are drawn, in input order, one at a time, so a playing
    /// animation holds neither ``printing`` nor the output queue: other results are written, hashed and counted
    /// meanwhile, and wait on screen only for the pictures before them.
    private let displayQueue = DispatchQueue(label: "dwfetch.display")
    /// `--verify` and the pixel flags (dwfetch-pixels' stage; a pass-through in the thin dwfetch).
    private let pixels: any FetchPixelStage
    /// The CLI's own serial queue: `-o` writes, hashing, lines and previews; the manager's callback queue during `run`.
    private let outputQueue = DispatchQueue(label: "dwfetch.output")
    /// Set on ``outputQueue``: tells a pixel stage's `then` called in the callback (on the queue) from one called on
    /// a worker.
    private let onOutputQueue = DispatchSpecificKey<Bool>()
    /// `--json`, `-q`, `--stats` and whether a previewer draws, read once: an ArgumentParser flag costs ~400
    /// instructions a read, and an optional existential a copy, several times an image.
    private let json: Bool, quiet: Bool, stats: Bool, previews: Bool

    /// What the run keeps while it runs: nothing per URL once the URL's line is printed (peak RSS flat in
    /// the number of URLs), only per URL still in flight or waiting for its turn to print.
    private struct RunState {
        /// Outcomes whose line has not been printed yet, by the URL's place among the distinct URLs (an Int
        /// hashes in a fraction of a URL's time); one the input names again later stays until its last line.
        var outcomes: [Int: FetchOutcome] = [:]
        /// For URLs the input names more than once: the index of the last mention (empty when none repeats).
        var lastMention: [String: Int] = [:]
        /// When some URL repeats: each URL's place among the distinct URLs (empty when none repeats, and the
        /// distinct URLs are the input itself, so a line's place is its URL's).
        var distinctIndex: [String: Int] = [:]
        var prefetchOutcomes: [String: FetchOutcome] = [:]
        /// Records the metrics handler has given that no outcome has taken yet.
        var metrics: [String: DWDownloadMetrics] = [:]
        /// Every record, for `--stats` (kept only then).
        var allMetrics: [DWDownloadMetrics] = []
        var nextToPrint = 0
        /// Totals of the URL lines printed so far (the prefetch lines are counted at the end).
        var report = FetchReport()
        /// Tokens of the requests not finished yet, by the URL's place among the distinct URLs (for ``interrupt``).
        var tokens: [Int: DWWebImageToken] = [:]
        /// Requests that finished before their token was filed (a refusal answered at once): not filed then.
        var finishedEarly: Set<Int> = []
        var prefetcher: DWWebImagePrefetcher?
        /// The signal that stopped the run (SIGINT, SIGTERM or SIGHUP), if one did.
        var interruptedBy: Int32?
    }

    /// How many URLs the runner hands the manager at once for `jobs` parallel transfers.
    package static func window(jobs: Int) -> Int { max(64, jobs * 8) }

    /// How far past the oldest URL not finished yet the feed may run (``RequestFeed/span``): four windows, so the
    /// results held waiting for their line stay within this many.
    package static func feedSpan(jobs: Int) -> Int { window(jobs: jobs) * 4 }

    /// A runner for `command` over `manager`, with the pixel stage and previewer of `engines`.
    package init(command: DWFetch, manager: DWWebImageManager, engines: DWFetchEngines) {
        self.command = command
        self.manager = manager
        self.output = command.output.map {
            OutputWriter(directory: $0, s3: .fromEnvironment(endpoint: command.s3Endpoint))
        }
        self.preview = command.preview.requested ? engines.preview?(command.preview) : nil
        // The live progress and the previews would draw over each other on one terminal.
        self.progress = (!command.quiet && isatty(STDERR_FILENO) == 1 && preview == nil) ? ProgressView() : nil
        let pixels = engines.pixels?(command.processing) ?? PassThroughPixelStage()
        self.pixels = pixels
        (json, quiet, stats, previews) = (command.json, command.quiet, command.stats, preview != nil)
        outputQueue.setSpecific(key: onOutputQueue, value: true)
    }

    /// Fetches every URL (each distinct one once), printing one line per mention in input order; then the
    /// `prefetch` URLs' lines (fetched at low priority meanwhile, in file order).
    package func run(_ urls: [String], prefetch: [String] = []) -> FetchReport {
        let started = Date()
        prepareManager()
        let (distinct, lastMention) = Self.distinct(urls)
        let distinctIndex =
            lastMention.isEmpty
            ? [:] : Dictionary(distinct.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        state.withLock { s in (s.lastMention, s.distinctIndex) = (lastMention, distinctIndex) }
        let names = output == nil ? [] : OutputNames.assign(distinct, extensionFromFormat: pixels.isProcessing)
        if let output, let failure = output.prepare() {
            StandardStream.error.write("dwfetch: \(failure)\n")
            return FetchReport(fetched: 0, failed: urls.count)
        }
        preview?.expect(urls)
        let done = DispatchGroup()
        let signals = SignalWatch(signals: SignalWatch.interrupting) { [self] signal in interrupt(by: signal) }
        progress?.begin(total: distinct.count)
        let options = command.requestOptions
        if !prefetch.isEmpty { startPrefetch(prefetch, json: json, done: done) }
        // A window of URLs with the manager at once, fed at most four windows past the oldest URL not finished (the
        // manager starts the newest first, and a URL left waiting would otherwise hold every later result until the
        // feed ran dry); after the first window, the result that frees a quarter of it feeds the next URLs where it
        // ends (RequestFeed).
        done.enter()  // the feed's own: left once every URL has been asked for
        let feed = RequestFeed(
            count: distinct.count, size: Self.window(jobs: command.jobs), refill: Self.window(jobs: command.jobs) / 4,
            span: Self.feedSpan(jobs: command.jobs),
            issue: { [self] index, finished in
                done.enter()
                let url = distinct[index]
                request(url, index: index, options: options, name: names.isEmpty ? nil : names[index], urls: urls) {
                    done.leave()
                    finished()
                }
            },
            allIssued: { done.leave() })
        feed.start()
        done.wait()
        displayQueue.sync {}  // the pictures still playing end here, a signal still heard (it stops them)
        signals.cancel()
        progress?.end()
        manager.cache.waitForPendingWrites()
        printReady(urls)
        displayQueue.sync {}  // the lines and pictures printed just now are on screen
        let prefetched = state.withLock { $0.prefetchOutcomes }
        let prefetchLines = prefetch.compactMap { prefetched[$0] }
        printLines(prefetchLines)

        var report = state.withLock { $0.report }
        for outcome in prefetchLines { report.count(outcome) }
        report.elapsed = Date().timeIntervalSince(started)
        if !quiet { printSummary(report) }
        if stats { printStats(state.withLock { $0.allMetrics }) }
        if let signal = state.withLock({ $0.interruptedBy }) {
            // A cancelled caller hears 10007 at once; its transfer ends a moment later on the engine thread, which
            // is when the partial body's record is written for resume. Wait for that before exiting.
            manager.invalidate()
            output?.removeTemporaryFiles()
            exit(128 + signal)  // 130, 143, 129: as shells report a run killed by the signal
        }
        return report
    }

    /// The distinct URLs in input order and, for the URLs named more than once, the index of their last mention.
    /// Without repeats, the input array itself (its storage shared, not a second list of the URLs).
    private static func distinct(_ urls: [String]) -> ([String], [String: Int]) {
        var seen = Set<String>(minimumCapacity: urls.count)
        guard let firstRepeat = urls.firstIndex(where: { !seen.insert($0).inserted }) else { return (urls, [:]) }
        var distinct = Array(urls[..<firstRepeat])
        for url in urls[firstRepeat...] where seen.insert(url).inserted { distinct.append(url) }
        var mentions: [String: (count: Int, last: Int)] = [:]
        for (index, url) in urls.enumerated() {
            let seen = mentions[url]?.count ?? 0
            mentions[url] = (seen + 1, index)
        }
        return (distinct, mentions.compactMapValues { $0.count > 1 ? $0.last : nil })
    }

    /// Asks the manager for one distinct URL (the `index`-th); its result is handled on the output queue, then
    /// `done` runs.
    private func request(
        _ url: String, index: Int, options: DWWebImageOptions, name: String?, urls: [String],
        done: @escaping @Sendable () -> Void
    ) {
        progress?.started(url)
        // No progress view (quiet, or stderr not a terminal): no progress closure, so the library sends no
        // progress calls through the callback queue at all.
        var onProgress: (@Sendable (Int64, Int64) -> Void)?
        if let view = progress {
            onProgress = { received, expected in view.update(url, received: received, expected: expected) }
        }
        let requestOptions = pixels.request(options)
        let json = self.json
        let token = manager.downloadImage(withURL: url, options: requestOptions, progress: onProgress) {
            [self] fetched in
            pixels.finish(fetched, url: url, cache: manager.cache) { [self] result, original in
                let handle: @Sendable () -> Void = { [self] in
                    finished(url, index: index, result, original: original, name: name, json: json, urls: urls)
                    done()
                }
                if DispatchQueue.getSpecific(key: onOutputQueue) == true {
                    handle()
                } else {
                    outputQueue.async(execute: handle)
                }
            }
        }
        // A signal that came while requests were being queued cancels the ones queued after it too.
        let stopped = state.withLock { s -> Bool in
            if s.finishedEarly.remove(index) == nil { s.tokens[index] = token }
            return s.interruptedBy != nil
        }
        if stopped { manager.cancel(token) }
    }

    /// The manager set up for this run (on the caller's thread, before any request): concurrency, the output queue
    /// as its callback queue (cache writes included), the command's configuration, and metrics collected into the
    /// run's state. Waiting downloads start newest first, DW's order, within the ``RequestFeed`` the run hands the
    /// manager: `-j 1 u1 … u6` asks the origin for u1, u6, u5, u4, u3, u2; lines still print in input order.
    private func prepareManager() {
        manager.maxConcurrentDownloads = command.jobs
        manager.startsNewestFirst = true
        manager.callbackQueue = outputQueue
        // Where results are handled, files are written anyway: the cache entry is written there too, before the -o
        // file (one thread hand-off an image less than the cache's write queue), which is then a link or a kernel
        // copy of it.
        manager.writesCacheInCallbacks = true
        // The feed's threads may wait for an `open`: a miss is known where the URL is asked for, without a hop to
        // the lookup queue and back (a hit is still read there).
        manager.probesDiskWhereAsked = true
        // Nothing in dwfetch observes the download notifications: not posting them spares ~20 k instructions an image.
        manager.postsDownloadNotifications = false
        manager.configuration = command.managerConfiguration(base: manager.configuration)
        // The records are read only by the JSON lines and --stats: without them, no handler (and no record kept
        // by URL and looked up again an image).
        guard json || stats else {
            manager.metricsHandler = nil
            return
        }
        let stats = self.stats
        manager.metricsHandler = { [state] record in
            state.withLock { s in
                s.metrics[record.url] = record
                if stats { s.allMetrics.append(record) }
            }
        }
    }

    /// One URL's result, on the output queue: written (`-o`), kept for its preview, hashed (`--json`), recorded, and
    /// printed with every line whose turn has come.
    private func finished(
        _ url: String, index: Int, _ result: Result<DWImage, DWWebImageError>,
        original: SourceFacts?, name: String?, json: Bool, urls: [String]
    ) {
        let (path, writeError) = save(result, url: url, name: name)
        if previews, let image = result.value { preview?.keep(image, for: url) }
        progress?.finished(url, bytes: (try? result.get())?.data.count ?? 0, ok: result.value != nil)
        let summary = result.map { ImageSummary($0, hash: json, original: original) }
        state.withLock { s in
            s.outcomes[index] = FetchOutcome(
                url: url, result: summary, path: path, writeError: writeError,
                metrics: s.metrics.isEmpty ? nil : s.metrics.removeValue(forKey: url))
            if s.tokens.removeValue(forKey: index) == nil { s.finishedEarly.insert(index) }
        }
        printReady(urls)
    }

    /// `--prefetch`: queued first, but at low priority under the prefetch cap, so the named URLs still go first.
    /// Results are summarized on the output queue; `done` is left after the last of them.
    private func startPrefetch(_ prefetch: [String], json: Bool, done: DispatchGroup) {
        done.enter()
        let prefetcher = DWWebImagePrefetcher(manager: manager)
        prefetcher.prefetchURLs(
            prefetch,
            each: { [state, outputQueue] url, result in
                outputQueue.async {
                    let summary = result.map { ImageSummary($0, hash: json) }
                    state.withLock { s in
                        s.prefetchOutcomes[url] = FetchOutcome(
                            url: url, result: summary, path: nil, writeError: nil,
                            metrics: s.metrics.removeValue(forKey: url), prefetched: true)
                    }
                }
            }, completion: { [outputQueue] _, _, _ in outputQueue.async { done.leave() } })
        state.withLock { $0.prefetcher = prefetcher }
    }

    /// Writes the image into the output directory (atomically), returning its path or why it failed.
    private func save(_ result: Result<DWImage, DWWebImageError>, url: String, name: String?) -> (String?, String?) {
        guard let output, var name, case .success(let image) = result else { return (nil, nil) }
        if pixels.isProcessing { name += "." + image.format.fileExtension }  // the processed image's own format
        do {
            return (try output.write(image, name: name), nil)
        } catch {
            return (nil, "cannot write \(name): \(error.localizedDescription)")
        }
    }

    /// Prints every line whose turn has come (input order), as soon as its URL is done, counting it in the report;
    /// an outcome no later line needs is forgotten.
    private func printReady(_ urls: [String]) {
        printing.withLock { _ in
            var outcomes: [FetchOutcome] = []
            state.withLock { s in
                while s.nextToPrint < urls.count {
                    let url = urls[s.nextToPrint]
                    let index = s.distinctIndex.isEmpty ? s.nextToPrint : s.distinctIndex[url] ?? -1
                    guard let outcome = s.outcomes[index] else { break }
                    if s.lastMention.isEmpty || (s.lastMention[url] ?? s.nextToPrint) <= s.nextToPrint {
                        s.outcomes[index] = nil
                    }
                    s.report.count(outcome)
                    outcomes.append(outcome)
                    s.nextToPrint += 1
                }
            }
            guard !outcomes.isEmpty else { return }
            if previews, let preview {
                // Each line, then its picture, drawn after the lock is released; queued under it, so in order.
                displayQueue.async { [self, outcomes] in
                    for outcome in outcomes {
                        printLines([outcome])
                        preview.show(url: outcome.url)
                    }
                }
                return
            }
            progress?.clear()
            printLines(outcomes)
            progress?.redraw()
        }
    }

    /// One line per outcome on stdout; with `-q` (and no `--json`), as wget -q and curl -sS: nothing for a success,
    /// the failure's line on stderr.
    private func printLines(_ outcomes: [FetchOutcome]) {
        var out: [String] = [], err: [String] = []
        for outcome in outcomes {
            if json {
                out.append(OutputFormat.json(outcome))
            } else if !quiet {
                out.append(OutputFormat.human(outcome))
            } else if !outcome.succeeded {
                err.append("dwfetch: " + OutputFormat.human(outcome))
            }
        }
        if !out.isEmpty { StandardStream.writeOutputOrEnd(out.joined(separator: "\n") + "\n") }
        if !err.isEmpty { StandardStream.error.write(err.joined(separator: "\n") + "\n") }
    }

    private func printSummary(_ report: FetchReport) {
        let rate = report.elapsed > 0 ? Double(report.bytes) / report.elapsed : 0
        let line =
            "\(report.fetched) fetched, \(report.failed) failed, \(OutputFormat.size(report.bytes)) in "
            + String(format: "%.2f s (%@/s)", report.elapsed, OutputFormat.size(Int64(rate)))
        StandardStream.error.write(line + "\n")
    }

    /// `--stats`: requests by source, bytes, and the spread of request times.
    private func printStats(_ records: [DWDownloadMetrics]) {
        func percentile(_ values: [Double], _ p: Double) -> Double {
            guard !values.isEmpty else { return 0 }
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
        let bySource = Dictionary(grouping: records, by: \.source)
        let totals = records.map { $0.total * 1000 }
        let queued = records.map { $0.queued * 1000 }
        let bytes = records.reduce(Int64(0)) { $0 + $1.bytesReceived }
        let resumed = records.reduce(Int64(0)) { $0 + $1.resumedFrom }
        var line =
            "stats: \(records.count) requests (network \(bySource[.network]?.count ?? 0), "
            + "disk \(bySource[.disk]?.count ?? 0), memory \(bySource[.memory]?.count ?? 0)), "
            + "\(OutputFormat.size(bytes)) received"
        if resumed > 0 { line += ", \(OutputFormat.size(resumed)) resumed" }
        line += String(
            format: ", time p50 %.1f ms p95 %.1f ms, queued p50 %.1f ms p95 %.1f ms",
            percentile(totals, 0.5), percentile(totals, 0.95), percentile(queued, 0.5), percentile(queued, 0.95))
        StandardStream.error.write(line + "\n")
    }

    /// Ctrl-C, SIGTERM or SIGHUP (on the signal queue): cancel every request (each completes with 10007; partial
    /// bodies stay for resume), stop previews and restore the terminal; then `run` cleans up and exits 128 + signal.
    private func interrupt(by signal: Int32) {
        let tokens = state.withLock { s -> [DWWebImageToken] in
            if s.interruptedBy == nil { s.interruptedBy = signal }
            return Array(s.tokens.values)
        }
        preview?.interrupt()
        for token in tokens { manager.cancel(token) }
        state.withLock { $0.prefetcher }?.cancelPrefetching()
    }
}

extension Result {
    var value: Success? {
        if case .success(let v) = self { return v }
        return nil
    }
}
