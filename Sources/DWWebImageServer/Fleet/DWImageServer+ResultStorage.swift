// DWImageServer + result storage: the local cache, then the shared store, then local work (stored for the others).
import DWWebImage
import DWWebImageProcessing
import Foundation

extension DWImageServer {
    /// The variant of `source` rendered by `plan`, from (in order) this instance's cache, the shared result storage
    /// (copied into the local cache), or made here through the pipeline and then written to the store in the
    /// background. A failing store only costs the lookup: the variant is made here. Runs on the request's task.
    func sharedVariant(of source: String, plan: DWVariantPlan, storage: DWResultStorage)
        async throws(DWWebImageError) -> DWImage
    {
        let options = DWWebImageOptions.processors([plan])
        let key = DWImageProcessors.cacheKey(url: source, processors: [plan])
        if manager.cache.objCache(forKey: key) != nil,
            let local = try? await manager.image(withURL: source, options: options.union(.fromCacheOnly))
        {
            return local
        }
        if let stored = await storage.lookup(variantKey: key) {
            await shareFramesDropped(stored, made: false, source: source, plan: plan, storage: storage)
            manager.cache.cacheObj(stored.data, forKey: key)
            return stored
        }
        let made = try await manager.image(withURL: source, options: options)
        if let contentType = made.format.mimeType {
            storage.store(made, variantKey: key, contentType: contentType)
            await shareFramesDropped(made, made: true, source: source, plan: plan, storage: storage)
        }
        return made
    }
}
