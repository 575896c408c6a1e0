// DWWebImageManager + disk hits: the image delivered, or a variant made from its original found on disk, and the
// second look at the disk that a write finishing during the first one calls for; where a lookup starts.
import DWLocking
import Foundation

extension DWWebImageManager {
    /// Looks `waiter`'s image up on disk (`key`: the cache key of what it asked for), from the thread that asked: on
    /// the lookup queue, or, for an image (not a variant) with ``probesDiskWhereAsked``, first with one `open` here:
    /// no file is a miss that files the download at once; a file found is handed to the lookup queue open, to be
    /// read and validated there.
    func lookUp(
        _ waiter: Waiter, key: String, asciiURL: String, configuration: Configuration, callbacks: DispatchQueue,
        asked: UInt64, revalidating: Revalidation?
    ) {
        let request = waiter.options
        var opened: OpenedEntry?
        if !request.isVariant && tuning.withLock({ $0.probesDiskWhereAsked }) {
            opened = cache.openDiskEntry(forKey: waiter.token.cacheKey)
            if opened == nil {
                proceedToNetwork(
                    waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks,
                    revalidating: revalidating)
                return
            }
        }
        state.withLock { $0.lookups[waiter.token.id] = waiter }
        lookupQueue.async { [self, opened] in
            DWHopTrace.arrive("lookup queue")
            guard !waiter.isDelivered else { return }  // cancelled during the lookup
            let lookupStarted = DispatchTime.now().uptimeNanoseconds
            // A variant on disk; else (below) its original, on disk or from the network, to make it from.
            if request.isVariant,
                case .hit(let image, _) = cache.diskLookup(forKey: key, maxPixelCount: configuration.maxPixelCount)
            {
                deliverDiskHit(image, key: key, to: waiter, asked: asked, lookupStarted: lookupStarted, on: callbacks)
                return
            }
            lookUpOriginal(
                waiter, key: key, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks, asked: asked,
                lookupStarted: lookupStarted, opened: opened)
        }
    }

    /// A disk hit for what `waiter` asked for (on the lookup queue): kept in memory, then delivered.
    func deliverDiskHit(
        _ image: DWImage, key: String, to waiter: Waiter, asked: UInt64, lookupStarted: UInt64,
        on callbacks: DispatchQueue
    ) {
        if waiter.options.readPolicy.contains(.memory) { cache.storeInMemory(image, forKey: key) }
        let metrics = DWDownloadMetrics.cacheHit(waiter.token.url, .disk, since: asked, lookupStarted: lookupStarted)
        // Back-pressure, on purpose on the lookup queue: disk hits are read faster than most callers consume them,
        // and holding every image in queued completions would make memory grow with the number of requests. With 32
        // hits undelivered, the next lookup waits here (and the lookups behind it queue) until the callback queue
        // consumes one. It never waits on itself: completions run on the callback queue, never the lookup queue.
        diskHitsInFlight.wait()
        state.withLock { _ = $0.lookups.removeValue(forKey: waiter.token.id) }
        deliver(.success(image.from(.disk, metrics: metrics)), to: waiter, metrics: metrics, on: callbacks) {
            [diskHitsInFlight] in diskHitsInFlight.signal()
        }
    }

    /// Makes `waiter`'s variant from its original found on disk (on the lookup queue): the original kept in memory
    /// when the configuration keeps variants' originals there, its hit reported, the lookup over.
    func makeVariant(
        fromDiskHit image: DWImage, for waiter: Waiter, asked: UInt64, lookupStarted: UInt64,
        on callbacks: DispatchQueue
    ) {
        if waiter.options.readPolicy.contains(.memory) && configuration.memoryCachesVariantSources {
            cache.storeInMemory(image, forKey: waiter.token.cacheKey)
        }
        let metrics = DWDownloadMetrics.cacheHit(waiter.token.url, .disk, since: asked, lookupStarted: lookupStarted)
        state.withLock { _ = $0.lookups.removeValue(forKey: waiter.token.id) }
        report(metrics, on: callbacks)
        makeVariant(from: image.from(.disk, metrics: metrics), for: [waiter], callbacks: callbacks)
    }

    /// Looks up `waiter`'s original (its token's cache key) on disk and goes on from what it finds (on the lookup
    /// queue): a hit is delivered, or made into the variant asked for (`key`: what a hit is kept in memory under); an
    /// expired entry is revalidated; a miss goes to the network, a variant's with the count of disk writes that had
    /// finished before it looked (see `proceedToNetwork`). `opened`: the original's file, already open.
    func lookUpOriginal(
        _ waiter: Waiter, key: String, asciiURL: String, configuration: Configuration, callbacks: DispatchQueue,
        asked: UInt64, lookupStarted: UInt64, opened: OpenedEntry? = nil
    ) {
        let request = waiter.options
        let writesSeen = cache.pendingWritesFinished  // before the lookup
        var found = cache.diskLookup(
            forKey: waiter.token.cacheKey, maxPixelCount: configuration.maxPixelCount, opened: opened)
        if case .expired(let image, let metadata) = found, request.fromCacheOnly {
            found = .hit(image, metadata)  // offline: a stale image beats none
        } else if case .hit(let image, let metadata) = found, request.revalidates, !request.fromCacheOnly {
            // Asked to check a fresh entry: a conditional request when it has a validator, else a full one.
            let validates = metadata.etag != nil || metadata.lastModified != nil
            found = validates ? .expired(image, metadata) : .miss
        }
        switch found {
        case .hit(let image, _) where request.isVariant:
            makeVariant(fromDiskHit: image, for: waiter, asked: asked, lookupStarted: lookupStarted, on: callbacks)
        case .hit(let image, _):
            deliverDiskHit(image, key: key, to: waiter, asked: asked, lookupStarted: lookupStarted, on: callbacks)
        case .expired(let image, let metadata):
            proceedToNetwork(
                waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks,
                revalidating: Revalidation(image: image, metadata: metadata))
        case .miss:
            proceedToNetwork(
                waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks,
                writesSeen: request.isVariant ? writesSeen : nil)
        }
    }

    /// The disk asked again for a variant's original (on the lookup queue), because a write finished after the
    /// first lookup missed and neither a download nor a pending write holds the original any more.
    func lookUpOriginalAgain(
        _ waiter: Waiter, asciiURL: String, configuration: Configuration, callbacks: DispatchQueue
    ) {
        guard !waiter.isDelivered else { return }  // cancelled meanwhile
        let started = DispatchTime.now().uptimeNanoseconds
        lookUpOriginal(
            waiter, key: waiter.options.cacheKey(base: waiter.token.cacheKey), asciiURL: asciiURL,
            configuration: configuration, callbacks: callbacks, asked: started, lookupStarted: started)
    }
}
