// DWMallocTuning: glibc's arena cap, heap thresholds and malloc_trim, which keep a long-running server's RSS flat
// and its big blocks out of the kernel's page-fault path.
internal import CMalloc
import Foundation

/// glibc keeps freed memory in per-thread arenas (up to 8 per core) and rarely gives it back: a server whose
/// transforms run on many threads grows its RSS with every new arena and every fragmented one. ``applyHeapSettings()``
/// caps their number (`mallopt(M_ARENA_MAX)`, before the worker threads start) and ``trim()`` returns free pages
/// (`malloc_trim(0)`). ``applyHeapSettings()`` also serves blocks up to 32 MiB (a source's bytes, a decode's pixels)
/// from the heap instead of mapping each on its own: glibc otherwise maps and unmaps every one of them, and each page
/// of each is faulted in anew (90–160 faults a cold 2048×1536 transform; 15–20 with the heap). Through CMalloc's typed
/// calls; no-ops where the C library is not glibc.
enum DWMallocTuning {
    /// Blocks at least this big are mapped on their own (glibc's default: 128 KiB, raised as big blocks are freed).
    static let mmapThreshold: Int32 = 32 << 20
    /// Free bytes a heap keeps at its top before giving any back (glibc's default: 128 KiB); ``trim()`` gives back
    /// the rest while transforms run.
    static let trimThreshold: Int32 = 64 << 20

    /// Whether the environment leaves the tuning on: anything but `DWSERVE_MALLOC_TUNING=0`.
    static var enabledByEnvironment: Bool { ProcessInfo.processInfo.environment["DWSERVE_MALLOC_TUNING"] != "0" }

    /// Caps glibc's malloc arenas at one and serves blocks up to ``mmapThreshold`` from the heap, keeping up to
    /// ``trimThreshold`` free at its top.
    static func applyHeapSettings() {
        _ = dw_malloc_set_arena_max(1)
        _ = dw_malloc_set_mmap_threshold(mmapThreshold)
        _ = dw_malloc_set_trim_threshold(trimThreshold)
    }

    /// Gives free heap pages back to the kernel.
    static func trim() { _ = dw_malloc_trim() }
}

extension DWImageServer {
    /// Caps glibc's malloc arenas at one for the whole process and keeps big blocks in the heap, unless the
    /// environment sets `DWSERVE_MALLOC_TUNING=0` (as ``DWServeConfiguration/tunesMalloc`` reads it). Call on the
    /// main thread before any other thread starts: `dwfetch serve` does so first thing. A thread keeps the arena it
    /// first allocated in, so a cap set later (``run(onListening:onMetricsListening:services:)`` sets it again)
    /// leaves the arenas of the threads already running in place.
    public static func capMallocArenas() {
        guard DWMallocTuning.enabledByEnvironment else { return }
        DWMallocTuning.applyHeapSettings()
    }
}
