// DWServedBytes: a response body is kept for later requests only once the same bytes were served twice, so new
// variants answered once each leave nothing behind.
@testable import DWWebImageServer
import Foundation
import XCTest

final class ServedBytesTests: XCTestCase {
    func testABodyIsKeptOnItsSecondServeNotItsFirst() {
        let served = DWServedBytes(byteBudget: 1 << 20, capacity: 16)
        let data = Data(repeating: 7, count: 10_000)
        let first = served.body(for: data)
        XCTAssertEqual(served.heldBytes, 0, "a body served once is not kept")
        let second = served.body(for: data)
        XCTAssertEqual(served.heldBytes, 10_000, "served twice: kept")
        let third = served.body(for: data)
        XCTAssertEqual(served.heldBytes, 10_000)
        XCTAssertEqual(first.etag, second.etag)
        XCTAssertEqual(third.etag, second.etag)
        XCTAssertEqual(third.buffer.readableBytes, data.count)
    }

    /// The memory benchmark's pattern: every request a new variant. Before, each body (a copy of its bytes, and the
    /// bytes themselves past the memory cache's eviction) stayed until the table's 16 MiB were full.
    func testNewVariantsServedOnceHoldNothing() {
        let served = DWServedBytes(byteBudget: 1 << 20, capacity: 16)
        var alive: [Data] = []  // kept alive, so no address is reused by the next one
        for i in 0..<100 {
            let data = Data(repeating: UInt8(i), count: 4096 + i)
            alive.append(data)
            XCTAssertEqual(served.body(for: data).buffer.readableBytes, data.count)
        }
        XCTAssertEqual(served.heldBytes, 0)
        XCTAssertEqual(alive.count, 100)
    }

    func testAFirstServeIsRememberedForCapacityMoreFirstServes() {
        let served = DWServedBytes(byteBudget: 1 << 20, capacity: 4)
        let early = Data(repeating: 1, count: 1000)
        _ = served.body(for: early)
        let others = (0..<4).map { Data(repeating: UInt8(10 + $0), count: 2000 + $0) }
        for data in others { _ = served.body(for: data) }
        _ = served.body(for: early)
        XCTAssertEqual(served.heldBytes, 0, "four later first serves pushed it out: its second serve counts as a first")
        _ = served.body(for: early)
        XCTAssertEqual(served.heldBytes, 1000)
    }
}
