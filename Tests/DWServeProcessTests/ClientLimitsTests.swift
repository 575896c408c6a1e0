// Cost-aware limits of the built `dwfetch serve`: a client's budget of cold requests (origin fetches, transforms)
// while cache hits still flow, per address or per signing key, and the Referer guard.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ClientLimitsTests: ServeTestCase {
    let key1 = "6b657931", salt1 = "73616c7431", key2 = "6b657932", salt2 = "73616c7432"

    /// Two cold requests use the burst of 2; the third cold one is 429 with Retry-After and reaches no origin; hits
    /// on the variants made still answer 200 at no charge, and another address has its own budget.
    func testColdBudgetRefusesColdWorkOnlyAndPerAddress() throws {
        for name in ["a", "b", "c"] { origin.setRoute("/\(name).png", .ok(SampleImages.png(width: 64, height: 48))) }
        let server = try serve(["--cold-rate", "1/m", "--cold-burst", "2"])
        func get(_ name: String, _ options: String, from address: String = "127.0.0.1") throws -> (Int, String?) {
            try curl(
                port: server.port, target: "/insecure/\(options)/plain/\(origin.url("/\(name).png"))",
                from: address)
        }
        XCTAssertEqual(try get("a", "w:10").0, 200)
        XCTAssertEqual(try get("a", "w:20").0, 200, "a new variant of a cached original: a transform, charged")
        let refused = try get("b", "w:10")
        XCTAssertEqual(refused.0, 429, "the burst of two is spent")
        XCTAssertNotNil(refused.1.flatMap(Int.init), "Retry-After in seconds")
        XCTAssertEqual(origin.requestCount(path: "/b.png"), 0, "a refused request makes no origin request")
        XCTAssertEqual(try get("a", "w:30").0, 429, "a transform over a cached original is cold too")
        for _ in 0..<5 {
            XCTAssertEqual(try get("a", "w:10").0, 200, "a cache hit is never charged")
            XCTAssertEqual(try get("a", "w:20").0, 200)
        }
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 1)
        XCTAssertEqual(try get("b", "w:10", from: "127.0.0.2").0, 200, "another address has its own budget")
        XCTAssertEqual(try get("c", "w:10", from: "127.0.0.2").0, 200)
        XCTAssertEqual(try get("c", "w:20", from: "127.0.0.2").0, 429)
        XCTAssertEqual(origin.requestCount(path: "/b.png"), 1)
        XCTAssertEqual(try get("c", "w:10").0, 200, "a variant another client made is a hit: free")
    }

    /// `--limit-by key`: the budget belongs to the key that signed the URL, whatever the address.
    func testColdBudgetByKey() throws {
        for name in ["a", "b"] { origin.setRoute("/\(name).png", .ok(SampleImages.png(width: 64, height: 48))) }
        let server = try serve([
            "--key", key1, "--salt", salt1, "--key", key2, "--salt", salt2,
            "--cold-rate", "1/m", "--cold-burst", "1", "--limit-by", "key"
        ])
        func get(_ name: String, _ options: String, key: String, salt: String) throws -> Int {
            let path = "/\(options)/plain/\(origin.url("/\(name).png"))"
            return try server.get("/" + ServeAttackTests.sign(path, key: key, salt: salt) + path).status
        }
        XCTAssertEqual(try get("a", "w:10", key: key1, salt: salt1), 200)
        XCTAssertEqual(try get("b", "w:10", key: key1, salt: salt1), 429)
        XCTAssertEqual(origin.requestCount(path: "/b.png"), 0)
        XCTAssertEqual(try get("b", "w:10", key: key2, salt: salt2), 200, "the second key has its own budget")
        XCTAssertEqual(try get("a", "w:10", key: key2, salt: salt2), 200, "a hit, under either key")
        XCTAssertEqual(
            try ServeProcess.exitStatus(refusing: ["--limit-by", "key", "--cold-rate", "5/s"]), 2,
            "--limit-by key without a key")
    }

    /// /info is charged like an image: an answer to make costs a token, a cached one none; in a POST /info batch an
    /// element over the budget is an error object with status 429 (and no origin request).
    func testInfoIsChargedOnlyForAnswersToMake() throws {
        for name in ["a", "b"] { origin.setRoute("/\(name).png", .ok(SampleImages.png(width: 64, height: 48))) }
        let server = try serve(["--cold-rate", "1/m", "--cold-burst", "1"])
        let a = "/insecure/plain/\(origin.url("/a.png"))", b = "/insecure/plain/\(origin.url("/b.png"))"
        XCTAssertEqual(try server.get("/info" + a).status, 200)
        XCTAssertEqual(try server.get("/info" + a).status, 200, "cached: free")
        let refused = try server.get("/info" + b)
        XCTAssertEqual(refused.status, 429)
        XCTAssertNotNil(refused.header("Retry-After"))
        let body = Array(try JSONSerialization.data(withJSONObject: [a, b], options: [.withoutEscapingSlashes]))
        let batch = try HTTPClient.request(port: server.port, target: "/info", method: "POST", body: body)
        XCTAssertEqual(batch.status, 200, batch.text)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: batch.body) as? [[String: Any]], batch.text)
        XCTAssertEqual(array.first?["width"] as? Int, 64)
        XCTAssertEqual(array.last?["status"] as? Int, 429, batch.text)
        XCTAssertEqual(origin.requestCount(path: "/b.png"), 0)
    }

    /// `--allow-referer`: a foreign Referer is 403 (no origin request), the allowed host and its subdomains pass, and
    /// a request without a Referer is allowed.
    func testRefererGuard() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 64, height: 48)))
        let server = try serve(["--allow-referer", "example.com", "--allow-referer", "*.example.org"])
        let target = "/insecure/w:10/plain/\(origin.url("/a.png"))"
        XCTAssertEqual(try server.get(target, headers: ["Referer": "https://evil.test/page"]).status, 403)
        XCTAssertEqual(try server.get(target, headers: ["Referer": "not a url"]).status, 403)
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 0)
        XCTAssertEqual(try server.get(target, headers: ["Referer": "https://example.com/page"]).status, 200)
        XCTAssertEqual(try server.get(target, headers: ["Referer": "https://img.example.org/"]).status, 200)
        XCTAssertEqual(try server.get(target).status, 200, "no Referer: allowed")
        let info = try server.get(
            "/info/insecure/plain/\(origin.url("/a.png"))", headers: ["Referer": "https://evil.test/"])
        XCTAssertEqual(info.status, 403, "/info is guarded too")
    }

    /// `curl --interface ADDRESS` (so the server sees another client address on loopback): status and Retry-After.
    private func curl(port: Int, target: String, from address: String) throws -> (Int, String?) {
        let output = try ProcessRun.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-D", "-", "--interface", address, "--path-as-is",
                "http://127.0.0.1:\(port)\(target)"
            ]
        ).output
        let lines = output.split(separator: "\r\n")
        let status = try XCTUnwrap(lines.first.flatMap { Int($0.split(separator: " ")[1]) }, "no answer: \(output)")
        let retry = lines.first { $0.lowercased().hasPrefix("retry-after:") }
            .map { $0.dropFirst("retry-after:".count).trimmingCharacters(in: .whitespaces) }
        return (status, retry)
    }
}
