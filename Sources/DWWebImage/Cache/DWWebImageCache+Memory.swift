// DWWebImageCache + memory: the pipeline's reads and writes of the memory layer (the LRU is ``MemoryCache``).
import Foundation

extension DWWebImageCache {
    func memoryImage(forKey key: String) -> DWImage? {
        guard let entry = memory.object(forKey: key) else { return nil }
        if let image = entry.image { return image }
        return try? DWImage(data: entry.data)
    }

    /// ``memoryImage(forKey:)``, else the downloaded image whose disk write is still queued (for an original kept
    /// out of memory, the only copy until that write is done).
    func memoryOrPendingImage(forKey key: String) -> DWImage? {
        memoryImage(forKey: key) ?? pendingImages.withLock { $0.image(forKey: key) }
    }

    /// Keeps a decoded image in memory.
    func storeInMemory(_ image: DWImage, forKey key: String) {
        memory.set(MemoryEntry(data: image.data, image: image), forKey: key)
    }

}
