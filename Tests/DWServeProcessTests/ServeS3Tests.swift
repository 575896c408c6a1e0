// `serve --allow-s3 --s3-endpoint --result-storage` against moto's S3 server with IAM authentication on: s3://
// sources signed by libcurl, the store's refusals mapped, and variants shared between instances through the bucket.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ServeS3Tests: ServeTestCase {
    private let png = SampleImages.png(width: 64, height: 48)

    func testS3SourcesAndSharedResults() throws {
        let moto = try MotoS3(bucket: "images", objects: ["src.png": png])
        defer { moto.stop() }
        let flags = ["--allow-s3", "--s3-endpoint", moto.endpoint, "--result-storage", "s3://images/variants"]
        let a = try serve(flags, environment: moto.environment)
        let b = try serve(flags, environment: moto.environment)
        let path = ProxyPath.plain("s3://images/src.png", options: "rs:fit:32:32")

        // A fetches the s3 source (signed), transforms it once and writes the variant to the store.
        let first = try a.get(path)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(try a.metric("dwserve_transforms_total"), 1)
        XCTAssertEqual(try a.metric("dwserve_origin_fetches_total"), 1)
        XCTAssertTrue(
            try eventually(timeout: 10, interval: 0.05) {
                try a.metric(#"dwserve_result_storage_total{outcome="stored"}"#) == 1
            },
            "A wrote the variant: \(a.stderr)")
        let stored = try moto.objects(prefix: "variants/")
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored.values.first, first.body, "the store holds exactly the bytes A served")

        // B serves A's variant: no transform, no source fetch.
        let second = try b.get(path)
        XCTAssertEqual(second.status, 200, second.text)
        XCTAssertEqual(second.body, first.body)
        XCTAssertEqual(try b.metric("dwserve_transforms_total"), 0, "B made nothing")
        XCTAssertEqual(try b.metric("dwserve_origin_fetches_total"), 0, "B fetched no source")
        XCTAssertEqual(try b.metric(#"dwserve_result_storage_total{outcome="hit"}"#), 1)
        // Another signature, same variant: the key never holds the signature.
        XCTAssertEqual(
            try b.get(ProxyPath.plain("s3://images/src.png", options: "rs:fit:32:32", signature: "x")).body,
            first.body)
        XCTAssertEqual(try b.metric("dwserve_transforms_total"), 0)

        // The store's answers as mapped: a missing key → 404; a bucket this user may read but a key moto refuses
        // for a wrong secret → 403 from the store → 502 from serve.
        XCTAssertEqual(try a.get(ProxyPath.plain("s3://images/missing.png")).status, 404)
        var wrong = moto.environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let refused = try serve(["--allow-s3", "--s3-endpoint", moto.endpoint], environment: wrong)
        let bad = try refused.get(path)
        XCTAssertEqual(bad.status, 502, bad.text)
        XCTAssertTrue(bad.text.contains("403"), bad.text)
        // Without --allow-s3, s3:// sources are refused before anything is asked of the store.
        let closed = try serve(["--s3-endpoint", moto.endpoint], environment: moto.environment)
        XCTAssertEqual(try closed.get(path).status, 403)
        XCTAssertEqual(try closed.metric("dwserve_origin_fetches_total"), 0)
    }

    /// `s3://allowed/../other/key` (and the dot segments escaped once or twice) must not reach another bucket:
    /// libcurl would remove the dot segments and sign the normalised path, so S3 would answer with the other
    /// bucket's object although `--allow-host` names only the first.
    func testDotSegmentsInAnS3KeyNeverLeaveTheBucket() throws {
        let moto = try MotoS3(bucket: "allowed-bucket", objects: ["a.png": png])
        defer { moto.stop() }
        try moto.put(SampleImages.png(width: 5, height: 5), bucket: "secret-bucket", key: "private.png")
        let server = try serve(
            ["--allow-s3", "--s3-endpoint", moto.endpoint, "--allow-host", "allowed-bucket"],
            environment: moto.environment)
        XCTAssertEqual(try server.get(ProxyPath.plain("s3://allowed-bucket/a.png")).status, 200)
        XCTAssertEqual(try server.get(ProxyPath.plain("s3://secret-bucket/private.png")).status, 403)
        let escapes = [
            "s3://allowed-bucket/%2e%2e/secret-bucket/private.png",
            "s3://allowed-bucket/x/%2E%2E/%2e%2e/secret-bucket/private.png",
            "s3://allowed-bucket/.%2e/secret-bucket/private.png",
            "s3://allowed-bucket/./../secret-bucket/private.png"
        ]
        var targets = [
            "/insecure/plain/s3://allowed-bucket/../secret-bucket/private.png",  // sent as written
            "/insecure/plain/s3://allowed-bucket/%252e%252e/secret-bucket/private.png"
        ]
        targets += escapes.map { ProxyPath.plain($0) } + escapes.map { ProxyPath.encoded($0) }
        targets.append(ProxyPath.encoded("s3://allowed-bucket/../secret-bucket/private.png"))
        for target in targets {
            let response = try server.get(target)
            XCTAssertEqual(response.status, 400, "\(target): \(response.status) \(response.text)")
        }
        XCTAssertEqual(try server.metric("dwserve_origin_fetches_total"), 1, "only the allowed object was asked for")
    }

    /// The shared store is keyed by the fetch policy too: a variant made by an instance whose `--allow-network` is
    /// looser is never served by a stricter one (it is made again there, under the stricter policy). The store's
    /// client ignores environment proxies, as the pipeline does.
    func testAVariantMadeUnderALooserPolicyIsNotSharedWithAStricterInstance() throws {
        let moto = try MotoS3(bucket: "images", objects: ["src.png": png])
        defer { moto.stop() }
        var environment = moto.environment
        environment["http_proxy"] = "http://127.0.0.1:1"  // nothing listens there: a proxy used would fail the store
        let flags = ["--allow-s3", "--s3-endpoint", moto.endpoint, "--result-storage", "s3://images/variants"]
        let loose = try serve(flags + ["--allow-network", "10.0.0.0/8"], environment: environment)
        let strict = try serve(flags, environment: environment)
        let same = try serve(flags, environment: environment)
        let path = ProxyPath.plain("s3://images/src.png", options: "rs:fit:24:24")
        XCTAssertEqual(try loose.get(path).status, 200)
        XCTAssertTrue(
            try eventually(timeout: 10, interval: 0.05) {
                try loose.metric(#"dwserve_result_storage_total{outcome="stored"}"#) == 1
            },
            "the loose instance wrote its variant: \(loose.stderr)")
        XCTAssertEqual(try strict.get(path).status, 200)
        XCTAssertEqual(try strict.metric(#"dwserve_result_storage_total{outcome="hit"}"#), 0, "not the loose variant")
        XCTAssertEqual(try strict.metric("dwserve_transforms_total"), 1, "made here, under this policy")
        XCTAssertTrue(
            try eventually(timeout: 10, interval: 0.05) {
                try strict.metric(#"dwserve_result_storage_total{outcome="stored"}"#) == 1
            })
        XCTAssertEqual(try same.get(path).status, 200)
        XCTAssertEqual(try same.metric(#"dwserve_result_storage_total{outcome="hit"}"#), 1, "same policy: shared")
        XCTAssertEqual(try same.metric("dwserve_transforms_total"), 0)
    }

    func testStoreDownDegradesToLocalWork() throws {
        origin.setRoute("/p.png", .ok(png))
        let deadPort = try PeerProcess.freePort()  // nothing listens there
        let server = try serve(
            ["--s3-endpoint", "http://127.0.0.1:\(deadPort)", "--result-storage", "s3://images/v"],
            environment: ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"])
        let path = ProxyPath.plain(origin.url("/p.png"), options: "w:16")
        for _ in 0..<2 {
            let response = try server.get(ProxyPath.plain(origin.url("/p.png"), options: "w:32"))
            XCTAssertEqual(response.status, 200, response.text)
        }
        let response = try server.get(path)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertTrue(
            try eventually(timeout: 10, interval: 0.05) {
                try server.metric(#"dwserve_result_storage_total{outcome="error"}"#) >= 3
            },
            "lookups and writes that failed are counted")
        XCTAssertEqual(try server.metric(#"dwserve_requests_total{status="200"}"#), 3)
        XCTAssertTrue(server.stderr.contains("result storage"), "and logged: \(server.stderr)")
    }
}
