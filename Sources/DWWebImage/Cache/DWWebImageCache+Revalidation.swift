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
        let path = filePath(forKey: key)
        let found = DiskEntryCodec.read(path: path, touches: readTouches)  // last read, for LRU eviction
        if case .absent = found { return .miss }
        guard case .entry(let entry) = found, entry.key == key,
            var image = try? DWImage.pipeline(data: entry.payload, maxPixelCount: maxPixelCount)
        else {
            unlink(path)  // torn, corrupt, foreign or not an image: a miss
            return .miss
        }
        image.entryFile = entry.file
        if Date().timeIntervalSince(entry.metadata.storedAt) <= freshnessLifetime(of: entry.metadata) {
            return .hit(image, entry.metadata)
        }
        guard entry.metadata.etag != nil || entry.metadata.lastModified != nil else {
            unlink(path)
            return .miss
        }
        return .expired(image, entry.metadata)
    }
}
