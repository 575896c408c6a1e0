// DWWebImageCache + revalidation: expired entries that can be revalidated with If-None-Match/If-Modified-Since.
import Foundation

/// A disk lookup's outcome, expired-but-revalidatable entries included.
enum DiskLookup {
    /// A valid, unexpired entry.
    case hit(DWImage, DWCacheEntryMetadata)
    /// An expired entry that carries an ETag or Last-Modified: revalidate it rather than fetch it again.
    case expired(DWImage, DWCacheEntryMetadata)
    /// Nothing usable (absent, corrupt, or expired without validators — such entries are removed).
    case miss
}

extension DWWebImageCache {
    /// Looks `key` up on disk. An expired entry with a validator is returned as `.expired` (and kept) so the
    /// download can ask the server whether it is still current; anything unusable is removed and is a miss.
    func diskLookup(forKey key: String, maxPixelCount: Int) -> DiskLookup {
        guard let (entry, fresh) = findOnDisk(forKey: key) else { return .miss }
        guard var image = try? DWImage.pipeline(data: entry.payload, maxPixelCount: maxPixelCount) else {
            unlink(filePath(forKey: key))  // not an image: a miss
            return .miss
        }
        image.entryFile = entry.file
        return fresh ? .hit(image, entry.metadata) : .expired(image, entry.metadata)
    }
}
