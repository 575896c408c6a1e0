// Fetching a source: the allowed-host check and the pipeline's variant cache.
import DWWebImage

extension DWImageServer {
    /// The source processed by `chain` (the source itself for an empty chain), through the pipeline's variant
    /// cache: concurrent identical requests share one download and one transform, and another chain over a cached
    /// original needs no request to the origin. Awaited in the request's task; delivered from the manager's queue.
    func variant(of source: String, chain: [any DWImageProcessor]) async throws(DWWebImageError) -> DWImage {
        try await manager.image(withURL: source, options: chain.isEmpty ? [] : .processors(chain))
    }

    /// Exact host, or a "*.suffix" pattern that also allows the suffix's subdomains; any host when none are set.
    func hostIsAllowed(_ host: String) -> Bool {
        let allowed = configuration.allowedHosts
        guard !allowed.isEmpty else { return true }
        return allowed.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)
                return host.hasSuffix(suffix) || host == suffix.dropFirst()
            }
            return host == pattern
        }
    }
}
