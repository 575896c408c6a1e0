// The standalone server's responder: image requests past the router's trie, answered exactly as the router answers.
import DWLocking
import DWTestServer
import DWWebImage
@testable import DWWebImageServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import XCTest

final class ServeResponderTests: XCTestCase {
    var origin: LoopbackHTTPServer!
    var cacheRoot: URL!

    override func setUpWithError() throws {
        origin = try LoopbackHTTPServer()
        origin.setRoute("/r.png", .ok(SampleImages.png(width: 64, height: 48)))
        cacheRoot = FileManager.default.temporaryDirectory.appendingPathComponent("dwresponder-\(UUID().uuidString)")
    }

    override func tearDown() {
        origin.shutdown()
        try? FileManager.default.removeItem(at: cacheRoot)
    }

    func server(prefix: String) throws -> DWImageServer {
        var configuration = DWServeConfiguration()
        configuration.cacheDirectory = cacheRoot.appendingPathComponent(UUID().uuidString)
        configuration.allowedNetworks = [try XCTUnwrap(DWCIDR("127.0.0.1/32"))]
        configuration.tunesMalloc = false
        configuration.pathPrefix = prefix
        configuration.healthCheckPath = "/status/ping"
        configuration.thumbor.allowUnsafe = true  // its /healthcheck route
        return DWImageServer(configuration: configuration)
    }

    /// Which raw targets surely belong to the image route; anything unsure goes to the router.
    func testImagePathDecision() {
        let named: Set<String> = ["health", "metrics", "info", "healthcheck", "status"]
        for (path, base, expected) in [
            ("/insecure/rs:fit:512:512/plain/http%3A%2F%2Fh%2Fa.jpg@jpg", "", true),
            ("/sig/w:10/aHR0cDovL2g", "", true),
            ("/insecure/plain/x?v=1", "", true),
            ("/healthz", "", true),  // a different word: not the health route
            ("/Health", "", true),  // the router compares case: /Health is the image route there too
            ("/health", "", false), ("/health?probe=1", "", false), ("/health/", "", false),
            ("/info/insecure/plain/x", "", false), ("/metrics", "", false), ("/healthcheck", "", false),
            ("/status/ping", "", false),
            ("/", "", false), ("//insecure/plain/x", "", false), ("", "", false),
            ("/%68ealth", "", false),  // percent-encoded: left to the router
            ("http://host/insecure/plain/x", "", false),  // absolute form: the router reads its path
            ("/images/insecure/plain/x", "/images", true),
            ("/images/health", "/images", false),
            ("/images", "/images", false), ("/images/", "/images", false),
            ("/imagesx/insecure/plain/x", "/images", false), ("/insecure/plain/x", "/images", false)
        ] {
            XCTAssertEqual(
                DWServeResponder.isImagePath(path, base: base, named: named), expected, "\(path) below \(base)")
        }
        XCTAssertFalse(DWServeResponder.isImagePath(nil, base: "", named: named))
    }

    /// What the routes collect: the image route's responder for GET and HEAD, and every other route's first word.
    func testRoutesKeepTheImageResponderAndTheOtherRoutesNames() throws {
        for (prefix, endpoint) in [("", "/**"), ("/images/", "/images/**")] {
            let responder = try server(prefix: prefix).serveResponder()
            XCTAssertEqual(Set(responder.images.keys), [.get, .head], prefix)
            XCTAssertEqual(responder.named, ["health", "status", "healthcheck", "metrics", "info"], prefix)
            XCTAssertEqual(responder.endpointPath, endpoint)
            XCTAssertEqual(responder.base, prefix.isEmpty ? "" : "/images")
        }
        // A pattern route below the prefix (a wildcard here) could take many first words: no shortcut at all.
        let routes = DWServeRoutes(router: Router(context: DWRequestContext.self), prefix: "")
        routes.get("*.txt") { _, _ in "text" }
        try server(prefix: "").mount(on: routes, at: "", refusingOtherMethods: true)
        XCTAssertTrue(routes.responder().images.isEmpty)
    }

