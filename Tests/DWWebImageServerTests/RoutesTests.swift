// The server's routes through HummingbirdTesting's router framework (no socket), the origin a real DWTestServer.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

final class RoutesTests: XCTestCase {
    var origin: LoopbackHTTPServer!
    var cacheRoot: URL!
    let png = SampleImages.png(width: 64, height: 48)

    override func setUpWithError() throws {
        origin = try LoopbackHTTPServer()
        cacheRoot = FileManager.default.temporaryDirectory.appendingPathComponent("dwroutes-\(UUID().uuidString)")
    }

    override func tearDown() {
        origin.shutdown()
        try? FileManager.default.removeItem(at: cacheRoot)
    }

    func server(_ change: (inout DWServeConfiguration) -> Void = { _ in }) throws -> DWImageServer {
        var configuration = DWServeConfiguration()
        configuration.cacheDirectory = cacheRoot.appendingPathComponent(UUID().uuidString)
        configuration.allowedNetworks = [try XCTUnwrap(DWCIDR("127.0.0.1/32"))]
        configuration.tunesMalloc = false
        change(&configuration)
        return DWImageServer(configuration: configuration)
    }

    /// What `run()` serves: every route plus 405 for other methods, image requests past the router's trie.
    func standaloneApp(_ server: DWImageServer) -> some ApplicationProtocol {
        Application(responder: server.serveResponder())
    }

    func plain(_ path: String, options: String = "") -> String {
        let source = origin.url(path).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/insecure" + (options.isEmpty ? "" : "/" + options) + "/plain/" + source
    }

    func testHealthMetricsAndMethods() async throws {
        let server = try server()
        try await standaloneApp(server).test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(String(buffer: response.body), "ok")
            }
            try await client.execute(uri: "/health", method: .head) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.body.readableBytes, 0)
            }
            try await client.execute(uri: "/whatever/plain/x", method: .post) { response in
                XCTAssertEqual(response.status, .methodNotAllowed)
                XCTAssertEqual(String(buffer: response.body), "405 Method Not Allowed: only GET and HEAD are served\n")
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertEqual(response.status, .notFound, "only on --metrics-bind's listener")
            }
            let text = server.metricsText()
            XCTAssertTrue(text.contains("dwserve_requests_total{status=\"405\"} 1"), text)
            XCTAssertTrue(text.contains("dwserve_requests_total{status=\"200\"} 0"), "probes are not counted")
        }
    }

    func testImageRouteServesTransformsAndMapsErrors() async throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try server()
        let image = plain("/a.png")
        let resized = plain("/a.png", options: "rs:fit:32:32")
        let missing = plain("/missing.png")
        let png = png
        let served = try await standaloneApp(server).test(.router) { client in
            var served = try await client.execute(uri: image, method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(Data(response.body.readableBytesView), png)
                XCTAssertEqual(response.headers[.contentType], "image/png")
                XCTAssertNotNil(response.headers[.eTag])
                return response.body.readableBytes
            }
            served += try await client.execute(uri: resized, method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let out = try DWImage(data: Data(response.body.readableBytesView))
                XCTAssertEqual([out.pixelWidth, out.pixelHeight], [32, 24])
                return response.body.readableBytes
            }
            try await client.execute(uri: resized, method: .head) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.body.readableBytes, 0, "HEAD: no body, no bytes counted")
            }
            served += try await client.execute(uri: missing, method: .get) { response in
                XCTAssertEqual(response.status, .notFound)
                XCTAssertEqual(String(buffer: response.body), "404 Not Found: origin answered 404\n")
                return response.body.readableBytes
            }
            served += try await client.execute(uri: "/insecure/rs:sideways/plain/x", method: .get) { response in
                XCTAssertEqual(response.status, .badRequest)
                return response.body.readableBytes
            }
            return served
        }
        let metrics = server.metricsText()
        XCTAssertTrue(metrics.contains("dwserve_response_bytes_total \(served)\n"), "every body sent, counted")
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 1, "the resize came from the cached original")
    }

    func testLimitsArePerServerNotGlobal() async throws {
        let before = DWImageProcessing.limits
        let tight = try server { $0.maxPixels = 1000 }
        let roomy = try server()
        XCTAssertEqual(tight.limits.maxPixelCount, 1000)
        XCTAssertEqual(roomy.limits.maxPixelCount, 50_000_000)
        XCTAssertEqual(DWImageProcessing.limits, before, "making a server changes no process-wide setting")
        // The engine checks the limits it is given for this call only.
        let source = try DWImage(data: png)
        XCTAssertThrowsError(
            try DWImageProcessing.process(
                source, with: DWResize(width: 8, height: 8),
                limits: tight.limits)
        ) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .tooLarge)
        }
        XCTAssertNoThrow(
            try DWImageProcessing.process(source, with: DWResize(width: 8, height: 8), limits: roomy.limits))
        XCTAssertNoThrow(try DWResize(width: 8, height: 8).process(source), "outside the call the global limits apply")
    }

    /// An application of its own with one route, the image routes mounted under /images: both answer.
    func testEmbeddingInAnotherApplication() async throws {
        origin.setRoute("/e.png", .ok(png))
        let server = try server()
        let router = Router()
        router.get("hello") { _, _ in "hello from the app" }
        server.addRoutes(to: router, at: "images")
        let app = Application(router: router)
        let image = "/images" + plain("/e.png", options: "w:16")
        try await app.test(.router) { client in
            try await client.execute(uri: "/hello", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(String(buffer: response.body), "hello from the app")
            }
            try await client.execute(uri: image, method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let out = try DWImage(data: Data(response.body.readableBytesView))
                XCTAssertEqual(out.pixelWidth, 16)
            }
            try await client.execute(uri: "/images/health", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/hello", method: .post) { response in
                XCTAssertEqual(response.status, .notFound, "the app's other methods stay the app's business")
            }
        }
    }
}
