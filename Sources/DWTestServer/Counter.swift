// Counter: a thread-safe count, for request handlers and test processors.
import DWLocking

/// A count shared between threads (route handlers, test processors); one `DWLock`.
public final class Counter: Sendable {
    private let n = DWLock(0)

    /// A counter at zero.
    public init() {}

    /// Increments and returns the new value (1 for the first call).
    @discardableResult
    public func next() -> Int {
        n.withLock { value in
            value += 1
            return value
        }
    }

    /// The current count.
    public var value: Int { n.value }
}
