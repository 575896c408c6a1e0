// DWPlanMemo: parsed plans kept by target and Accept — never a URL whose answer depends on the clock (exp:).
@testable import DWWebImageServer
import HTTPTypes
import XCTest

final class PlanMemoTests: XCTestCase {
    private func job(_ target: String) throws -> DWImageJob {
        DWImageJob(
            url: try DWProxyURL(target: target, now: 1_000), isLocal: false, named: nil, plan: nil,
            surrogateKeys: HTTPFields())
    }

    func testKeptByTargetAndAcceptExceptExpiringURLs() throws {
        let memo = DWPlanMemo(capacity: 2)
        let plain = "/insecure/rs:fit:10:10/plain/http%3A%2F%2F127.0.0.1%2Fa.png"
        memo.keep(try job(plain), target: plain, accept: "image/webp")
        XCTAssertEqual(memo.job(target: plain, accept: "image/webp")?.url.source, "http://127.0.0.1/a.png")
        XCTAssertNil(memo.job(target: plain, accept: nil), "another Accept is another plan")
        let expiring = "/insecure/exp:2000/plain/http%3A%2F%2F127.0.0.1%2Fa.png"
        memo.keep(try job(expiring), target: expiring, accept: nil)
        XCTAssertNil(memo.job(target: expiring, accept: nil), "exp: depends on the clock: parsed every time")
    }

    func testStartsOverWhenFull() throws {
        let memo = DWPlanMemo(capacity: 2)
        let targets = (0..<3).map { "/insecure/plain/http%3A%2F%2F127.0.0.1%2F\($0).png" }
        for target in targets { memo.keep(try job(target), target: target, accept: nil) }
        XCTAssertNil(memo.job(target: targets[0], accept: nil))
        XCTAssertNotNil(memo.job(target: targets[2], accept: nil))
    }
}
