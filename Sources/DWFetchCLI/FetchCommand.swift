// FetchCommand: runs a parsed `dwfetch` (no subcommand): the cache commands, or the fetch of every URL.
import DWWebImage
import DWFileIO
import Foundation

/// A parsed fetch and the engines of the executable running it.
package struct FetchCommand {
    let command: DWFetch
    let engines: DWFetchEngines

    /// The command to run with `engines` (the thin dwfetch has none: see ``DWFetch/needsPixelEngine``).
    package init(command: DWFetch, engines: DWFetchEngines) {
        self.command = command
        self.engines = engines
    }

    /// Runs the parsed command on the main thread (requests run on the library's queues, output on the runner's
    /// own); returns the exit status.
    package func run() throws -> Int32 {
        if command.demo, let demo = engines.demo { return try demo(command) }
        let cache = DWWebImageCache.shared
        var settings = cache.configuration
        if let cacheDir = command.cacheDir {
            settings.rootDirectory = URL(fileURLWithPath: cacheDir, isDirectory: true)
        }
        settings.cacheSpace = command.cacheSpace
        if let cacheLimit = command.cacheLimit { settings.diskSizeLimit = max(0, cacheLimit.bytes) }
        settings.honorsCacheControl = command.honorCacheControl
        settings.bodyOnlyEntries = true  // -o links (or kernel-copies) the entry instead of writing the bytes again
        // A plain fetch asks for each distinct URL once: a memory layer would only be filled and trimmed (~6 k
        // instructions an image). Pixel work and previews keep it (variants and previews read originals again).
        if !command.needsPixelEngine { settings.cachePolicy.remove(.memory) }
        cache.configuration = settings
        if command.cacheStats {
            let st = cache.diskStatistics()
            let formatter = ISO8601DateFormatter()
            print("space \(st.space)  \(st.directory.path)")
            print(
                "entries \(st.entryCount)  bytes \(st.totalBytes)  limit \(st.limit == 0 ? "none" : String(st.limit))")
            print(
                "oldest \(st.oldest.map { formatter.string(from: $0) } ?? "-")  "
                    + "newest \(st.newest.map { formatter.string(from: $0) } ?? "-")"
            )
            return 0
        }
        if command.expire {
            let removed = cache.removeExpiredCache()
            if !command.quiet { StandardStream.error.write("expired \(removed.count) entries\n") }
            return 0
        }
        if command.clearCache {
            cache.removeAllCache()
            if !command.quiet { StandardStream.error.write("cleared \(cache.directory.path)\n") }
            return 0
        }
        var all = command.urls
        if let input = command.input {
            do {
                all += try DWFetch.readURLList(input)
            } catch {
                StandardStream.error.write("dwfetch: cannot read \(input): \(error.localizedDescription)\n")
                return 2
            }
        }
        if let shard = command.shard { all = all.filter(shard.contains) }
        // --no-cache must leave the cache alone, including the shared manager's start-up sweep of expired entries.
        let manager =
            command.noCache ? DWWebImageManager(cache: cache, removeExpiredAtStart: false) : DWWebImageManager.shared
        var prefetchURLs: [String] = []
        if let prefetch = command.prefetch {
            do {
                prefetchURLs = try DWFetch.readURLList(prefetch)
            } catch {
                StandardStream.error.write("dwfetch: cannot read \(prefetch): \(error.localizedDescription)\n")
                return 2
            }
        }
        let runner = FetchRunner(command: command, manager: manager, engines: engines)
        let report = runner.run(all, prefetch: prefetchURLs)
        return report.failed == 0 ? 0 : 1
    }
}
