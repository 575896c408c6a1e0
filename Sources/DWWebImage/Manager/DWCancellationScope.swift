// DWCancellationScope: cancels every fetch awaited inside it — a deadline without moving the work to another task.
import DWLocking

/// A scope whose ``cancel()`` cancels every ``DWWebImageManager/image(withURL:options:)`` awaited inside it (set as
/// ``current`` with `DWCancellationScope.$current.withValue(scope) { … }`), as cancelling their task would: a server
/// bounds a request by a timer that cancels the scope, while the work stays in the request's own task. One lock;
/// ``cancel()`` from any thread, its actions run on that thread.
package final class DWCancellationScope: Sendable {
    /// The scope of the running task, if any.
    @TaskLocal package static var current: DWCancellationScope?

    private let state = DWLock<(cancelled: Bool, next: Int, actions: [Int: @Sendable () -> Void])>((false, 0, [:]))

    /// A scope not cancelled yet.
    package init() {}

    /// Whether ``cancel()`` has run.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Runs every registered action (once) and every one added later at once.
    package func cancel() {
        let actions = state.withLock { s -> [@Sendable () -> Void] in
            defer { s.actions.removeAll() }
            s.cancelled = true
            return Array(s.actions.values)
        }
        for action in actions { action() }
    }

    /// Registers `action` for ``cancel()``; runs it now (and returns nil) when the scope is cancelled already.
    package func add(_ action: @escaping @Sendable () -> Void) -> Int? {
        let id = state.withLock { s -> Int? in
            guard !s.cancelled else { return nil }
            s.next += 1
            s.actions[s.next] = action
            return s.next
        }
        if id == nil { action() }
        return id
    }

    /// `operation`, with `onCancel` run when the task is cancelled or when the ``current`` scope is (at once when it
    /// is already): every wait a scoped deadline must end goes through this.
    package static func withCancellationHandler<T: Sendable>(
        operation: () async -> T, onCancel: @escaping @Sendable () -> Void
    ) async -> T {
        let scope = current
        let registration = scope?.add(onCancel)
        defer { if let registration { scope?.remove(registration) } }
        return await withTaskCancellationHandler(operation: operation, onCancel: onCancel)
    }

    /// Forgets the action `add` registered as `id`.
    package func remove(_ id: Int) {
        state.withLock { _ = $0.actions.removeValue(forKey: id) }
    }
}
