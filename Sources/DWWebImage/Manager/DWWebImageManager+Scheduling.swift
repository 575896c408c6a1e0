// DWWebImageManager + scheduling: which waiting download starts next, and where operations start.
import DWLocking
import Dispatch

extension DWWebImageManager {
    // MARK: - Scheduling

    /// Hands free slots to waiting operations (``DownloadScheduler``, under the manager's lock, on the calling
    /// thread) and starts them on `startQueue`, the manager's one serial queue for starting operations: whichever
    /// thread changed something (a caller's, the lookup queue, the engine thread, the work queue), operations
    /// always start there, in the order the scheduler chose them. Runs whenever something changes: a new download,
    /// a caller joining or cancelling, a priority change, a download ending, a changed limit.
    func schedule() {
        let limiter = rateLimiter
        let (ready, rateWait) = state.withLock { s -> ([DWWebImageOperation], Double?) in
            let settings = s.configuration.rateSettings
            guard settings.isLimited else { return (s.scheduler.next(), nil) }
            limiter.configure(settings)
            let ready = s.scheduler.next(
                mayStart: { $0.hasPrefix("loader:") || limiter.mayStart(host: $0) },
                didStart: { if !$0.hasPrefix("loader:") { limiter.take(host: $0) } })
            let held = s.scheduler.waitingCount > 0 && s.scheduler.runningCount < s.scheduler.maxConcurrent
            return (ready, held ? limiter.refillInterval : nil)
        }
        if let rateWait { wakeForTokens(after: rateWait) }
        guard !ready.isEmpty else { return }
        let start: @Sendable () -> Void = { for operation in ready { operation.start() } }
        // A transfer ending on the engine thread frees its slot there: the next operations start right away, still on
        // startQueue and in order behind what it holds (`sync` from another thread runs the block on that thread),
        // so the next transfer costs no hand-off to a start thread and no engine wakeup. Starting only hands work on
        // (lookups, the engine's inbox), and nothing on startQueue waits for the engine thread, so this cannot wait
        // on itself.
        if engine.isEngineThread {
            startQueue.sync(execute: start)
        } else {
            startQueue.async {
                DWHopTrace.arrive("start queue")
                start()
            }
        }
    }

    /// Schedules again once the rate limiter may have a token (one wake-up armed at a time).
    func wakeForTokens(after seconds: Double) {
        let arm = rateWakeArmed.withLock { armed -> Bool in
            defer { armed = true }
            return !armed
        }
        guard arm else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.rateWakeArmed.withLock { $0 = false }
            self?.schedule()
        }
    }

    /// The callers of the download under `key` changed (a cancel, a priority change): re-file it, then schedule.
    func callersChanged(key: String) {
        state.withLock { s in
            guard let downloader = s.downloaders[key] else { return }
            s.scheduler.update(ObjectIdentifier(downloader), demand: downloader.demand, asked: false)
        }
        schedule()
    }

    /// A download is over for the manager (called once per downloader): it takes no new callers, and its slot
    /// — or its place in the waiting list — is free.
    func downloadEnded(_ downloader: DWWebImageDownloader) {
        let ending = downloader.state.withLock { $0.ending }
        state.withLock { s in
            // Recorded before the download leaves `downloaders`: a caller that finds no download finds the failure.
            if s.configuration.remembersFailures, let ending {
                failedURLs.record(ending, forKey: downloader.key, ttl: s.configuration.failureTTL(for: ending))
            }
            // One lookup of the key (a URL: its hash is most of the cost), not one to compare and one to remove.
            if let index = s.downloaders.index(forKey: downloader.key), s.downloaders.values[index] === downloader {
                s.downloaders.remove(at: index)
            }
            s.scheduler.end(ObjectIdentifier(downloader))
        }
        schedule()
    }
}
