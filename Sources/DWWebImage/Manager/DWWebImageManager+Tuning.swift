// DWWebImageManager + package tuning for a run over a list of URLs (dwfetch): start order and where disk writes run.

extension DWWebImageManager {
    /// Whether waiting downloads start newest first within a priority (default true: DW's LIFO, what a scrolling
    /// list wants, and what dwfetch sets within the window of URLs it hands the manager). False starts them oldest
    /// first, in the order they were asked for, and a caller joining a waiting download does not move it back.
    package var startsNewestFirst: Bool {
        get { state.withLock { $0.scheduler.newestFirst } }
        set { state.withLock { $0.scheduler.newestFirst = newValue } }
    }

    /// Whether a downloaded image's disk write runs at the start of its callback block on ``callbackQueue``, so the
    /// completions get the image with its entry file (DWWebImageCacheComplete ends the block), instead of on the
    /// cache's write queue (default false). For a callback queue that does file work anyway (dwfetch's
    /// output queue): one thread hand-off an image less, and the write still overlaps the next transfers. Not for
    /// `.main`: disk writes would run there.
    package var writesCacheInCallbacks: Bool {
        get { tuning.withLock { $0.writesCacheInCallbacks } }
        set { tuning.withLock { $0.writesCacheInCallbacks = newValue } }
    }

    /// Whether a request for an image (not a variant) opens its disk entry on the thread that asks, before
    /// ``downloadImage(withURL:options:progress:completion:)`` returns (default false): no file is a miss there and
    /// then, and a file found is handed open to the lookup queue, which reads and validates it as it would have.
    /// For a caller whose asking threads may wait for one `open` (dwfetch's request feed, which asks on the main
    /// thread and then on its output queue): a cold run's miss costs that failed `open` instead of a wake-up of the
    /// lookup queue and a hop back. Read when a request is made.
    package var probesDiskWhereAsked: Bool {
        get { tuning.withLock { $0.probesDiskWhereAsked } }
        set { tuning.withLock { $0.probesDiskWhereAsked = newValue } }
    }

    /// Whether downloads post ``Notification/Name/DWWebImageDownloadStart``, `…Finish` and `…Stop`, and
    /// ``Notification/Name/DWWebImageCacheComplete`` for a write in the callback block (default true). For a caller
    /// that observes none of them (dwfetch): a post nobody observes still costs ~10 k instructions (its userInfo
    /// bridged and boxed), two or three an image. Read when a download is created.
    package var postsDownloadNotifications: Bool {
        get { tuning.withLock { $0.postsNotifications } }
        set { tuning.withLock { $0.postsNotifications = newValue } }
    }

    /// The package tuning a download is made with.
    struct Tuning: Sendable {
        var writesCacheInCallbacks = false
        var postsNotifications = true
        var probesDiskWhereAsked = false
    }
}

extension DWWebImageManager {
    /// Loads libcurl and runs its global set-up now, on the calling thread, instead of in the first transfer (about
    /// 17 M instructions: the library and its dependencies' relocations, OpenSSL's initialisation). For a caller that
    /// knows it will download and has other start-up work to overlap it with: dwfetch calls it on a helper thread
    /// while ArgumentParser reads the arguments of a `--no-cache` run. Thread-safe; only the first call does work.
    package static func loadTransport() { CurlGlobal.initialize() }
}
