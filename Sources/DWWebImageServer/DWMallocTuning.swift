// DWMallocTuning: glibc's arena cap and malloc_trim, which keep a long-running server's RSS flat.
import Foundation

/// glibc keeps freed memory in per-thread arenas (up to 8 per core) and rarely gives it back: a server whose
/// transforms run on many threads grows its RSS with every new arena and every fragmented one. ``limitArenas(_:)``
/// caps their number (`mallopt(M_ARENA_MAX)`, before the worker threads start) and ``trim()`` returns free pages
/// (`malloc_trim(0)`). Reached through `dlsym`: Swift's Glibc module does not import `malloc.h`. No-ops elsewhere.
enum DWMallocTuning {
    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32
    /// `M_ARENA_MAX` in glibc's malloc.h.
    private static let arenaMax: Int32 = -8

    /// Whether the environment leaves the tuning on: anything but `DWSERVE_MALLOC_TUNING=0`.
    static var enabledByEnvironment: Bool { ProcessInfo.processInfo.environment["DWSERVE_MALLOC_TUNING"] != "0" }

    /// Caps glibc's malloc arenas at `count`.
    static func limitArenas(_ count: Int32) {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count)
    }

    /// Gives free heap pages back to the kernel.
    static func trim() {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
}

extension DWImageServer {
    /// Caps glibc's malloc arenas at one for the whole process, unless the environment sets
    /// `DWSERVE_MALLOC_TUNING=0` (as ``DWServeConfiguration/tunesMalloc`` reads it). Call on the main thread before
    /// any other thread starts: `dwfetch serve` does so first thing. A thread keeps the arena it first allocated in,
    /// so a cap set later (``run(onListening:onMetricsListening:services:)`` sets it again) leaves the arenas of the
    /// threads already running in place.
    public static func capMallocArenas() {
        guard DWMallocTuning.enabledByEnvironment else { return }
        DWMallocTuning.limitArenas(1)
    }
}
