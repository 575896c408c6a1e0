// SlotGate: the one dependency of a waiting DWWebImageOperation; the scheduler opens it to hand over a slot.
import Foundation
import DWLocking

/// A tiny `Operation` that a ``DWWebImageOperation`` depends on. The operation sits in its `OperationQueue`,
/// not ready, until the manager's scheduler picks it for a free slot (priority first, newest first within a
/// priority, per-host and prefetch caps respected) and opens its gate.
///
/// Why not chain waiting operations to each other, as DW did? A plain dependency means "wait until that one
/// *finishes*", which serialises the queue; and a chain fixes the order at enqueue time, so a priority raised
/// later could never take effect. A gate per operation keeps the DW shape (Operations, a queue, dependencies)
/// while the order is decided at the moment a slot frees.
///
/// SR-11333: swift-corelibs-foundation crashes (SIGSEGV in `Operation.observeValue(forKeyPath:ofObject:)`) when an
/// operation that others depend on is released while they still observe it. The gate therefore keeps its
/// dependents alive until it has been opened and corelibs has walked them. Thread safety: `state`, one lock.
final class SlotGate: Operation, @unchecked Sendable {
    // @unchecked: Operation is not Sendable; this subclass adds only `state`, behind one lock.
    private struct State {
        var opened = false
        var dependents: [Operation] = []
    }
    private let state = DWLock(State())

    /// Makes `dependent` wait for this gate (no-op once it is open).
    func guardStart(of dependent: Operation) {
        let alreadyOpen = state.withLock { s -> Bool in
            if !s.opened { s.dependents.append(dependent) }
            return s.opened
        }
        if !alreadyOpen { dependent.addDependency(self) }
    }

    /// Whether the gate has been opened.
    var isOpen: Bool { state.withLock { $0.opened } }

    /// Opens the gate once: its dependents become ready and their queue starts them.
    func open() {
        let first = state.withLock { s -> Bool in
            defer { s.opened = true }
            return !s.opened
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