    /// Records the route the router (or the shortcut) chose, as the request span's middleware reads it.
    struct RouteRecorder: RouterMiddleware {
        typealias Context = DWRequestContext
        let routes: RouteLog
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            let response = try await next(request, context)
            routes.append(context.endpointPath ?? "none")
            return response
        }
    }

    final class RouteLog: Sendable {
        private let entries = DWLock([String]())
        func append(_ route: String) { entries.withLock { $0.append(route) } }
        /// The route of the last request, forgotten once read.
        func take() -> String { entries.withLock { $0.popLast() } ?? "none" }
    }

    /// Every kind of request answers the same through the shortcut as through the router alone: status, body,
    /// headers but the date and request ID, and the route its middleware sees.
    func testShortcutAnswersAsTheRouterDoes() async throws {
        let source = origin.url("/r.png").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        for prefix in ["", "images"] {
            let server = try server(prefix: prefix)
            let base = prefix.isEmpty ? "" : "/" + prefix
            let (viaRouter, viaShortcut) = (RouteLog(), RouteLog())
            let router = Router(context: DWRequestContext.self)
            router.add(middleware: RouteRecorder(routes: viaRouter))
            server.mount(on: router, at: prefix, refusingOtherMethods: true)
            let routes = DWServeRoutes(router: Router(context: DWRequestContext.self), prefix: prefix)
            routes.add(middleware: RouteRecorder(routes: viaShortcut))
            server.mount(on: routes, at: prefix, refusingOtherMethods: true)
            let shortcut = routes.responder()
            XCTAssertFalse(shortcut.images.isEmpty)
            let requests: [(String, HTTPRequest.Method)] = [
                (base + "/insecure/rs:fit:16:16/plain/" + source, .get),
                (base + "/insecure/rs:fit:16:16/plain/" + source, .head),
                (base + "/insecure/rs:fit:16:16/plain/" + source + "?x=1", .get),
                (base + "/insecure/rs:fit:16:16/plain/" + source, .post),
                (base + "/insecure/w:abc/plain/" + source, .get),  // a 400 from the image route
                (base + "/health", .get), (base + "/status/ping", .head), (base + "/metrics", .get),
                (base + "/healthcheck", .get), (base + "/info/insecure/plain/" + source, .get),
                (base + "/%68ealth", .get), (base + "/", .get), (base + "//insecure/plain/x", .get),
                ("/elsewhere/insecure/plain/" + source, .get),
                (base + "/insecure/rs:fit:16:16/plain/" + source, .get)  // after every bad one, a good one
            ]
            var answers: [[String]] = []
            for app in [AnyResponder(router.buildResponder()), AnyResponder(shortcut)] {
                let log = app.isShortcut ? viaShortcut : viaRouter
                answers.append(
                    try await Application(responder: app).test(.router) { client in
                        var these: [String] = []
                        for (uri, method) in requests {
                            these.append(
                                try await client.execute(uri: uri, method: method) { response in
                                    var fields = response.headers
                                    fields[.date] = nil
                                    fields[HTTPField.Name("X-Request-ID")!] = nil  // new per request
                                    return "\(method) \(uri): \(response.status.code) \(fields) "
                                        + "\(response.body.readableBytes) bytes, route \(log.take())"
                                })
                        }
                        return these
                    })
            }
            XCTAssertEqual(answers[0].count, requests.count)
            for (router, shortcut) in zip(answers[0], answers[1]) { XCTAssertEqual(shortcut, router) }
            for answer in [answers[1][0], answers[1][requests.count - 1]] {
                XCTAssertTrue(answer.contains(" 200 ") && answer.hasSuffix("route \(base)/**"), answer)
            }
        }
    }

    /// Either responder behind one type, for one Application type in the loop above.
    struct AnyResponder: HTTPResponder {
        let wrapped: any HTTPResponder<DWRequestContext>
        let isShortcut: Bool
        init(_ router: RouterResponder<DWRequestContext>) { (wrapped, isShortcut) = (router, false) }
        init(_ shortcut: DWServeResponder) { (wrapped, isShortcut) = (shortcut, true) }
        func respond(to request: Request, context: DWRequestContext) async throws -> Response {
            try await wrapped.respond(to: request, context: context)
        }
    }
}
