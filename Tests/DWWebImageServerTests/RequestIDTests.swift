// DWRequestID: a usable client ID is kept; anything else gets a made ID of 20 lowercase hex digits, never repeated.
import XCTest

@testable import DWWebImageServer

final class RequestIDTests: XCTestCase {
    func testMadeIDsAreTwentyHexDigitsAndDistinct() {
        var seen = Set<String>()
        for _ in 0..<20_000 {
            let id = DWRequestID.id(from: nil)
            XCTAssertEqual(id.utf8.count, 20)
            XCTAssertTrue(id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, id)
            seen.insert(id)
        }
        XCTAssertEqual(seen.count, 20_000, "no ID repeats")
        let ids = DispatchQueue.global().sync { (0..<4).map { _ in DWRequestID.id(from: "x\" level=error") } }
        XCTAssertEqual(Set(ids).count, 4, "a forged header gets a new ID each time")
        XCTAssertTrue(ids.allSatisfy { !seen.contains($0) })
    }

    func testAUsableClientIDIsKept() {
        XCTAssertEqual(DWRequestID.id(from: "req-42.a:b_c"), "req-42.a:b_c")
        XCTAssertNotEqual(DWRequestID.id(from: ""), "")
        XCTAssertNotEqual(DWRequestID.id(from: String(repeating: "a", count: 129)).count, 129)
    }
}
