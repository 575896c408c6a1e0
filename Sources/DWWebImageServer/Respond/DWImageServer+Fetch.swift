// Fetching a source: the allowed-host check and the pipeline's variant cache.
import DWWebImage
import DWWebImageProcessing

extension DWImageServer {
    /// The source rendered by `plan` (the source itself without one), through the pipeline's variant cache:
    /// concurrent identical requests share one download and one render, and another plan over a cached original
    /// needs no request to the origin. With result storage, a variant goes through the shared store too
    /// (``sharedVariant(of:plan:storage:)``). Awaited in the request's task; delivered from the manager's queue.
    ///
    /// A `local://` source (``DWLocalFileLoader``) is kept in memory only and never shared: the file is on this
    /// machine's disk already, and a changed file is read again once its variants have left the memory cache. With
    /// ``DWServeConfiguration/tracing``, it is the request span's child span `image`, with the phases' spans under
    /// it (``DWPhaseSpans``) and, for a variant found in a cache tier, `dwserve.cache` naming the tier.
    func variant(of source: String, plan: DWVariantPlan?) async throws(DWWebImageError) -> DWImage {
        guard let span = childSpan("image", imageURL: source) else {
            return try await fetchVariant(of: source, plan: plan)
        }
        defer { span.end() }
        let phases = DWPhaseSpans(parent: span.context, imageURL: source)
        let result = await DWFetchPhases.$current.withValue(phases) { () async -> Result<DWImage, DWWebImageError> in
            do throws(DWWebImageError) {
                return .success(try await fetchVariant(of: source, plan: plan))
            } catch {
                return .failure(error)
            }
        }
        phases.finish(result)
        if case .success(let image) = result, image.source != .network {
            span.attributes["dwserve.cache"] = image.source.rawValue
        }
        return try result.get()
    }

    /// ``variant(of:plan:)`` without its spans.
    private func fetchVariant(of source: String, plan: DWVariantPlan?) async throws(DWWebImageError) -> DWImage {
        let isLocal = source.hasPrefix(DWLocalFileLoader.scheme)
        guard let resultStorage, let plan, !isLocal else {
            var options = Self.options(for: plan)
            if isLocal { options.insert(.cacheMemoryOnly) }
            return try await manager.image(withURL: source, options: options)
        }
        return try await sharedVariant(of: source, plan: plan, storage: resultStorage)
    }

    /// Whether `url`'s source passes `--allow-host`: always for a named origin's `NAME://PATH` (the operator chose
    /// that origin), else by its host (``hostIsAllowed(_:)``).
    func sourceIsAllowed(_ url: DWProxyURL) -> Bool {
        DWNamedSource(url.source, names: configuration.imgproxy.sources.originNames) != nil
            || hostIsAllowed(url.sourceHost)
    }

    /// Exact host, or a "*.suffix" pattern that also allows the suffix's subdomains; any host when none are set.
    func hostIsAllowed(_ host: String) -> Bool {
        DWRedirectGuard.isAllowed(host, by: configuration.allowedHosts)
    }
}
