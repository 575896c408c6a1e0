// HeapTuning: glibc's malloc set up for a fetch run, so freed memory is used again instead of faulted in again.
import CMalloc

/// glibc's malloc settings for a `dwfetch` fetch run. Call once on the main thread, before any other thread exists.
///
/// By default glibc gives the top of a heap back to the kernel as soon as more than 128 KiB of it is free. A fetch run
/// frees and allocates the same sizes all the time (libcurl's 100 KiB receive buffer, a body, the objects of a
/// download), and on the engine thread's heap that trimming can take hold: a freed buffer goes back, the next one is
/// faulted in again page by page. Some runs of 2,000 images from a loopback server took ~10,000 page faults more
/// than others of the same work (1,600), and the CPU those cost. Keeping up to ``trimThreshold`` free at the top of
/// each heap ends that; the peak a run reaches is the same, only what it gives back before exiting differs.
///
/// Setting the trim threshold also fixes glibc's mmap threshold (otherwise raised as big blocks are freed), so it is
/// set too: blocks up to ``mmapThreshold`` come from the heap and are used again; bigger ones are mapped and unmapped.
package enum HeapTuning {
    /// Free bytes a heap keeps at its top before giving any back (glibc's default: 128 KiB).
    package static let trimThreshold: Int32 = 64 << 20
    /// Blocks at least this big are mapped on their own (glibc's default: 128 KiB, raised as big blocks are freed).
    package static let mmapThreshold: Int32 = 4 << 20

    /// Applies the settings; false where the C library is not glibc or refused them.
    @discardableResult
    package static func applyForFetchRun() -> Bool {
        dw_malloc_set_trim_threshold(trimThreshold) == 1 && dw_malloc_set_mmap_threshold(mmapThreshold) == 1
    }
}
