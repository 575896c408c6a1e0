// DWLock: a value guarded by a pthread mutex.
//
// Why not Synchronization.Mutex: on Linux its fast path is an atomic compare-exchange inside the prebuilt
// standard library, which ThreadSanitizer does not see, so every access it guards is reported as a race and real
// races drown in the noise. pthread_mutex_lock/unlock are intercepted by TSan, so `swift test --sanitize=thread`
// stays meaningful. The cost is the same uncontended futex path.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value that is only ever read or written while holding one `pthread_mutex_t`.
///
/// Sendable only when `Value` is (as swift-nio's `NIOLockedValueBox`): the lock serialises access, but a
/// non-Sendable value (a class reference, say) could still escape through `withLock` and be shared unguarded.
public final class DWLock<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Unchecked: the mutex already makes every access exclusive, and the runtime's dynamic check of an `inout`
    /// class property (`swift_beginAccess`, a thread-local access set) cost ~200 instructions a `withLock` — a
    /// download takes ~45 of them.
    @exclusivity(unchecked) private var stored: Value

    /// Creates a lock guarding `value`.
    public init(_ value: Value) {
        stored = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Do not call back into the same lock from `body`.
    @inline(__always)
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&stored)
    }

    /// A copy of the value, read under the lock; setting it replaces the value under the lock.
    public var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}

// @unchecked: `stored` is touched only between pthread_mutex_lock and pthread_mutex_unlock on `mutex` (in
// `withLock`), so all access is serialised; the mutex lives at a stable heap address; and `Value` is Sendable, so
// what `withLock` hands out may cross threads.
extension DWLock: @unchecked Sendable where Value: Sendable {}
