// PendingImages: downloaded images whose disk write is announced but not done, findable by key meanwhile.

/// The images the pipeline has handed to the cache's write queue and not yet written, by key (under the cache's
/// lock for them). A caller that misses memory (an original kept out of it: ``DWWebImageManager/Configuration/
/// memoryCachesVariantSources`` off) and would miss disk too — the write is still queued — finds the image here
/// instead of fetching it again. At most the write backlog (16) is held, and each image is held by its queued write
/// anyway, so this costs no memory of its own.
struct PendingImages {
    private var next: UInt64 = 0
    private var byKey: [String: (id: UInt64, image: DWImage)] = [:]
    /// Writes finished so far (each ``remove(_:forKey:)``): a lookup that missed the disk before a write finished
    /// may have missed an entry that is there now.
    private(set) var finished: UInt64 = 0

    /// Records `image` as being written under `key`; returns the ticket that ``remove(_:forKey:)`` takes.
    mutating func add(_ image: DWImage, forKey key: String) -> UInt64 {
        next += 1
        byKey[key] = (next, image)
        return next
    }

    /// Forgets the write `ticket` of `key` (a newer write of the same key stays). One hash of the key.
    mutating func remove(_ ticket: UInt64, forKey key: String) {
        finished += 1
        if let index = byKey.index(forKey: key), byKey[index].value.id == ticket { byKey.remove(at: index) }
    }

    /// The image being written under `key`, if any.
    func image(forKey key: String) -> DWImage? { byKey[key]?.image }
}
