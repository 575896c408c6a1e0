// eventually: the one way the tests wait for something another thread or process does.
import Foundation

/// Polls `condition` every `interval` until it holds or `timeout` passes; the last answer. For what the tests
/// observe from outside (a file appearing, a server's counter, a process's state), never for timing.
public func eventually(
    timeout: TimeInterval = 5, interval: TimeInterval = 0.005,
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(useconds_t(interval * 1_000_000))
    }
    return try condition()
}

/// ``eventually(timeout:interval:_:)`` for async tests: the task sleeps between polls, never its thread.
public func waitUntil(
    timeout: TimeInterval = 5, interval: TimeInterval = 0.005,
    _ condition: @Sendable () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
    }
    return condition()
}

extension Result {
    /// The failure, if any.
    public var error: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }

    /// The success value, if any.
    public var value: Success? {
        if case .success(let v) = self { return v }
        return nil
    }
}
