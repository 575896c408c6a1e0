// The manager's transform executor: a refusal fails the callers as busy, a transform whose callers have all gone is
// skipped while queued and told to stop while running (DWWorkCancellation).
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// An executor that keeps the blocks it accepts until the test runs them (each on a thread of its own).
private final class HeldExecutor: DWTransformExecutor {
    private let state = DWLock<(accepting: Bool, blocks: [@Sendable () -> Void])>((true, []))

    var accepting: Bool {
        get { state.value.accepting }
        set { state.withLock { $0.accepting = newValue } }
    }

    var heldCount: Int { state.value.blocks.count }

    func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { s in
            guard s.accepting else { return false }
            s.blocks.append(work)
            return true
        }
    }

    /// Runs every held block, each on a new thread.
    func release() {
        let blocks = state.withLock { s in
            defer { s.blocks = [] }
            return s.blocks
        }
        for block in blocks { Thread.detachNewThread(block) }
    }
}

/// Counts its runs; until `stopSeen` it waits (at most 10 s) for its transform's stop flag, when `waitsForStop`.
private struct ProbeProcessor: DWImageProcessor {
    let calls: Counter
    let stopSeen: Counter
    let waitsForStop: Bool
    var identifier: String { "probe" }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        calls.next()
        guard waitsForStop, let cancellation = DWWorkCancellation.current else { return image }
        if eventually(timeout: 10, interval: 0.002, { cancellation.isCancelled }) { stopSeen.next() }
        throw DWWorkCancellation.stopped
    }
}

final class TransformExecutorTests: XCTestCase {
    private let source = SampleImages.png(width: 40, height: 20, seed: 3)

    func testARefusedTransformFailsItsCallersAsBusy() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/a.png", .ok(source))
        let executor = HeldExecutor()
        executor.accepting = false
        h.manager.transformExecutor = executor
        let calls = Counter()
        let result = h.fetch(
            h.server.url("/a.png"),
            options: .processors([ProbeProcessor(calls: calls, stopSeen: Counter(), waitsForStop: false)]))
        guard case .failure(let error) = result else { return XCTFail("refused work cannot succeed") }
        XCTAssertTrue(error.isBusy, "\(error)")
        XCTAssertEqual(error.code, .cancelled)
        XCTAssertEqual(calls.value, 0)
    }

    func testAQueuedTransformWhoseCallerCancelledIsSkipped() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/b.png", .ok(source))
        let executor = HeldExecutor()
        h.manager.transformExecutor = executor
        let calls = Counter()
        let options = DWWebImageOptions.processors([
            ProbeProcessor(calls: calls, stopSeen: Counter(), waitsForStop: false)
        ])
        let box = ResultBox()
        let token = h.manager.downloadImage(withURL: h.server.url("/b.png"), options: options) { box.set($0) }
        _ = eventually(timeout: 10) { executor.heldCount > 0 }
        XCTAssertEqual(executor.heldCount, 1, "the transform waits in the executor")
        h.manager.cancel(token)
        XCTAssertEqual(try XCTUnwrap(box.wait(timeout: 5)).failureCode, .cancelled)
        executor.release()
        usleep(200_000)
        XCTAssertEqual(calls.value, 0, "nobody waits for it: skipped")
        // A new caller of the same variant starts a transform of its own.
        let again = DWLock<Result<DWImage, DWWebImageError>?>(nil)
        h.manager.downloadImage(withURL: h.server.url("/b.png"), options: options) { result in
            again.withLock { $0 = result }
        }
        XCTAssertTrue(eventually(timeout: 10) { executor.heldCount > 0 }, "the new transform waits in the executor")
        executor.release()
        XCTAssertTrue(eventually(timeout: 10) { again.value != nil }, "the new caller is answered")
        XCTAssertNotNil(try again.value?.get())
        XCTAssertEqual(calls.value, 1)
    }

    func testARunningTransformIsToldToStopWhenItsLastCallerCancels() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/c.png", .ok(source))
        let executor = HeldExecutor()
        h.manager.transformExecutor = executor
        let calls = Counter(), stopSeen = Counter()
        let options = DWWebImageOptions.processors([
            ProbeProcessor(calls: calls, stopSeen: stopSeen, waitsForStop: true)
        ])
        let box = ResultBox()
        let token = h.manager.downloadImage(withURL: h.server.url("/c.png"), options: options) { box.set($0) }
        XCTAssertTrue(eventually(timeout: 10) { executor.heldCount > 0 }, "the transform waits in the executor")
        executor.release()
        XCTAssertTrue(eventually(timeout: 10) { calls.value > 0 }, "the transform runs")
        h.manager.cancel(token)
        XCTAssertEqual(try XCTUnwrap(box.wait(timeout: 5)).failureCode, .cancelled, "answered at once")
        _ = eventually(timeout: 10) { stopSeen.value > 0 }
        XCTAssertEqual(stopSeen.value, 1, "the running transform saw its stop flag")
    }
}

extension Result where Failure == DWWebImageError {
    /// The error's code, nil for a success.
    fileprivate var failureCode: DWWebImageError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
