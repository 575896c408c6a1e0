// RequestFeedTests: the feed's bounds hold whichever threads end the requests, answers made at once included, and
// every URL is asked for exactly once.
import DWLocking
import Dispatch
import XCTest

@testable import DWFetchCLI

final class RequestFeedTests: XCTestCase {
    private struct Seen {
        var issued: [Int] = []
        var inFlight = 0
        var maxInFlight = 0
        var finished = Set<Int>()
        /// The lowest index not finished yet.
        var oldest = 0
        var maxPastOldest = 0
        var allIssued = 0
    }

    /// Runs a feed whose requests `end` (on some thread, or right away); what it saw once every request has ended.
    private func run(
        count: Int, size: Int, refill: Int, span: Int?,
        end: @escaping @Sendable (_ index: Int, _ done: @escaping @Sendable () -> Void) -> Void
    ) -> Seen {
        let seen = DWLock(Seen())
        let group = DispatchGroup()
        group.enter()
        let feed = RequestFeed(
            count: count, size: size, refill: refill, span: span,
            issue: { index, done in
                group.enter()
                seen.withLock { s in
                    s.issued.append(index)
                    s.inFlight += 1
                    s.maxInFlight = max(s.maxInFlight, s.inFlight)
                    s.maxPastOldest = max(s.maxPastOldest, index - s.oldest + 1)
                }
                end(index) {
                    seen.withLock { s in
                        s.inFlight -= 1
                        s.finished.insert(index)
                        while s.finished.remove(s.oldest) != nil { s.oldest += 1 }
                    }
                    done()
                    group.leave()
                }
            },
            allIssued: {
                seen.withLock { $0.allIssued += 1 }
                group.leave()
            })
        feed.start()
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success, "every request ended and the feed said so")
        return seen.withLock { $0 }
    }

    func testRequestsEndingOnOtherThreadsKeepTheWindowAndTheSpan() {
        let queue = DispatchQueue(label: "ends", attributes: .concurrent)
        let seen = run(count: 2_000, size: 64, refill: 16, span: 256) { index, done in
            // The oldest ones end last now and then, so the span is what stops the feed.
            let delay = index % 97 == 0 ? 5_000 : Int.random(in: 0...300)
            queue.asyncAfter(deadline: .now() + .microseconds(delay), execute: done)
        }
        XCTAssertEqual(seen.issued.sorted(), Array(0..<2_000), "each URL asked for once")
        XCTAssertEqual(seen.issued, Array(0..<2_000), "in input order")
        XCTAssertLessThanOrEqual(seen.maxInFlight, 64)
        XCTAssertLessThanOrEqual(seen.maxPastOldest, 256)
        XCTAssertEqual(seen.allIssued, 1)
    }

    /// An answer made at once (a refusal, say) ends the request inside `issue`: the feed goes on without recursing.
    func testAnswersMadeAtOnceFeedTheRestWithoutRecursion() {
        let depth = DWLock(0)
        let maxDepth = DWLock(0)
        let seen = run(count: 100_000, size: 8, refill: 1, span: nil) { _, done in
            let d = depth.withLock {
                $0 += 1; return $0
            }
            maxDepth.withLock { $0 = max($0, d) }
            done()
            depth.withLock { $0 -= 1 }
        }
        XCTAssertEqual(seen.issued.count, 100_000)
        XCTAssertEqual(maxDepth.withLock { $0 }, 1, "one issue at a time, never one inside another")
        XCTAssertEqual(seen.allIssued, 1)
    }

    func testAnEmptyRunIsAllIssuedAtOnce() {
        let seen = run(count: 0, size: 64, refill: 16, span: 256) { _, done in done() }
        XCTAssertEqual(seen.issued, [])
        XCTAssertEqual(seen.allIssued, 1)
    }
}
