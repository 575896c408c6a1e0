// TransportPreload: libcurl opened on a helper thread while the main thread does other start-up work.
import DWLocking
import DWWebImage
import Foundation

/// Loads libcurl (``DWWebImageManager/loadTransport()``) on a thread of its own from the moment it is made. A
/// transfer that needs libcurl before the load is done waits for it inside libcurl's one-time set-up.
///
/// ``wait()`` joins the thread, so it returns only once the thread is gone, its thread-local destructors included:
/// OpenSSL, which libcurl sets up, frees its per-thread state in such a destructor, and `exit` runs OpenSSL's
/// `atexit` clean-up; the two at once corrupt the heap (a short `--no-cache` run crashed about once in 160 under
/// `perf record`). Thread-safe: the thread's handle is behind one lock (a leaf).
package final class TransportPreload: Sendable {
    /// The running thread's handle until someone joins it.
    private let thread: DWLock<pthread_t?>

    /// Starts `load` on a new thread (the default: libcurl's one-time set-up). If no thread can be made, `load`
    /// runs here.
    package init(load: @escaping @Sendable () -> Void = { DWWebImageManager.loadTransport() }) {
        let context = Unmanaged.passRetained(LoadWork(load)).toOpaque()
        var handle = pthread_t()
        let started = pthread_create(
            &handle, nil,
            { context in
                Unmanaged<LoadWork>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        if started != 0 {
            Unmanaged<LoadWork>.fromOpaque(context).takeRetainedValue().run()
        }
        thread = DWLock(started == 0 ? handle : nil)
    }

    /// Blocks until the thread has ended, its thread-local destructors run (at once if it has, or was joined).
    package func wait() {
        guard
            let handle = thread.withLock({ held -> pthread_t? in
                defer { held = nil }; return held
            })
        else { return }
        pthread_join(handle, nil)
    }
}

/// The closure a preload thread runs, boxed to cross `pthread_create`'s context pointer.
private final class LoadWork: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
