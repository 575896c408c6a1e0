// POST /info on the built `dwfetch serve`: a page's placeholders in one call — an array in order, each element what
// GET /info answers or an error object; a bad signature or too many sources refuse the batch before any fetch.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class InfoBatchTests: ServeTestCase {
    let key = "6b6579666f72696d61676573", salt = "73616c74"

    /// Three sources (one twice, one missing at the origin): the answer is an array of four in order, the missing
    /// one an error object with the origin's 404; each source fetched once; the same batch again asks no origin.
    func testBatchAnswersInOrderWithErrorObjects() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 40, height: 30)))
        origin.setRoute("/b.png", .ok(SampleImages.png(width: 20, height: 50), contentType: "image/png"))
        let server = try serve(["--key", key, "--salt", salt])
        let paths = [
            signed("/plain/\(origin.url("/a.png"))"), signed("/plain/\(origin.url("/missing.png"))"),
            signed("/th:1/plain/\(origin.url("/b.png"))"), signed("/plain/\(origin.url("/a.png"))")
        ]
        for round in 0..<2 {
            let response = try post(server, paths)
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.header("Content-Type"), "application/json")
            let array = try XCTUnwrap(
                JSONSerialization.jsonObject(with: response.body) as? [[String: Any]], response.text)
            XCTAssertEqual(array.count, 4)
            XCTAssertEqual(array[0]["width"] as? Int, 40, "round \(round)")
            XCTAssertEqual(array[0]["height"] as? Int, 30)
            XCTAssertEqual(array[1]["status"] as? Int, 404, "\(array[1])")
            XCTAssertNotNil(array[1]["error"] as? String)
            XCTAssertEqual(array[2]["width"] as? Int, 20)
            XCTAssertNotNil(array[2]["thumbhash"] as? String)
            XCTAssertEqual(array[3]["width"] as? Int, 40)
            XCTAssertEqual(origin.requestCount(path: "/a.png"), 1, "one fetch for a source named twice, then the cache")
            XCTAssertEqual(origin.requestCount(path: "/b.png"), 1)
        }
        let get = try server.get("/info\(paths[2])")
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(origin.requestCount(path: "/b.png"), 1, "GET /info shares the batch's cache")
    }

    /// One element with a wrong signature: 403 for the whole batch; more than `--max-batch`: 413; a body that is not
    /// an array of strings: 400 — and in no case any origin request.
    func testBadSignatureOrTooManyRefusesTheWholeBatch() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 40, height: 30)))
        let server = try serve(["--key", key, "--salt", salt, "--max-batch", "2"])
        let good = signed("/plain/\(origin.url("/a.png"))")
        let forged = "/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/plain/\(origin.url("/a.png"))"
        XCTAssertEqual(try post(server, [good, forged]).status, 403)
        XCTAssertEqual(try post(server, [good, good, good]).status, 413)
        XCTAssertEqual(try post(server, body: Array(#"{"a": 1}"#.utf8)).status, 400)
        XCTAssertEqual(try post(server, body: Array(#"[1, 2]"#.utf8)).status, 400)
        XCTAssertEqual(try post(server, body: [UInt8](repeating: 0x20, count: 2_000_000)).status, 413)
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 0, "nothing fetched")
        XCTAssertEqual(try post(server, [good, good]).status, 200)
        XCTAssertEqual(try server.get("/info", method: "DELETE").status, 405)
    }

    /// `--no-info`: POST /info is 404 too.
    func testBatchFollowsNoInfo() throws {
        let server = try serve(["--no-info"])
        XCTAssertEqual(try post(server, ["/insecure/plain/\(origin.url("/a.png"))"]).status, 404)
    }

    private func signed(_ rest: String) -> String {
        "/" + ServeAttackTests.sign(rest, key: key, salt: salt) + rest
    }

    private func post(_ server: ServeProcess, _ paths: [String]) throws -> HTTPResult {
        try post(
            server, body: Array(try JSONSerialization.data(withJSONObject: paths, options: [.withoutEscapingSlashes])))
    }

    private func post(_ server: ServeProcess, body: [UInt8]) throws -> HTTPResult {
        try HTTPClient.request(
            port: server.port, target: "/info", headers: ["Content-Type": "application/json"],
            method: "POST", body: body)
    }
}
