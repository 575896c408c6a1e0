// POST /purge on the admin listener of the built `dwfetch serve`: a signed list of sources drops each one's original
// and every variant from memory, disk and the shared result storage (moto's S3, auth on); unsigned or wrongly
// signed, nothing; never on the public port.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class PurgeTests: ServeTestCase {
    let key = "736563726574", salt = "68656C6C6F"

    /// Two variants and the original of p.png, cached locally and in the store, are gone after one purge: the next
    /// request asks the origin again and makes the variant again; q.png is untouched.
    func testASignedPurgeDropsEveryCopyOfTheSource() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 64, height: 48, seed: 3)))
        origin.setRoute("/q.png", .ok(SampleImages.png(width: 64, height: 48, seed: 4)))
        let moto = try MotoS3(bucket: "results")
        defer { moto.stop() }
        let server = try serve(
            [
                "--key", key, "--salt", salt, "--result-storage", "s3://results/v",
                "--s3-endpoint", moto.endpoint
            ], environment: moto.environment)
        let source = origin.url("/p.png")
        func get(_ src: String, _ options: String) throws -> Int {
            let path = "/\(options)/plain/\(src)"
            return try server.get("/" + ServeAttackTests.sign(path, key: key, salt: salt) + path).status
        }
        for options in ["w:10", "w:20"] { XCTAssertEqual(try get(source, options), 200) }
        XCTAssertEqual(try get(origin.url("/q.png"), "w:10"), 200)
        XCTAssertTrue(
            try eventually(timeout: 10) { try server.metric(#"dwserve_result_storage_total{outcome="stored"}"#) == 3 })
        let asked = origin.requestCount(path: "/p.png")

        let body = Array(#"{"sources": ["\#(source)"]}"#.utf8)
        let metrics = try XCTUnwrap(server.metricsPort)
        XCTAssertEqual(try purge(metrics, body, signature: nil).status, 401)
        XCTAssertEqual(try purge(metrics, body, signature: String(repeating: "0", count: 64)).status, 403)
        XCTAssertEqual(
            try HTTPClient.request(port: server.port, target: "/purge", method: "POST", body: body).status,
            405, "never on the public port")
        let purged = try purge(metrics, body, signature: hmac(body))
        XCTAssertEqual(purged.status, 200, purged.text)
        let counts = try XCTUnwrap(JSONSerialization.jsonObject(with: purged.body) as? [String: Int])
        XCTAssertEqual(counts["originals"], 1)
        XCTAssertEqual(counts["variants"], 4, "two variants here, two in the store: \(counts)")

        let transforms = try server.metric("dwserve_transforms_total")
        XCTAssertEqual(try get(source, "w:10"), 200)
        XCTAssertEqual(origin.requestCount(path: "/p.png"), asked + 1, "the original was fetched again")
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), transforms + 1, "the variant was made again")
        XCTAssertEqual(try get(origin.url("/q.png"), "w:10"), 200)
        XCTAssertEqual(origin.requestCount(path: "/q.png"), 1, "another source is untouched")
    }

    private func purge(_ port: Int, _ body: [UInt8], signature: String?) throws -> HTTPResult {
        try AdminRequest.post(port, "/purge", body, signature: signature)
    }

    private func hmac(_ body: [UInt8]) -> String { AdminRequest.signature(of: body, keyHex: key) }
}
