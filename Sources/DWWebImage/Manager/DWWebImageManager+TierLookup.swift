// DWWebImageManager + tier lookup: one request's walk through the cache tiers (a fresh hit, a stale entry to
// revalidate, or a miss), and what its download leaves in them (a 304 refreshes, a 200 replaces).
import Foundation

/// A stale entry with a validator, found in a tier: the download revalidates it.
struct StaleTierEntry: Sendable {
    let image: DWImage
    let metadata: DWCacheEntryMetadata
}

/// One request's reads of its tiers, in order, in its Task. A plain value: any thread.
struct TierLookup: Sendable {
    enum Outcome {
        /// A fresh entry (the tiers before it filled from it): deliver it.
        case hit(DWImage, DWDownloadMetrics)
        /// A stale entry to revalidate, and the tiers asked.
        case stale(StaleTierEntry, [DWCacheTierLookup])
        /// No tier had a usable entry; the tiers asked.
        case miss([DWCacheTierLookup])
    }

    let url: String
    let key: String
    let tiers: [any DWCacheTier]
    /// Whose ``DWWebImageCache/expirationTime`` (and Cache-Control rules) judge an entry's age.
    let cache: DWWebImageCache
    let request: RequestOptions
    let willCache: DWWillCacheHandler?
    let maxPixelCount: Int

    /// Asks each tier in turn until one has the key as an image, or `done()` (the caller cancelled). An entry with
    /// metadata is fresh for ``DWWebImageCache/freshnessLifetime(of:)`` after its `storedAt`; one without is
    /// always fresh. `.fromCacheOnly` takes a stale entry as it is; `.revalidate` treats a fresh one as stale.
    func run(asked: UInt64, until done: () -> Bool) async -> Outcome {
        let started = DispatchTime.now().uptimeNanoseconds
        var lookups: [DWCacheTierLookup] = []
        for (index, tier) in tiers.enumerated() where !done() {
            guard let (entry, image) = await Self.read(tier, key: key, maxPixelCount: maxPixelCount) else {
                lookups.append(DWCacheTierLookup(tier: tier.name, hit: false))
                continue
            }
            let fresh = entry.metadata.map { Date().timeIntervalSince($0.storedAt) <= cache.freshnessLifetime(of: $0) }
            if request.fromCacheOnly || (fresh ?? true) && !request.revalidates {
                lookups.append(DWCacheTierLookup(tier: tier.name, hit: true))
                let file = await DWWebImageManager.store(
                    entry.data, metadata: entry.metadata, forKey: key, into: tiers[..<index], willCache: willCache)
                let source: DWImageSource = tier.name == "memory" ? .memory : .disk
                var metrics = DWDownloadMetrics.cacheHit(url, source, since: asked, lookupStarted: started)
                metrics.tierLookups = lookups
                var delivered = image.from(source, metrics: metrics).keepingDecoded(in: cache, key: key)
                delivered.entryFile = entry.file ?? file
                return .hit(delivered, metrics)
            }
            guard let metadata = entry.metadata, metadata.etag != nil || metadata.lastModified != nil else {
                lookups.append(DWCacheTierLookup(tier: tier.name, hit: false))  // stale, nothing to revalidate with
                continue
            }
            lookups.append(DWCacheTierLookup(tier: tier.name, hit: true))
            return .stale(StaleTierEntry(image: image, metadata: metadata), lookups)
        }
        return .miss(lookups)
    }

    /// `key`'s entry in `tier` (with its metadata from a built-in tier) and the image it makes, or nil: absent,
    /// not an image, or the read threw (logged).
    private static func read(
        _ tier: any DWCacheTier, key: String, maxPixelCount: Int
    ) async -> (TierEntry, DWImage)? {
        do throws(DWWebImageError) {
            let entry: TierEntry?
            if let tier = tier as? any MetadataCacheTier {
                entry = try await tier.entry(forKey: key)
            } else {
                entry = try await tier.data(forKey: key).map { TierEntry(data: $0) }
            }
            guard let entry else { return nil }
            return (entry, try DWImage(data: entry.data, maxPixelCount: maxPixelCount))
        } catch {
            DWLog.warning("cache tier \(tier.name): reading \(key) failed, a miss: \(error)")
            return nil
        }
    }
}

/// What a tiered request's download leaves in its tiers. A plain value: any thread.
struct TierStores: Sendable {
    let key: String
    /// Every tier of the request, in order.
    let tiers: [any DWCacheTier]
    /// Only "memory" tiers are written (`.cacheMemoryOnly`).
    let memoryOnly: Bool
    /// The stale entry the download revalidated, if it did.
    let stale: StaleTierEntry?
    let willCache: DWWillCacheHandler?

    /// Stores a downloaded image with its response's metadata into every tier, in the request's Task, before it
    /// is delivered: after a 304 (source `.revalidated`) the stale bytes with new dates (so every tier that held
    /// them is fresh again, and those that did not are filled), after a 200 the new bytes; the image then carries
    /// the disk tier's file. A failure leaves the tiers as they were, except a 304 the download refused (another
    /// entity tag): the stale entry is removed from every tier, so the next request fetches the image whole.
    func settle(_ result: Result<DWImage, DWWebImageError>) async -> Result<DWImage, DWWebImageError> {
        switch result {
        case .success(let image):
            let file = await DWWebImageManager.store(
                image.data, metadata: image.responseMetadata?.metadata, forKey: key,
                into: tiers.filter { !memoryOnly || $0.name == "memory" }, willCache: willCache)
            var delivered = image
            if let file { delivered.entryFile = file }
            return .success(delivered)
        case .failure(let error):
            guard error.httpStatus == 304, stale != nil else { return result }
            for tier in tiers {
                do throws(DWWebImageError) { try await tier.removeData(forKey: key) } catch {
                    DWLog.warning("cache tier \(tier.name): removing \(key) failed: \(error)")
                }
            }
            return result
        }
    }
}
