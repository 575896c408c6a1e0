// DWWebImageCache + purge: every entry of a source — its original and each variant — out of memory and disk at once.
import Foundation

extension DWWebImageCache {
    /// Whether `key` is the key of `url`'s original or of one of its variants (a key
    /// ``DWImageProcessors/cacheKey(url:processors:)`` or ``DWImageProcessors/cacheKey(url:identifiers:)`` made).
    public static func key(_ key: String, isOf url: String) -> Bool {
        key == url || key.hasPrefix("\(url.utf8.count):\(url)@")
    }

    /// Removes every entry of the current space whose key satisfies `matches` — from memory, the decoded tier and
    /// disk — and returns the keys removed (each once). Every disk entry's key is read (O(entries)): an operator's
    /// purge, never a request's path. Posts ``Notification/Name/DWWebImageCacheDidClean`` with the disk keys. Any
    /// thread; files vanishing meanwhile (another process sweeping) are skipped.
    @discardableResult
    public func removeEntries(where matches: (String) -> Bool) -> [String] {
        var removed = Set(memory.removeObjects(where: matches))
        let dir = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        var onDisk: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where !name.hasPrefix(".") {
            let path = dir + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, let key = DiskBudget.entryKey(path),
                matches(key), unlink(path) == 0
            else { continue }
            onDisk.append(key)
            removed.insert(key)
        }
        for key in removed { decoded.removeObject(forKey: key) }
        if !onDisk.isEmpty {
            DiskBudget.invalidate(directory.path)
            postDidClean(onDisk)
        }
        return Array(removed)
    }
}
