// What an operator of imgproxy relies on, against the built server: `--log-format` (IMGPROXY_LOG_FORMAT) and
// X-Request-ID, imgproxy's metric names, CORS.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class LogFormatTests: ServeTestCase {
    func testJSONLinesCarryImgproxysFieldsAndTheRequestID() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 8, height: 8)))
        let server = try serve(["-v"], environment: ["IMGPROXY_LOG_FORMAT": "json"])
        let path = ProxyPath.plain(origin.url("/a.png"))
        let given = try server.get(path, headers: ["X-Request-ID": "req-42.a"])
        XCTAssertEqual(given.status, 200)
        XCTAssertEqual(given.header("X-Request-ID"), "req-42.a", "echoed")
        let forged = try server.get(path, headers: ["X-Request-ID": "x\" level=error"])
        let made = try XCTUnwrap(forged.header("X-Request-ID"))
        XCTAssertTrue(made.range(of: "^[0-9a-f]{20}$", options: .regularExpression) != nil, "a forged ID is replaced")
        var lines: [[String: Any]] = []
        _ = eventually(timeout: 10, interval: 0.02) {
            lines = server.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.filter { ($0["msg"] as? String)?.hasPrefix("Completed in ") == true }
            return lines.count >= 2
        }
        XCTAssertEqual(lines.count, 2, server.stdout)
        let first = try XCTUnwrap(lines.first)
        XCTAssertEqual(first["request_id"] as? String, "req-42.a")
        XCTAssertEqual(first["method"] as? String, "GET")
        XCTAssertEqual(first["status"] as? Int, 200)
        XCTAssertEqual(first["client_ip"] as? String, "127.0.0.1")
        XCTAssertEqual(first["image_url"] as? String, origin.url("/a.png"))
        XCTAssertEqual(first["level"] as? String, "info")
        XCTAssertTrue((first["msg"] as? String)?.hasSuffix(path) == true, "\(first)")
        XCTAssertEqual(lines.last?["request_id"] as? String, made)
        XCTAssertFalse(server.stdout.contains("level=error"), "the forged text reached no line")
    }

    func testStructuredIsLogfmtAndAnUnknownFormatIsAUsageError() throws {
        let server = try serve(["-v", "--log-format", "structured"])
        XCTAssertEqual(try server.get("/health").status, 200)
        _ = eventually(timeout: 10, interval: 0.02) { server.stdout.contains("msg=\"Completed in") }
        let line = try XCTUnwrap(server.stdout.split(separator: "\n").first { $0.contains("Completed in") })
        XCTAssertTrue(line.hasPrefix("time="), String(line))
        XCTAssertTrue(line.contains(" level=info msg=\"Completed in "), String(line))
        XCTAssertTrue(line.contains(" status=200"), String(line))
        XCTAssertThrowsError(try serve(["--log-format", "xml"]))
    }
}

/// imgproxy's metric names beside serve's own, under `--prometheus-namespace` (IMGPROXY_PROMETHEUS_NAMESPACE).
final class ImgproxyMetricsTests: ServeTestCase {
    func testImgproxysMetricsCountWhatServesDo() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 40, height: 30)))
        origin.setRoute("/gone.png", .status(404))
        let server = try serve(["--workers", "3"], environment: ["IMGPROXY_PROMETHEUS_NAMESPACE": "imgproxy"])
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/a.png"), options: "w:20")).status, 200)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/gone.png"))).status, 404)
        XCTAssertEqual(try server.get("/health").status, 200)
        let scrape = try HTTPClient.request(port: try XCTUnwrap(server.metricsPort), target: "/metrics").text
        XCTAssertTrue(scrape.contains(#"imgproxy_status_codes_total{status="404"}"#), scrape)
        XCTAssertFalse(scrape.contains(#"imgproxy_status_codes_total{status="304"}"#), "a status shows once it happens")
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/a.png"), options: "w:20")).status, 200)
        XCTAssertEqual(try server.metric("imgproxy_requests_total"), 3, "/health is not counted")
        XCTAssertEqual(try server.metric(#"imgproxy_status_codes_total{status="200"}"#), 2, "the same counter again")
        XCTAssertEqual(try server.metric(#"imgproxy_status_codes_total{status="404"}"#), 1)
        XCTAssertEqual(try server.metric(#"imgproxy_errors_total{type="downloading"}"#), 1)
        XCTAssertEqual(try server.metric("imgproxy_request_duration_seconds_count"), 3)
        XCTAssertEqual(try server.metric("imgproxy_download_duration_seconds_count"), 2)
        XCTAssertGreaterThanOrEqual(try server.metric("imgproxy_processing_duration_seconds_count"), 1)
        XCTAssertGreaterThanOrEqual(
            try server.metric(#"imgproxy_request_span_duration_seconds_count{span="processing_image"}"#), 1)
        XCTAssertGreaterThanOrEqual(
            try server.metric(#"imgproxy_request_span_duration_seconds_count{span="queue"}"#), 1,
            "the wait for a worker")
        XCTAssertEqual(try server.metric("imgproxy_workers"), 3)
        XCTAssertEqual(try server.metric("imgproxy_images_in_progress"), 0)
        XCTAssertEqual(try server.metric(#"dwserve_requests_total{status="200"}"#), 2, "serve's own stay")
        XCTAssertGreaterThan(try server.metric("imgproxy_vips_max_memory_bytes"), 0, "libvips' high-water mark")
    }

    func testAllowOriginAddsCORSHeadersAndAnswersPreflights() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 8, height: 8)))
        let server = try serve([], environment: ["IMGPROXY_ALLOW_ORIGIN": "https://app.example"])
        let image = try server.get(ProxyPath.plain(origin.url("/a.png")))
        XCTAssertEqual(image.header("Access-Control-Allow-Origin"), "https://app.example")
        let preflight = try server.get(ProxyPath.plain(origin.url("/a.png")), method: "OPTIONS")
        XCTAssertEqual(preflight.status, 200)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "GET, OPTIONS")
        let plain = try serve()
        XCTAssertNil(try plain.get(ProxyPath.plain(origin.url("/a.png"))).header("Access-Control-Allow-Origin"))
        XCTAssertEqual(
            try plain.get(ProxyPath.plain(origin.url("/a.png")), method: "OPTIONS").status, 405,
            "without it, OPTIONS stays refused")
    }

    func testCanonicalHeaderUserAgentAndRedirectLimitFromTheEnvironment() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 8, height: 8)))
        origin.setRoute("/r1.png", .redirect(to: origin.url("/r2.png")))
        origin.setRoute("/r2.png", .redirect(to: origin.url("/a.png")))
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_SET_CANONICAL_HEADER": "true",
                "IMGPROXY_USER_AGENT": "imgproxy-test/1", "IMGPROXY_MAX_REDIRECTS": "1"
            ])
        let image = try server.get(ProxyPath.plain(origin.url("/a.png")))
        XCTAssertEqual(image.header("Link"), "<\(origin.url("/a.png"))>; rel=\"canonical\"")
        XCTAssertEqual(origin.requestLog.last?.header("User-Agent"), "imgproxy-test/1")
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/r2.png"))).status, 200, "one redirect is allowed")
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/r1.png"))).status, 502, "two are one too many")
        let probed = try serve([], environment: ["IMGPROXY_HEALTH_CHECK_PATH": "/healthz"])
        XCTAssertEqual(try probed.get("/healthz").text, "ok")
        XCTAssertEqual(try probed.get("/health").status, 200)
    }
}
