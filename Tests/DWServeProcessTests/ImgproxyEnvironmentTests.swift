// imgproxy's IMGPROXY_* environment read by the built `dwfetch serve`: the variables become flags, a flag on the
// command line wins, an unknown variable is a warning and one serve cannot honour a start-up error naming it.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ImgproxyEnvironmentTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    func testVariablesBecomeFlagsAndTheCommandLineWins() throws {
        origin.setRoute("/a.png", .ok(png))
        let environment = [
            "IMGPROXY_TTL": "60", "IMGPROXY_MAX_SRC_RESOLUTION": "0.001", "IMGPROXY_FOO_BAR": "1",
            "IMGPROXY_FALLBACK_IMAGE_TTL": "7", "IMGPROXY_LOG_LEVEL": "warn"
        ]
        let server = try serve([], environment: environment)
        let big = try server.get(ProxyPath.plain(origin.url("/a.png")))
        XCTAssertEqual(big.status, 422, "64×48 is over IMGPROXY_MAX_SRC_RESOLUTION's 0.001 MP: \(big.text)")
        XCTAssertTrue(server.stderr.contains("unknown IMGPROXY_FOO_BAR ignored"), server.stderr)
        XCTAssertEqual(server.stderr.components(separatedBy: "IMGPROXY_FOO_BAR").count, 2, "warned once")

        var lenient = environment
        lenient["IMGPROXY_MAX_SRC_RESOLUTION"] = "50"
        let flagWins = try serve(["--max-age", "120"], environment: lenient)
        let ok = try flagWins.get(ProxyPath.plain(origin.url("/a.png")))
        XCTAssertEqual(ok.status, 200, ok.text)
        XCTAssertEqual(ok.header("Cache-Control"), "public, max-age=120", "--max-age given: IMGPROXY_TTL not read")
        let fromEnvironment = try serve([], environment: lenient)
        XCTAssertEqual(
            try fromEnvironment.get(ProxyPath.plain(origin.url("/a.png"))).header("Cache-Control"),
            "public, max-age=60")
    }

    /// IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION bounds each frame of an animated source (from the header), not a
    /// still image of the same size; its 0 is imgproxy's "no separate limit".
    func testTheAnimationFrameResolutionBoundsAnimatedSourcesOnly() throws {
        origin.setRoute("/anim.gif", .ok(SampleImages.gif(width: 40, height: 40, frames: 3)))
        origin.setRoute("/still.gif", .ok(SampleImages.gif(width: 40, height: 40)))
        let server = try serve([], environment: ["IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "0.001"])
        let animated = try server.get(ProxyPath.plain(origin.url("/anim.gif"), options: "rs:fit:20:20"))
        XCTAssertEqual(animated.status, 422, "40×40 frames are over 0.001 MP: \(animated.text)")
        let still = try server.get(ProxyPath.plain(origin.url("/still.gif"), options: "rs:fit:20:20"))
        XCTAssertEqual(still.status, 200, "a still image is bounded by --max-pixels alone: \(still.text)")
        let unlimited = try serve([], environment: ["IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "0"])
        XCTAssertEqual(try unlimited.get(ProxyPath.plain(origin.url("/anim.gif"), options: "rs:fit:20:20")).status, 200)
    }

    func testAVariableServeCannotHonourOrParseStopsTheStartNamingIt() throws {
        for (name, value) in [
            ("IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS", "true"), ("IMGPROXY_WORKERS", "many"),
            ("IMGPROXY_SIGNATURE_SIZE", "33"), ("IMGPROXY_BIND", "nowhere")
        ] {
            let (status, text) = try ServeProcess.startFailure([], environment: [name: value])
            XCTAssertEqual(status, 2, "\(name)=\(value): \(text)")
            XCTAssertTrue(text.contains(name), text)
        }
    }

    /// The variables once refused at start, read now: URL options' defaults (RETURN_ATTACHMENT, STRIP_METADATA,
    /// AUTO_ROTATE…), MAX_RESULT_DIMENSION and USE_ETAG=false; the URL's own option still wins.
    func testOptionDefaultsAndTheResultDimensionFromTheEnvironment() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 64, height: 48)))
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_RETURN_ATTACHMENT": "true", "IMGPROXY_STRIP_METADATA": "false",
                "IMGPROXY_AUTO_ROTATE": "false",
                "IMGPROXY_KEEP_COPYRIGHT": "false", "IMGPROXY_STRIP_COLOR_PROFILE": "false",
                "IMGPROXY_ENFORCE_THUMBNAIL": "true", "IMGPROXY_MAX_RESULT_DIMENSION": "30",
                "IMGPROXY_USE_ETAG": "false"
            ])
        let small = try server.get(ProxyPath.plain(origin.url("/a.png"), options: "rs:fit:20:20"))
        XCTAssertEqual(small.status, 200, small.text)
        XCTAssertTrue(
            small.header("Content-Disposition")?.hasPrefix("attachment;") == true,
            small.header("Content-Disposition") ?? "none")
        XCTAssertNil(small.header("ETag"), "IMGPROXY_USE_ETAG=false")
        XCTAssertEqual(
            try server.get(
                ProxyPath.plain(origin.url("/a.png"), options: "rs:fit:20:20"),
                headers: ["If-None-Match": "*"]
            ).status, 200, "no ETag, no 304")
        let inline = try server.get(ProxyPath.plain(origin.url("/a.png"), options: "rs:fit:20:20/att:0"))
        XCTAssertFalse(inline.header("Content-Disposition")?.hasPrefix("attachment") == true, "the URL's att:0 wins")
        let large = try server.get(ProxyPath.plain(origin.url("/a.png"), options: "rs:fit:40:40"))
        XCTAssertEqual(large.status, 422, "40×30 is over IMGPROXY_MAX_RESULT_DIMENSION=30: \(large.text)")
    }

    /// IMGPROXY_PATH_PREFIX: every route under it, nothing outside it; `dwfetch health` asks under it too.
    func testThePathPrefixHoldsEveryRouteAndTheHealthProbeFollowsIt() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 64, height: 48)))
        let server = try serve([], environment: ["IMGPROXY_PATH_PREFIX": "/img/v1"])
        let image = ProxyPath.plain(origin.url("/a.png"), options: "rs:fit:20:20")
        XCTAssertEqual(try server.get("/img/v1" + image).status, 200)
        XCTAssertEqual(try server.get("/img/v1/health").status, 200)
        XCTAssertEqual(try server.get(image).status, 404, "outside the prefix")
        XCTAssertEqual(try server.get("/health").status, 404, "outside the prefix")
        func health(_ environment: [String: String]) throws -> Int32 {
            try ProcessRun.run(
                ServeProcess.binary.path, ["health", "--port", String(server.port)], environment: environment
            ).status
        }
        XCTAssertEqual(try health(["IMGPROXY_PATH_PREFIX": "/img/v1"]), 0)
        XCTAssertEqual(try health([:]), 1, "/health is not served outside the prefix")
    }

    /// `dwfetch health`, imgproxy's `imgproxy health`: 0 while a serve answers /health at IMGPROXY_BIND (or --port),
    /// 1 when nothing does.
    func testHealthProbesTheServerTheEnvironmentNames() throws {
        let server = try serve()
        func health(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
            try ProcessRun.run(ServeProcess.binary.path, ["health"] + arguments, environment: environment).status
        }
        XCTAssertEqual(try health([], ["IMGPROXY_BIND": "127.0.0.1:\(server.port)"]), 0)
        XCTAssertEqual(try health(["--port", String(server.port)], [:]), 0)
        let closed = try PeerProcess.freePort()
        XCTAssertEqual(try health([], ["IMGPROXY_BIND": ":\(closed)"]), 1, "nothing listens there")
    }

    /// IMGPROXY_REQUESTS_QUEUE_SIZE gets imgproxy's answer to a full queue, 429 (serve's own default is 503).
    func testARequestsQueueSizeAnswers429WhenTheQueueIsFull() throws {
        origin.setRoute("/big.png", .ok(SampleImages.png(width: 400, height: 400)))
        let server = try serve(
            ["--request-timeout", "120"],
            environment: ["IMGPROXY_WORKERS": "1", "IMGPROXY_REQUESTS_QUEUE_SIZE": "1"])
        let statuses = Recorder<Int>()
        let paths = (0..<6).map {
            ProxyPath.plain(origin.url("/big.png"), options: "rs:fit:1500:1500:1/sh:50/cb:\($0)")
        }
        let group = DispatchGroup()
        for path in paths {
            group.enter()
            Thread.detachNewThread {
                statuses.append((try? server.get(path).status) ?? -1)
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 150), .success)
        XCTAssertEqual(statuses.values.filter { $0 == 200 }.count, 2, "one running, one waiting: \(statuses.values)")
        XCTAssertEqual(statuses.values.filter { $0 == 429 }.count, 4, "\(statuses.values)")
    }
}
