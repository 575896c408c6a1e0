// The error kinds the server builds: each factory's code, text, status and sizes, as clients and tests read them.
import DWWebImage
import XCTest

@testable import DWWebImageServer

final class ServerErrorKindsTests: XCTestCase {
    func testEveryKindKeepsItsCodeTextAndFields() {
        let missing = DWWebImageError.missing("the origin's store has no such object", url: "@o/a.png")
        XCTAssertEqual(missing.code, .httpStatus)
        XCTAssertEqual(missing.httpStatus, 404)
        XCTAssertEqual(missing.description, "[10004] the origin's store has no such object (@o/a.png)")
        let source = DWWebImageError.badOriginSource("@o/../a", "source is not a key of the origin's bucket")
        XCTAssertEqual(source.code, .invalidURL)
        XCTAssertEqual(source.description, "[10002] source is not a key of the origin's bucket (@o/../a)")
        let big = DWWebImageError.sourceTooBig("file", "msfs:10", size: 11, limit: 10)
        XCTAssertEqual(big.code, .tooLarge)
        XCTAssertEqual(big.message, "source image file is too big (msfs:10)")
        XCTAssertEqual([big.size, big.limit], [11, 10])
        let side = DWWebImageError.overLimit("result 9×3", limit: 8, unit: " per side", size: 9)
        XCTAssertEqual(side.message, "result 9×3 is over the limit of 8 per side")
        XCTAssertEqual([side.size, side.limit], [9, 8])
    }
}
