// StartMarker: a tiny Operation an older waiting operation depends on; finished when the next-newer one *starts*.
import Foundation
import DWLocking

/// The link of the newest-first chain. Each waiting ``DWWebImageOperation`` depends on the marker of the operation
/// queued right after it; that marker finishes when its owner starts, not when it finishes, so the chain orders
/// the start of waiting work (newest first) without holding a queue slot hostage.
///
/// Lifetime (swift-corelibs-foundation, SR-11333): an `Operation` keeps its dependents in an *unretained* set and
/// walks it when it finishes. A dependent released before that (say, a cancelled operation the queue has already
/// dropped) would be a dangling pointer, and corelibs crashes in `Operation.observeValue(forKeyPath:ofObject:)`.
/// So a marker retains its dependents until it has finished and released them.
final class StartMarker: Operation, @unchecked Sendable {
    // @unchecked: Operation is not Sendable; this subclass adds only `state`, a Mutex.
    private struct State {
        var fired = false
        var dependents: [Operation] = []
    }
    private let state = DWLock(State())

    /// Makes `dependent` wait for this marker, keeping it alive until the marker has fired.
    func gate(_ dependent: Operation) {
        let alreadyFired = state.withLock { s -> Bool in
            if !s.fired { s.dependents.append(dependent) }
            return s.fired
        }
        if !alreadyFired { dependent.addDependency(self) }
    }

    /// Finishes the marker (once), releasing whatever waits on it.
    func fire() {
        let first = state.withLock { s -> Bool in
            defer { s.fired = true }
            return !s.fired
        }
        guard first else { return }
        start()  // a plain Operation outside any queue: runs the empty main() and finishes, readying dependents
        let released = state.withLock { s -> [Operation] in
            defer { s.dependents.removeAll() }
            return s.dependents
        }
        _ = released  // dropped here, after corelibs has walked its dependents
    }
}
