// DWWorkCancellation: a stop flag for one piece of CPU work (a variant's transform), with hooks the engine uses to
// stop what is already running (libvips' kill flag on the images of the running pipeline).
import DWLocking

/// The stop flag of one transform. The manager makes one per variant being made and sets it when every caller of
/// that variant has gone (a deadline, a cancelled task); the work, run under ``current``, checks it between steps, and
/// the engine registers a hook per live libvips image that stops that image's evaluation at once.
///
/// Thread-safe: one lock guards the flag and the hooks; a hook runs under that lock, so ``unregister(_:)`` (called
/// before the hooked object is freed) waits for a hook that is running.
public final class DWWorkCancellation: Sendable {
    private struct State {
        var cancelled = false
        var hooks: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let state = DWLock(State())

    /// The cancellation of the work running on this thread (or task), nil outside one.
    @TaskLocal public static var current: DWWorkCancellation?

    /// A new, unset flag.
    public init() {}

    /// Whether ``cancel()`` has been called. Any thread.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Sets the flag and runs every registered hook (once each), on the caller's thread. Later calls do nothing.
    public func cancel() {
        state.withLock { s in
            guard !s.cancelled else { return }
            s.cancelled = true
            for hook in s.hooks.values { hook() }
            s.hooks = [:]
        }
    }

    /// Registers `hook` to run when the flag is set; runs it now (under the lock) and returns nil when it is set
    /// already. `hook` must be quick and must not call back into this object. Any thread.
    public func register(_ hook: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { s in
            if s.cancelled {
                hook()
                return nil
            }
            s.nextID += 1
            s.hooks[s.nextID] = hook
            return s.nextID
        }
    }

    /// Removes a hook (waiting for it if ``cancel()`` is running it now). Any thread.
    public func unregister(_ id: UInt64) {
        state.withLock { _ = $0.hooks.removeValue(forKey: id) }
    }

    /// 10007: the work was stopped because nobody waits for it any more.
    public static let stopped = DWWebImageError(.cancelled, "work stopped: nobody waits for it")
}
