// DWImageServer + encode budget: a negotiated AVIF or JPEG XL over `--encode-budget` answered at once in the next
// format, while the variant itself is made in the background under its own key.
import DWWebImage
import DWWebImageProcessing

extension DWImageServer {
    /// The gate of a plan whose output `Accept` picks (the URL naming no format) when `bucket` allows a weighed
    /// format (AVIF, JPEG XL) and the server has an encode budget; nil otherwise (no `--encode-budget`, a `local://`
    /// source, which is kept in memory only, or nothing weighed to pick).
    func encodeGate(for url: DWProxyURL, bucket: DWAcceptBucket) -> DWEncodeGate? {
        guard let encodeBudget, url.options.transform.format == nil, !url.source.hasPrefix(DWLocalFileLoader.scheme),
            bucket.preferred.contains(where: DWEncodeBudget.weighed.contains)
        else { return nil }
        return encodeBudget.gate
    }

    /// The job's variant under the encode budget: as ``variant(of:plan:)`` when its plan has no gate or the encode
    /// fits; when the gate puts the encode off (or it is already being made in the background), the variant in the
    /// next format `Accept` allows that fits (WebP, say, else the preferred formats'), and `isStandIn` true. The
    /// put-off variant is made in the background under the plan's own key
    /// (``startBackgroundEncode(of:plan:key:format:)``); the stand-in is kept under its own plan's key only. Runs in
    /// the request's task.
    func budgetedVariant(_ job: DWImageJob) async throws(DWWebImageError) -> (image: DWImage, isStandIn: Bool) {
        guard let encodeBudget, let plan = job.plan, plan.encodeGate?.admits != nil else {
            return (try await variant(of: job.url.source, plan: job.plan), false)
        }
        let source = job.url.source
        let key = DWImageProcessors.cacheKey(url: source, processors: [plan])
        var deferred: DWImageFormat
        if let pending = encodeBudget.pendingFormat(key) {
            deferred = pending  // being made: not joined, which would wait for it
        } else {
            do throws(DWWebImageError) {
                return (try await variant(of: source, plan: plan), false)
            } catch {
                guard let format = DWEncodeGate.deferredFormat(error) else { throw error }
                deferred = format
            }
            startBackgroundEncode(of: source, plan: plan, key: key, format: deferred)
        }
        encodeBudget.count("deferred")
        var standIn = plan
        while case .preferred(let preferred, let negotiated) = standIn.output, negotiated.contains(deferred) {
            standIn = standIn.with(
                output: .preferred(preferred, negotiated: negotiated.filter { $0 != deferred }),
                encodeGate: plan.encodeGate)
            do throws(DWWebImageError) {
                return (try await variant(of: source, plan: standIn), true)
            } catch {
                guard let format = DWEncodeGate.deferredFormat(error) else { throw error }
                deferred = format  // the next weighed format is over the budget too
            }
        }
        // The loop ends here only if the gate deferred a format the client did not accept (it weighs AVIF/JXL only).
        throw DWWebImageError(.notAnImage, "no output format within the encode budget")
    }

    /// Makes `plan`'s variant of `source` in the background and keeps it under `key` in every layer a foreground
    /// render would (memory, disk, result storage): the original from the disk cache (fetched again if it has
    /// gone), drawn on the budget's own thread once a `--workers` thread idles, learning only, and saved in the
    /// encode helper at `SCHED_IDLE` (``DWIdleEncoder``; in this process when the helper is not installed), whose
    /// scheduling is counted. Bounded and one per key (``DWEncodeBudget/start(_:format:_:)``);
    /// stopped with the server (the helper killed).
    func startBackgroundEncode(of source: String, plan: DWVariantPlan, key: String, format: DWImageFormat) {
        guard let encodeBudget else { return }
        var gate = plan.encodeGate?.learningOnly
        if DWHelperProcess.problem == nil {
            gate = gate?.inIdleHelper { policy in encodeBudget.countHelper(policy) }
        }
        let full = plan.with(encodeGate: gate)
        _ = encodeBudget.start(key, format: format) { [self] in
            do throws(DWWebImageError) {
                let original = try await backgroundOriginal(of: source)
                let made = try await encodeBudget.pool.run { [pool] () throws(DWWebImageError) -> DWImage in
                    try encodeBudget.waitForIdleWorker(in: pool)  // clients' transforms first
                    return try full.process(original)
                }
                guard !Task.isCancelled else { return encodeBudget.count("failed") }
                manager.cache.cacheObj(made.data, forKey: key)
                if let resultStorage, let contentType = made.format.mimeType {
                    resultStorage.store(made, variantKey: key, contentType: contentType)
                }
                encodeBudget.count("stored")
            } catch {
                logger.debug("background encode of \(key) failed: \(error.message)")
                encodeBudget.count("failed")
            }
        }
    }

    /// The original of `source` for a background encode: the disk cache's copy, left out of the memory cache, else
    /// fetched again at low priority.
    private func backgroundOriginal(of source: String) async throws(DWWebImageError) -> DWImage {
        if let cached = try? await manager.image(withURL: source, options: [.fromCacheOnly, .revalidate]) {
            return cached
        }
        return try await manager.image(withURL: source, options: [.lowPriority])
    }
}
