// `--revalidate-after SEC`: a source's original older than SEC is checked with its origin on its next use (one
// conditional GET); a changed source drops every variant made from the old bytes, here and in result storage.
import DWWebImage
import Foundation

extension DWImageServer {
    /// Whether `job`'s source may be due for a revalidation (never without `--revalidate-after`, never `local://`):
    /// checked or stored more than SEC ago, or not seen yet. One lock; on the caller's thread. The memory answer
    /// steps aside when it is, so that ``revalidateIfDue(_:)`` runs first.
    func mayNeedRevalidation(_ job: DWImageJob) -> Bool {
        guard let after = configuration.revalidateAfter, !job.isLocal else { return false }
        guard let last = revalidations.lastChecked(job.url.source) else { return true }
        return Date().timeIntervalSince(last) > after
    }

    /// Revalidates `job`'s source when it is due (``mayNeedRevalidation(_:)``), before the job's answer is looked up:
    /// concurrent requests for the source share one check (``revalidationFlights``). Awaited in the request's task;
    /// the conditional GET runs on the pipeline's queues. A failing origin changes nothing: the cached copies answer
    /// as before, and the source is checked again by its next request (the negative cache spares the origin).
    func revalidateIfDue(_ job: DWImageJob) async {
        guard mayNeedRevalidation(job), let after = configuration.revalidateAfter else { return }
        let source = job.url.source
        let known = revalidations.lastChecked(source) != nil
        _ = try? await revalidationFlights.value(for: source) { [self] () async throws(DWWebImageError) -> Bool in
            await revalidate(source, after: after, known: known)
        }
    }

    /// The check itself; whether the source changed. An original stored less than `after` ago is current (its date
    /// is remembered); an older one is asked for with its ETag / Last-Modified (``DWWebImageOptions/revalidate``): a
    /// 304 renews it, new bytes replace it and drop its variants. No original on disk (`--no-disk-cache`, evicted,
    /// variants copied from result storage): a source not seen yet is noted now; one seen before is fetched in full
    /// (and kept, so the next check is a conditional one) and its variants dropped, since nothing can vouch for them.
    private func revalidate(_ source: String, after: TimeInterval, known: Bool) async -> Bool {
        let now = Date()
        guard let metadata = manager.cache.entryMetadata(forKey: source) else {
            guard known else {
                revalidations.markChecked(source, at: now)
                return false
            }
            return await refetch(source)
        }
        if now.timeIntervalSince(metadata.storedAt) <= after {
            revalidations.markChecked(source, at: metadata.storedAt)
            return false
        }
        return await refetch(source)
    }

    /// Asks the origin for `source`'s original (conditionally when it is on disk with a validator); a 304 keeps
    /// every variant, anything else drops them. A failure changes nothing and is not remembered as a check.
    private func refetch(_ source: String) async -> Bool {
        do {
            let image = try await manager.image(withURL: source, options: .revalidate)
            let changed = image.source != .revalidated
            if changed { await dropVariants(of: source) }
            revalidations.markChecked(source, at: Date())
            return changed
        } catch {
            logger.info("revalidation: \(source) failed (\(error.message)); its cached copies still answer")
            return false
        }
    }

    /// Removes every variant (and `/info` answer) of `source` — never its original, just replaced — from this
    /// instance's memory and disk (every disk entry's key is read, on a global queue) and from result storage.
    func dropVariants(of source: String) async {
        let cache = manager.cache
        let local = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                let removed = cache.removeEntries { $0 != source && DWWebImageCache.key($0, isOf: source) }
                continuation.resume(returning: removed.count)
            }
        }
        let stored = await resultStorage?.purge(source: source) ?? 0
        logger.info("revalidation: \(source) changed; \(local) cached and \(stored) stored variants dropped")
    }
}
