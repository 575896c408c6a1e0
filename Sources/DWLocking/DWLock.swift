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
/// A reference: copies of a `DWLock` share one value and one mutex (as a class would). The value and the mutex
/// live in one heap object (a `ManagedBuffer`: the value its header, the mutex its one element), so making a lock
/// is one allocation, not two — a download makes about eight.
///
/// Sendable only when `Value` is (as swift-nio's `NIOLockedValueBox`): the lock serialises access, but a
/// non-Sendable value (a class reference, say) could still escape through `withLock` and be shared unguarded.
public struct DWLock<Value> {
    /// The value (header) and the mutex (element 0), at stable addresses for the object's life.
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            // The header (the value) is destroyed by ManagedBuffer itself; the element is ours.
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }

    @usableFromInline let storage: Storage

    /// Creates a lock guarding `value`. Inlinable, as ``withLock(_:)``: specialized where it is called, the buffer's
    /// type is known there (a generic one is looked up in the runtime's metadata cache on every lock made).
    @inlinable
    public init(_ value: Value) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let rc = pthread_mutex_init(mutex, DWLockAttributes.shared.attributes)
            precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
        }
    }

    /// Runs `body` with exclusive access to the value. Do not call back into the same lock from `body`.
    ///
    /// The value is reached through its address in the buffer, so no dynamic exclusivity check runs (the mutex
    /// already makes every access exclusive; `swift_beginAccess` on a class property cost ~200 instructions a call).
    @inlinable @inline(__always)
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        let (value, mutex) = storage.withUnsafeMutablePointers { ($0, $1) }
        pthread_mutex_lock(mutex)
        defer {
            pthread_mutex_unlock(mutex)
            _fixLifetime(storage)  // the pointers above stay valid until here
        }
        return try body(&value.pointee)
    }

    /// A copy of the value, read under the lock; setting it replaces the value under the lock.
    @inlinable
    public var value: Value {
        get { withLock { $0 } }
        nonmutating set { withLock { $0 = newValue } }
    }
}

// @unchecked: the value is touched only between pthread_mutex_lock and pthread_mutex_unlock on the mutex (in
// `withLock`), so all access is serialised; both live at stable heap addresses in `storage`, which every copy shares;
// and `Value` is Sendable, so what `withLock` hands out may cross threads.
extension DWLock: @unchecked Sendable where Value: Sendable {}

/// The attributes every ``DWLock`` mutex is made with: glibc's adaptive type, which spins briefly on a taken lock
/// before it sleeps. A `DWLock` is held for a few hundred nanoseconds at most, so a thread that finds it taken usually
/// gets it while spinning, instead of a futex wait, a futex wake on the holder's side and two context switches (a cold
/// 2,000-image `dwfetch` run takes 155 ms of CPU with the spin and 156 ms without: docs/performance.md). Elsewhere
/// (musl) the default type.
@usableFromInline
final class DWLockAttributes: Sendable {
    @usableFromInline static let shared = DWLockAttributes()

    /// nonisolated(unsafe): the attributes are written once, in `init`, before `shared` is published, and only read
    /// after (by pthread_mutex_init, from any thread); they are never freed (one set per process).
    @usableFromInline nonisolated(unsafe) let attributes: UnsafeMutablePointer<pthread_mutexattr_t>

    private init() {
        attributes = UnsafeMutablePointer<pthread_mutexattr_t>.allocate(capacity: 1)
        attributes.initialize(to: pthread_mutexattr_t())
        pthread_mutexattr_init(attributes)
        #if canImport(Glibc)
        // PTHREAD_MUTEX_ADAPTIVE_NP (glibc's enum under _GNU_SOURCE, which Swift's Glibc module does not export).
        pthread_mutexattr_settype(attributes, 3)
        #endif
    }
}
