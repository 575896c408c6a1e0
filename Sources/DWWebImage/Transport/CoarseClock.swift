// CoarseClock: the engine's clock for stall detection — the kernel's last tick, not a fresh reading.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Monotonic nanoseconds from `CLOCK_MONOTONIC_COARSE`: read from the vDSO without touching the clock source, and
/// a few milliseconds behind (one timer tick), which does not matter for a stall measured in seconds. A transfer
/// reads it for every header line, body chunk and progress call (~30 times a download); `DispatchTime.now()`
/// there cost ~1 µs a download. Any thread.
enum CoarseClock {
    /// Now, in nanoseconds since an arbitrary start (the same for every thread of the process).
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
