// DWTransformExecutor: the seam through which a server hands the manager threads for its variant transforms.

/// Where a ``DWWebImageManager`` runs its variant transforms (``DWWebImageManager/transformExecutor``); without
/// one it uses its own concurrent work queue.
public protocol DWTransformExecutor: Sendable {
    /// Runs `work` later on a thread of its own, or refuses it at once: false when it takes no more work now (every
    /// thread busy and its queue full). Called on any thread; must not run `work` on the caller's thread.
    func submit(_ work: @escaping @Sendable () -> Void) -> Bool
}
