// Shared helpers: an isolated manager per test (own cache dir, NotificationCenter, callback queue) and a blocking fetch.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// A manager with its own cache directory, notification center and callback queue; torn down by `close()`.
final class Harness: Sendable {
    let root: URL
    let cache: DWWebImageCache
    let center: NotificationCenter
    let manager: DWWebImageManager
    let server: LoopbackHTTPServer

    init(slots: Int = 6, configure: (inout DWWebImageManager.Configuration) -> Void = { _ in }) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwtest-\(UUID().uuidString)")
        center = NotificationCenter()
        cache = DWWebImageCache(rootDirectory: root, notificationCenter: center)
        var configuration = DWWebImageManager.Configuration()
        configuration.timeout = 10
        configuration.retryCount = 0  // tests that retry say so
        configure(&configuration)
        manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center,
            removeExpiredAtStart: false)
        manager.maxConcurrentDownloads = slots
        server = try LoopbackHTTPServer()
    }

    func close() {
        manager.invalidate()
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    /// Fetches and waits for the one completion.
    func fetch(
        _ url: String, options: DWWebImageOptions = [], timeout: TimeInterval = 20,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Result<DWImage, DWWebImageError> {
        let box = ResultBox()
        manager.downloadImage(withURL: url, options: options) { box.set($0) }
        guard let result = box.wait(timeout: timeout) else {
            XCTFail("no completion within \(timeout) s for \(url)", file: file, line: line)
            return .failure(DWWebImageError(.cancelled, "test timeout"))
        }
        return result
    }

    /// Another manager over the same cache directory with a fresh memory cache (as another process would be);
    /// `configure` sets its cache up. Invalidate the manager when done.
    func anotherManager(_ configure: (DWWebImageCache) -> Void = { _ in }) -> (DWWebImageManager, DWWebImageCache) {
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: center)
        configure(cache)
        var configuration = DWWebImageManager.Configuration()
        configuration.retryCount = 0
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center,
            removeExpiredAtStart: false)
        return (manager, cache)
    }

    /// Fetches through `manager` and waits for the one completion (10 s).
    static func fetch(_ manager: DWWebImageManager, _ url: String, options: DWWebImageOptions = []) throws -> DWImage {
        let box = ResultBox()
        manager.downloadImage(withURL: url, options: options) { box.set($0) }
        return try XCTUnwrap(box.wait(timeout: 10)).get()
    }

    /// Waits until every pending callback-queue block has run.
    func drainCallbacks() { manager.callbackQueue.sync {} }
}

/// Collects completions; counts them so tests can assert "exactly once".
final class ResultBox: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSCondition()
    private var results: [Result<DWImage, DWWebImageError>] = []

    func set(_ result: Result<DWImage, DWWebImageError>) {
        lock.lock()
        results.append(result)
        lock.broadcast()
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return results.count
    }

    var all: [Result<DWImage, DWWebImageError>] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }

    /// Waits for the first result.
    func wait(timeout: TimeInterval) -> Result<DWImage, DWWebImageError>? {
        waitFor(count: 1, timeout: timeout) ? all.first : nil
    }

    /// Waits until `count` results arrived.
    func waitFor(count n: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while results.count < n {
            if !lock.wait(until: deadline) { return results.count >= n }
        }
        return true
    }
}

/// A test case with a fresh, not yet created directory `root` under the temporary directory for each test,
/// removed afterwards.
class TemporaryRootTestCase: XCTestCase {
    var root: URL!
    /// The start of the directory's name (then a UUID), to tell whose leftovers are whose.
    var rootPrefix: String { "dwtest" }

    override func setUp() {
        super.setUp()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(rootPrefix)-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }
}

/// Holds a server response until the test opens it (a route handler blocks on it): ordering tests wait for a
/// state instead of racing a delay.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// Lets `n` held responses go.
    func open(_ n: Int = 1) { for _ in 0..<n { semaphore.signal() } }

    /// A route to `path` that answers `route` once the gate lets this request go.
    func hold(_ server: LoopbackHTTPServer, _ path: String, _ route: Route) {
        server.setHandler(path) { [semaphore] _ in
            semaphore.wait()
            return route
        }
    }
}

extension Harness {
    /// Waits until the manager's scheduler holds `waiting` downloads waiting and `running` holding a slot.
    func waitForScheduled(waiting: Int, running: Int, timeout: TimeInterval = 10) -> Bool {
        eventually(timeout: timeout) { manager.scheduledCounts == (waiting, running) }
    }
}
