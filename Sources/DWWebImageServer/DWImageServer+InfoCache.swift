// DWImageServer + info cache: /info answers kept as variants are (the pipeline's memory and disk cache, then the
// shared result storage), keyed by the source and every info option, the cache buster included.
import DWWebImage
import DWWebImageProcessing
import Foundation

/// Names an /info answer in the variant caches: the key is ``DWImageProcessors/cacheKey(url:processors:)`` of the
/// source and this one step, whose identifier is the options' (`info(…)`, which no image processor's identifier
/// spells), so an answer never meets a variant's key. It never runs as a step: `process(_:)` hands the image back.
struct DWInfoKey: DWImageProcessor {
    let options: DWInfoOptions
    var identifier: String { options.identifier }
    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage { image }
}

extension DWImageServer {
    /// The /info JSON for `url`'s source and a note for the access log (where it came from). A `local://` source is
    /// read and measured each time (as its variants are not cached); any other comes from this instance's cache
    /// (memory, then disk), else the result storage (copied into the local cache), else is made from the original
    /// (fetched through the pipeline) and kept in both: memory now, the disk and the store in the background.
    /// Runs on the request's task.
    func infoAnswer(for url: DWProxyURL, options: DWInfoOptions) async throws(DWWebImageError) -> (json: Data, note: String) {
        if url.source.hasPrefix("local://") {
            let image = try localImage(url.source, chain: [])
            return (try limitedInfoJSON(image, options), " info \(image.source)")
        }
        let key = DWImageProcessors.cacheKey(url: url.source, processors: [DWInfoKey(options: options)])
        if let json = manager.cache.objCache(forKey: key) { return (json, " info cached") }
        if let resultStorage, let json = await resultStorage.lookup(variantKey: key, as: Self.checkedInfo) {
            keepInfo(json, forKey: key)
            return (json, " info result-storage")
        }
        let image = try await manager.image(withURL: url.source)
        let json = try limitedInfoJSON(image, options)
        keepInfo(json, forKey: key)
        resultStorage?.store(json, variantKey: key, contentType: "application/json")
        return (json, " info \(image.source)")
    }

    /// ``infoJSON(_:_:)`` under the server's processing limits (an SVG's size is read by SVGGuard with them).
    private func limitedInfoJSON(_ image: DWImage, _ options: DWInfoOptions) throws(DWWebImageError) -> Data {
        try DWImageProcessing.withLimits(limits) { () throws(DWWebImageError) in try Self.infoJSON(image, options) }
    }

    /// `json` under `key` in the cache's layers: memory at once, the disk write in a background task.
    private func keepInfo(_ json: Data, forKey key: String) {
        let cache = manager.cache
        let policy = cache.cachePolicy
        if policy.contains(.memory) { try? cache.store(json, forKey: key, policy: .memory) }
        guard policy.contains(.disk) else { return }
        Task.detached(priority: .utility) { try? cache.store(json, forKey: key, policy: .disk) }
    }

    /// Stored bytes that are a JSON object (anything else is not an /info answer: the store's lookup counts an error).
    static func checkedInfo(_ data: Data) throws -> Data {
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw DWWebImageError(.notAnImage, "stored /info answer is not a JSON object")
        }
        return data
    }
}
