// `serve --origins FILE`: named origins addressed as NAME://PATH, each with its own headers, allowed networks or S3
// credentials, which reach that origin only and appear nowhere else (answers, logs, metrics).
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class NamedOriginTests: ServeTestCase {
    private let png = SampleImages.png(width: 64, height: 48)

    /// Writes `text` to a temporary origins file and returns its path.
    private func originsFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("origins-\(UUID().uuidString).toml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    /// Everything a client or operator can read of `server`: the answers given, its stderr, its metrics.
    private func visibleText(_ server: ServeProcess, answers: [HTTPResult]) throws -> String {
        let metrics = try HTTPClient.request(port: try XCTUnwrap(server.metricsPort), target: "/metrics")
        var text = server.stderr + server.stdout + metrics.text
        for answer in answers {
            text += answer.headers.map { "\($0.0): \($0.1)\n" }.joined() + String(decoding: answer.body, as: UTF8.self)
        }
        return text
    }

    func testHeadersAndNetworksReachOnlyTheirOrigin() throws {
        let other = try LoopbackHTTPServer()
        defer { other.shutdown() }
        origin.setRoute("/img/cat.png", .ok(png, contentType: "image/png"))
        origin.setRoute("/img/away.png", .redirect(to: other.url("/pics/cat.png")))
        other.setRoute("/pics/cat.png", .ok(png, contentType: "image/png"))
        let file = try originsFile(
            """
            [origins.alpha]
            url = "\(origin.url("/img"))"
            headers = { "X-Api-Key" = "alpha-secret-7f3a", Referer = "https://shop.example/" }
            allow_network = ["127.0.0.1/32"]

            [origins.beta]
            url = "\(other.url("/pics/"))"
            allow_network = ["127.0.0.1/32"]
            """)
        // No --allow-network: 127.0.0.1 is reachable only through the origins that allow it.
        let server = try serve(["--origins", file, "--verbose", "--log-format", "structured"], allowOrigin: false)
        var answers: [HTTPResult] = []

        let alpha = try server.get(ProxyPath.plain("alpha://cat.png"))
        XCTAssertEqual(alpha.status, 200, alpha.text)
        XCTAssertEqual(alpha.body, png)
        let beta = try server.get(ProxyPath.plain("beta://cat.png", options: "rs:fit:16:16"))
        XCTAssertEqual(beta.status, 200, beta.text)
        answers += [alpha, beta]
        let atAlpha = try XCTUnwrap(origin.requestLog.first { $0.path == "/img/cat.png" })
        XCTAssertEqual(atAlpha.header("X-Api-Key"), "alpha-secret-7f3a")
        XCTAssertEqual(atAlpha.header("Referer"), "https://shop.example/")
        XCTAssertEqual(other.requestLog.map(\.path), ["/pics/cat.png"])
        for request in other.requestLog {
            XCTAssertNil(request.header("X-Api-Key"), "alpha's header reached beta's server")
            XCTAssertNil(request.header("Referer"))
        }

        // A redirect away from alpha's host is refused before anything (its headers above all) reaches the target.
        let away = try server.get(ProxyPath.plain("alpha://away.png"))
        XCTAssertEqual(away.status, 403, away.text)
        XCTAssertEqual(other.requestLog.count, 1, "the redirect target was never asked")
        XCTAssertFalse(
            other.requestLog.contains { $0.header("X-Api-Key") != nil }, "alpha's header followed a redirect")
        // alpha's allow_network is alpha's only: the same server by URL is refused by the SSRF guard.
        let direct = try server.get(ProxyPath.plain(origin.url("/img/cat.png")))
        XCTAssertEqual(direct.status, 403, direct.text)
        answers += [away, direct]

        // Paths that could leave the base URL, and names no origin has: 400, nothing fetched.
        let before = origin.requestLog.count + other.requestLog.count
        for source in [
            "alpha://../cat.png", "alpha://x/../../cat.png", "alpha://%2e%2e/cat.png", "alpha://%252E%252E/x",
            "beta://.%2E/img/cat.png", "alpha://", "gamma://cat.png", "Alpha://cat.png"
        ] {
            for target in [ProxyPath.plain(source), ProxyPath.encoded(source)] {
                let refused = try server.get(target)
                XCTAssertEqual(refused.status, 400, "\(source): \(refused.status) \(refused.text)")
                answers.append(refused)
            }
        }
        XCTAssertEqual(origin.requestLog.count + other.requestLog.count, before)

        // /info reads the named source the same way.
        let info = try server.get(
            "/info/insecure/plain/"
                + "alpha://cat.png".replacingOccurrences(of: "/", with: "%2F")
                .replacingOccurrences(of: ":", with: "%3A"))
        XCTAssertEqual(info.status, 200, info.text)
        XCTAssertTrue(info.text.contains("\"width\":64"), info.text)
        answers.append(info)

        // The cache key is the name: asking again costs no request to the origin.
        XCTAssertEqual(try server.get(ProxyPath.plain("alpha://cat.png", options: "rs:fit:8:8")).status, 200)
        XCTAssertEqual(origin.requestCount(path: "/img/cat.png"), 1)

        let visible = try visibleText(server, answers: answers)
        XCTAssertTrue(visible.contains("alpha://cat.png"), "the access log names the source by its name:\n\(visible)")
        for secret in ["alpha-secret-7f3a", "shop.example"] {
            XCTAssertFalse(visible.contains(secret), "\(secret) leaked:\n\(visible)")
        }
    }

    func testS3OriginsWithTheirOwnCredentials() throws {
        let one = try MotoS3(bucket: "one-bucket", objects: ["photos/a.png": png])
        defer { one.stop() }
        let small = SampleImages.png(width: 5, height: 7)
        let two = try MotoS3(bucket: "two-bucket", objects: ["b.png": small])
        defer { two.stop() }
        let file = try originsFile(
            """
            [origins.one]
            s3 = "s3://one-bucket/photos"
            endpoint = "\(one.endpoint)"
            access_key_id_env = "ONE_KEY"
            secret_access_key_env = "ONE_SECRET"

            [origins.two]
            s3 = "s3://two-bucket"
            endpoint = "\(two.endpoint)"
            region = "us-east-1"
            access_key_id_env = "TWO_KEY"
            secret_access_key_env = "TWO_SECRET"

            [origins.crossed]
            s3 = "s3://two-bucket"
            endpoint = "\(two.endpoint)"
            access_key_id_env = "ONE_KEY"
            secret_access_key_env = "ONE_SECRET"
            """)
        let environment = [
            "ONE_KEY": one.accessKeyID, "ONE_SECRET": one.secretAccessKey,
            "TWO_KEY": two.accessKeyID, "TWO_SECRET": two.secretAccessKey,
            "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""
        ]
        // No --allow-s3: named S3 origins need none; plain s3:// sources stay refused.
        let server = try serve(["--origins", file, "--verbose"], allowOrigin: false, environment: environment)
        var answers: [HTTPResult] = []

        let a = try server.get(ProxyPath.plain("one://a.png"))
        XCTAssertEqual(a.status, 200, a.text)
        XCTAssertEqual(a.body, png)
        let b = try server.get(ProxyPath.plain("two://b.png", options: "rs:fit:4:4"))
        XCTAssertEqual(b.status, 200, b.text)
        let missing = try server.get(ProxyPath.plain("one://missing.png"))
        XCTAssertEqual(missing.status, 404, missing.text)
        // one's credentials are wrong for two's store: a clean 502 saying the store refused, nothing more.
        let crossed = try server.get(ProxyPath.plain("crossed://b.png"))
        XCTAssertEqual(crossed.status, 502, crossed.text)
        XCTAssertEqual(
            crossed.text.trimmingCharacters(in: .whitespacesAndNewlines), "502 Bad Gateway: origin answered 403")
        let plain = try server.get(ProxyPath.plain("s3://one-bucket/photos/a.png"))
        XCTAssertEqual(plain.status, 403, plain.text)
        let escape = try server.get(ProxyPath.plain("one://../../two-bucket/b.png"))
        XCTAssertEqual(escape.status, 400, escape.text)
        answers += [a, b, missing, crossed, plain, escape]

        let visible = try visibleText(server, answers: answers)
        for secret in [one.secretAccessKey, two.secretAccessKey, one.accessKeyID, two.accessKeyID] {
            XCTAssertFalse(visible.contains(secret), "a credential leaked:\n\(visible)")
        }
    }

    func testDefaultOriginAndStartErrors() throws {
        origin.setRoute("/base/dir/cat.png", .ok(png, contentType: "image/png"))
        let file = try originsFile(
            """
            [origins.default]
            url = "\(origin.url("/base"))"
            allow_network = ["127.0.0.1/32"]
            """)
        let server = try serve(["--origins", file], allowOrigin: false)
        let schemeless = try server.get(ProxyPath.plain("dir/cat.png"))
        XCTAssertEqual(schemeless.status, 200, schemeless.text)
        XCTAssertEqual(schemeless.body, png)
        XCTAssertEqual(try server.get(ProxyPath.plain("default://dir/cat.png")).status, 200)
        XCTAssertEqual(origin.requestCount(path: "/base/dir/cat.png"), 1, "one cache entry: default://dir/cat.png")

        let both = try ServeProcess.startFailure(["--origins", file, "--base-url", "http://example.com/"])
        XCTAssertEqual(both.status, 2, both.stderr)
        XCTAssertTrue(both.stderr.contains("--base-url"), both.stderr)
        let viaEnvironment = try ServeProcess.startFailure(
            ["--origins", file],
            environment: ["IMGPROXY_BASE_URL": "http://example.com/"])
        XCTAssertEqual(viaEnvironment.status, 2, viaEnvironment.stderr)

        let unset = try originsFile(
            """
            [origins.store]
            s3 = "s3://bucket/prefix"
            endpoint = "http://127.0.0.1:9"
            access_key_id_env = "DW_TEST_UNSET_KEY_ID"
            secret_access_key_env = "DW_TEST_UNSET_SECRET"
            """)
        let missing = try ServeProcess.startFailure(["--origins", unset])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("DW_TEST_UNSET_KEY_ID"), missing.stderr)
        for bad in [
            "[origins.x]\nurl = \"http://a.example\"\nallow_networks = [\"10.0.0.0/8\"]\n",
            "[origins.http]\nurl = \"http://a.example\"\n", "[origins.x]\nurl = \"ftp://a.example\"\n",
            "[origins.x]\ns3 = \"s3://bucket/p\"\nheaders = { A = \"b\" }\n", "[origins.x\n"
        ] {
            let refused = try ServeProcess.startFailure(["--origins", try originsFile(bad)])
            XCTAssertEqual(refused.status, 2, "\(bad): \(refused.stderr)")
        }
    }
}
