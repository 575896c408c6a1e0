// DWCoalescer: identical concurrent /info requests share one making; a caller that leaves is answered at once, and
// the making stops when its last caller has left.
import DWLocking
import DWTestSupport
import DWWebImage
@testable import DWWebImageServer
import XCTest

final class CoalescerTests: XCTestCase {
    func testConcurrentCallersOfOneKeyShareOneRun() async throws {
        let coalescer = DWCoalescer<Int>()
        let runs = DWLock(0)
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await coalescer.value(for: "k") { () async throws(DWWebImageError) -> Int in
                        runs.withLock { $0 += 1 }
                        try? await Task.sleep(for: .milliseconds(300))
                        return 42
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(values, [42, 42, 42])
        XCTAssertEqual(runs.value, 1)
        XCTAssertEqual(coalescer.waiting, 0)
    }

    func testTheLastCallerLeavingCancelsTheRun() async throws {
        let coalescer = DWCoalescer<Int>()
        let sawCancel = DWLock(false)
        let caller = Task {
            try await coalescer.value(for: "k") { () async throws(DWWebImageError) -> Int in
                try? await Task.sleep(for: .seconds(10))
                sawCancel.withLock { $0 = Task.isCancelled }
                return 1
            }
        }
        let joined = await waitUntil(timeout: 10) { coalescer.waiting > 0 }
        XCTAssertTrue(joined, "the caller waits on the run")
        let started = Date()
        caller.cancel()
        do {
            _ = try await caller.value
            XCTFail("a cancelled caller gets no value")
        } catch {
            XCTAssertEqual((error as? DWWebImageError)?.code, .cancelled)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "answered at once")
        let cancelled = await waitUntil(timeout: 10) { sawCancel.value }
        XCTAssertTrue(cancelled, "the run was cancelled with its last caller")
    }
}
