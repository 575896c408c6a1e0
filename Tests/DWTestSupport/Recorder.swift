// Recorder and TestFlag: what tests collect from callbacks on other threads, behind one DWLock each.
import DWLocking

/// A list appended to from any thread, read whole (for recording order from callbacks). One lock.
public final class Recorder<T: Sendable>: Sendable {
    private let items = DWLock<[T]>([])

    /// An empty list.
    public init() {}

    /// Appends `item`; any thread.
    public func append(_ item: T) { items.withLock { $0.append(item) } }

    /// A copy of the list so far.
    public var values: [T] { items.withLock { $0 } }
}

/// A flag set once from one thread and read from another. One lock.
public final class TestFlag: Sendable {
    private let value = DWLock(false)

    /// Unset.
    public init() {}

    /// Whether ``set()`` has been called.
    public var isSet: Bool { value.withLock { $0 } }

    /// Sets the flag; any thread.
    public func set() { value.withLock { $0 = true } }
}
