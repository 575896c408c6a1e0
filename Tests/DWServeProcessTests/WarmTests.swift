// `dwfetch warm` and `POST /warm` against moto's S3 (auth on): each preset variant written under the key the built
// `dwfetch serve` looks up, so its first request for `pr:NAME` is a hit — no origin request, no transform.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class WarmTests: ServeTestCase {
    let key = "736563726574", salt = "68656C6C6F"

    /// `dwfetch warm ARGS` with `environment` added: its exit status, stdout and stderr.
    private func warm(_ args: [String], environment: [String: String]) throws -> (
        status: Int32, out: String, err: String
    ) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwwarm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try ProcessRun.run(
            ServeProcess.binary.path, ["warm", "--cache-dir", dir.appendingPathComponent("cache").path] + args,
            environment: environment)
        return (run.status, run.output, run.errors)
    }

    func testWarmThenServeAnswersEveryPresetWithoutTheOrigin() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 64, height: 48, seed: 1), contentType: "image/png"))
        origin.setRoute("/b.png", .ok(SampleImages.png(width: 40, height: 30, seed: 2), contentType: "image/png"))
        let moto = try MotoS3(bucket: "results")
        defer { moto.stop() }
        let sources = [origin.url("/a.png"), origin.url("/b.png")]
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString).txt")
        try ("# sources\n" + sources.joined(separator: "\n") + "\n\n").write(
            to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let flags = [
            "--allow-network", "127.0.0.1/32", "--s3-endpoint", moto.endpoint,
            "--result-storage", "s3://results/variants", "--preset", "thumb=rs:fit:16:16",
            "--preset", "card=rs:fill:20:10/q:70", "--preset", "default=sm:1"
        ]

        XCTAssertEqual(try warm(["--help"], environment: [:]).status, 0)
        let first = try warm(flags + ["-i", list.path], environment: moto.environment)
        XCTAssertEqual(first.status, 0, first.out + first.err)
        XCTAssertEqual(first.out.split(separator: "\n").filter { $0.hasPrefix("stored\t") }.count, 4, first.out)
        XCTAssertEqual(try moto.objects(prefix: "variants/").count, 4)
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 1)
        origin.resetStatistics()

        let server = try serve(flags, allowOrigin: false, environment: moto.environment)
        for source in sources {
            for preset in ["thumb", "card"] {
                let answer = try server.get(ProxyPath.plain(source, options: "pr:\(preset)"))
                XCTAssertEqual(answer.status, 200, answer.text)
            }
        }
        XCTAssertEqual(origin.requestLog.count, 0, "no origin request after warm")
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 0, "no transform after warm")
        XCTAssertEqual(try server.metric("dwserve_origin_fetches_total"), 0)
        XCTAssertEqual(try server.metric(#"dwserve_result_storage_total{outcome="hit"}"#), 4)

        // Warming again finds every variant stored; two shards split the list between them.
        var seen: [String] = []
        for shard in ["1/2", "2/2"] {
            let again = try warm(flags + ["-i", list.path, "--shard", shard], environment: moto.environment)
            XCTAssertEqual(again.status, 0, again.out + again.err)
            let lines = again.out.split(separator: "\n")
            XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("present\t") }, again.out)
            seen += lines.compactMap { $0.split(separator: "\t").last.map(String.init) }
        }
        XCTAssertEqual(Set(seen), Set(sources))
        XCTAssertEqual(seen.count, 4, "each source in one shard, once per preset")
        XCTAssertEqual(origin.requestLog.count, 0)

        // A source the origin lacks fails that variant, and the run exits 1.
        try (origin.url("/missing.png") + "\n").write(to: list, atomically: true, encoding: .utf8)
        let missing = try warm(flags + ["-i", list.path], environment: moto.environment)
        XCTAssertEqual(missing.status, 1, missing.out + missing.err)
        XCTAssertTrue(missing.out.contains("failed\tpr:thumb"), missing.out)
    }

    func testSignedWarmOnTheAdminListenerOnly() throws {
        origin.setRoute("/c.png", .ok(SampleImages.png(width: 50, height: 50, seed: 5), contentType: "image/png"))
        let moto = try MotoS3(bucket: "results")
        defer { moto.stop() }
        let flags = [
            "--key", key, "--salt", salt, "--s3-endpoint", moto.endpoint, "--result-storage", "s3://results/w",
            "--preset", "thumb=rs:fit:10:10"
        ]
        let server = try serve(flags, environment: moto.environment)
        let body = Array(#"{"sources": ["\#(origin.url("/c.png"))"], "presets": ["thumb", "nope"]}"#.utf8)
        let metrics = try XCTUnwrap(server.metricsPort)
        XCTAssertEqual(try post(metrics, body, signature: nil).status, 401)
        XCTAssertEqual(try post(metrics, body, signature: String(repeating: "0", count: 64)).status, 403)
        let publicAnswer = try HTTPClient.request(port: server.port, target: "/warm", method: "POST", body: body)
        XCTAssertTrue([404, 405].contains(publicAnswer.status), "never on the public port: \(publicAnswer.status)")
        XCTAssertEqual(origin.requestLog.count, 0, "nothing warmed by a refused request")
        XCTAssertEqual(try moto.objects(prefix: "w/").count, 0)

        let warmed = try post(metrics, body, signature: hmac(body))
        XCTAssertEqual(warmed.status, 200, warmed.text)
        let answer = try XCTUnwrap(JSONSerialization.jsonObject(with: warmed.body) as? [String: Any])
        XCTAssertEqual(answer["stored"] as? Int, 1, warmed.text)
        XCTAssertEqual(answer["failed"] as? Int, 1, "an unknown preset fails its variant: \(warmed.text)")
        XCTAssertEqual(try moto.objects(prefix: "w/").count, 1)

        // Another instance with the same flags answers the warmed variant from the store.
        origin.resetStatistics()
        let other = try serve(flags, environment: moto.environment)
        let path = "/pr:thumb/plain/" + origin.url("/c.png")
        let hit = try other.get("/" + ServeAttackTests.sign(path, key: key, salt: salt) + path)
        XCTAssertEqual(hit.status, 200, hit.text)
        XCTAssertEqual(origin.requestLog.count, 0)
        XCTAssertEqual(try other.metric("dwserve_transforms_total"), 0)
    }

    private func post(_ port: Int, _ body: [UInt8], signature: String?) throws -> HTTPResult {
        try AdminRequest.post(port, "/warm", body, signature: signature)
    }

    private func hmac(_ body: [UInt8]) -> String { AdminRequest.signature(of: body, keyHex: key) }
}
