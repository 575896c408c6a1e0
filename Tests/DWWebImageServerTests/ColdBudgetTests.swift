// DWColdBudget and DWTagIndex: the per-client token buckets and the tag index stay within their bounds.
@testable import DWWebImageServer
import XCTest

final class ColdBudgetTests: XCTestCase {
    /// A burst, then refusals with the seconds until a token, then the refill at the rate.
    func testBucketRefusesWithRetryAfterAndRefills() {
        let budget = DWColdBudget(rate: 0.5, burst: 2, maxClients: 10)
        XCTAssertNil(budget.charge("a", now: 100))
        XCTAssertNil(budget.charge("a", now: 100))
        XCTAssertEqual(budget.charge("a", now: 100), 2, "one token in 2 s at 0.5/s")
        XCTAssertEqual(budget.charge("a", now: 101), 1)
        XCTAssertNil(budget.charge("a", now: 102), "refilled")
        XCTAssertNil(budget.charge("b", now: 102), "another client has its own bucket")
    }

    /// Thousands of clients never keep more than `maxClients` buckets; idle (refilled, so full) ones go first, so a
    /// client that spent its budget stays refused while others come and go.
    func testTableIsBoundedAndForgetsIdleClientsFirst() {
        let budget = DWColdBudget(rate: 0.001, burst: 1, maxClients: 100)
        for i in 0..<5_000 { _ = budget.charge("client\(i)", now: 0) }
        XCTAssertLessThanOrEqual(budget.clientCount, 100)
        XCTAssertNil(budget.charge("spender", now: 999))
        for i in 0..<60 { _ = budget.charge("later\(i)", now: 1000) }  // the first ones have refilled: idle
        XCTAssertLessThanOrEqual(budget.clientCount, 100)
        XCTAssertNotNil(budget.charge("spender", now: 1000), "a spent budget outlives idle clients")
        XCTAssertNil(budget.charge("later0", now: 3000), "refilled after 1000 s at 0.001/s")
    }

    /// The tag index keeps at most its bound of pairs, forgetting the oldest tags first; `take` empties a tag.
    func testTagIndexIsBounded() {
        let index = DWTagIndex(maxEntries: 10)
        for i in 0..<8 { index.record("old", source: "s\(i)") }
        index.record("old", source: "s0")  // seen: no second entry
        for i in 0..<5 { index.record("new", source: "n\(i)") }
        XCTAssertEqual(index.take("old"), [], "the oldest tag was forgotten to stay within 10 pairs")
        XCTAssertEqual(index.take("new"), ["n0", "n1", "n2", "n3", "n4"])
        XCTAssertEqual(index.take("new"), [])
    }
}
