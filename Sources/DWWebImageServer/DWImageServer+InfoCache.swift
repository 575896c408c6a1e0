// DWImageServer + info cache: /info answers kept as variants are (the pipeline's memory and disk cache, then the
// shared result storage), keyed by the source and every info option, the cache buster included.
import DWWebImage
import DWWebImageProcessing
import Foundation

extension DWImageServer {
    /// The cache key of `url`'s /info answer for `options`: the source's, with the options' identifier (`info(…)`,
    /// which no plan's identifier spells) where a variant has its plan's, so an answer never meets a variant's key.
    static func infoKey(_ url: DWProxyURL, _ options: DWInfoOptions) -> String {
        DWImageProcessors.cacheKey(url: url.source, identifiers: [options.identifier])
    }

    /// The /info answer from this instance's cache (memory, then disk), nil otherwise (and for `local://`, never
    /// cached). On the caller's thread.
    func cachedInfo(for url: DWProxyURL, options: DWInfoOptions) -> Data? {
        guard !url.source.hasPrefix("local://") else { return nil }
        return manager.cache.objCache(forKey: Self.infoKey(url, options))
    }

    /// The /info JSON for `url`'s source and a note for the access log (where it came from): from the result
    /// storage (copied into the local cache), else made here. Identical concurrent requests share one making
    /// (``infoFlights``): the source fetched through the pipeline (or read under `--local-root`), then measured on
    /// a worker of ``pool`` (``measureInfo(_:options:)``), and kept (not for `local://`): memory now, the disk and
    /// the store in the background. Runs on the request's task.
    func infoAnswer(for url: DWProxyURL, options: DWInfoOptions) async throws(DWWebImageError) -> (
        json: Data, note: String
    ) {
        let key = Self.infoKey(url, options)
        if url.source.hasPrefix("local://") {
            let source = url.source
            let json = try await pool.run { () throws(DWWebImageError) -> Data in
                try self.measureInfo(try self.localImage(source), options: options)
            }
            return (json, " info local")
        }
        if let resultStorage, let json = await resultStorage.lookup(variantKey: key, as: Self.checkedInfo) {
            keepInfo(json, forKey: key)
            return (json, " info result-storage")
        }
        let made = try await infoFlights.value(for: key) { () async throws(DWWebImageError) -> Data in
            let image = try await self.manager.image(withURL: url.source)
            let json = try await self.pool.run { () throws(DWWebImageError) -> Data in
                try self.measureInfo(image, options: options)
            }
            self.keepInfo(json, forKey: key)
            self.resultStorage?.store(json, variantKey: key, contentType: "application/json")
            return json
        }
        return (made, " info made")
    }

    /// ``infoJSON(_:options:)`` within this server's limits (`--max-pixels`, the SVG cap) after the result limits'
    /// check of the source's header (what an image request without options checks). On a worker thread.
    func measureInfo(_ image: DWImage, options: DWInfoOptions) throws(DWWebImageError) -> Data {
        let check = resultCheck(DWTransform(), maxAnimationFrames: nil)
        return try DWImageProcessing.withLimits(limits) { () throws(DWWebImageError) -> Data in
            try check.check(image, image.format)
            return try Self.infoJSON(image, options)
        }
    }

    /// `json` under `key` in the cache's layers: memory at once, the disk write on the cache's write queue.
    private func keepInfo(_ json: Data, forKey key: String) {
        let cache = manager.cache
        let policy = cache.cachePolicy
        if policy.contains(.memory) { try? cache.store(json, forKey: key, policy: .memory) }
        guard policy.contains(.disk) else { return }
        cache.writeInBackground(json, forKey: key)
    }

    /// Stored bytes that are a JSON object (anything else is not an /info answer: the store's lookup counts an error).
    static func checkedInfo(_ data: Data) throws -> Data {
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw DWWebImageError(.notAnImage, "stored /info answer is not a JSON object")
        }
        return data
    }

    /// A `local:///path` source read whole on the caller's thread, for `/info` (image requests load local files
    /// through the pipeline: ``DWLocalFileLoader``): opened as the loader opens it (no symlink, nothing outside
    /// `--local-root`, 404 otherwise), at most `--max-size` bytes (422 beyond, from the file's size).
    func localImage(_ source: String) throws(DWWebImageError) -> DWImage {
        let loader = DWLocalFileLoader(root: configuration.imgproxy.localRoot)
        let data = try loader.readWhole(source, maxBytes: configuration.maxSize)
        return try DWImage(data: data, maxPixelCount: configuration.maxPixels)
    }
}
