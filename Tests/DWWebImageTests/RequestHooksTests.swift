// Request modifiers and redirect handlers against the in-process server: a token fetched asynchronously, a
// modifier that throws, a redirect refused (nothing reaches its target), rewritten, and credentials kept off
// another origin.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// A token service that answers asynchronously, a new token each time.
private actor TokenService {
    private var issued = 0
    func token() async -> String {
        await Task.yield()
        issued += 1
        return "token-\(issued)"
    }
}

private struct TokenUnavailable: Error, CustomStringConvertible {
    var description: String { "token service unavailable" }
}

final class RequestHooksTests: XCTestCase {
    private let png = SampleImages.png(width: 3, height: 2)

    func testModifierAddsAnAsynchronousTokenOncePerAttempt() throws {
        let tokens = TokenService()
        let h = try Harness {
            $0.retryCount = 1
            $0.retryDelay = 0
            $0.requestModifier = { request in
                var request = request
                request.setHeader("Authorization", "Bearer \(await tokens.token())")
                return request
            }
        }
        defer { h.close() }
        let seen = DWLock<[String]>([])
        h.server.setHandler("/auth.png") { [png] request in
            let auth = request.header("Authorization") ?? "-"
            let first = seen.withLock {
                $0.append(auth); return $0.count == 1
            }
            return first ? .status(503) : (auth == "Bearer token-2" ? .ok(png) : .status(401))
        }
        let image = try h.fetch(h.server.url("/auth.png"), options: [.noCache]).get()
        XCTAssertEqual(image.pixelWidth, 3)
        XCTAssertEqual(seen.value, ["Bearer token-1", "Bearer token-2"], "one fresh token per attempt")
    }

    func testManagerModifierRunsBeforeTheRequestsOwn() throws {
        let h = try Harness {
            $0.requestModifier = {
                var r = $0; r.setHeader("X-Order", "manager"); return r
            }
        }
        defer { h.close() }
        h.server.setHandler("/o.png") { [png] request in
            request.header("X-Order") == "manager,request" ? .ok(png) : .status(400)
        }
        let options: DWWebImageOptions = [
            .noCache,
            .requestModifier { request in
                var r = request
                r.setHeader("X-Order", (request.header("X-Order") ?? "") + ",request")
                return r
            }
        ]
        XCTAssertNoThrow(try h.fetch(h.server.url("/o.png"), options: options).get())
    }

    func testModifierThatThrowsFailsClearlyWithoutARequest() throws {
        let h = try Harness {
            $0.retryCount = 2; $0.retryDelay = 0
        }
        defer { h.close() }
        h.server.setRoute("/t.png", .ok(png))
        let url = h.server.url("/t.png")
        let error = try XCTUnwrap(
            h.fetch(url, options: [.noCache, .requestModifier { _ in throw TokenUnavailable() }]).error)
        XCTAssertEqual(error.code, .invalidURL)
        XCTAssertTrue(error.message.contains("token service unavailable"), error.message)
        XCTAssertEqual(error.url, url)
        // A DWWebImageError thrown by the modifier is delivered as it is.
        let own = DWWebImageError(.httpStatus, "login required", httpStatus: 401)
        let passed = try XCTUnwrap(h.fetch(url, options: [.noCache, .requestModifier { _ in throw own }]).error)
        XCTAssertEqual(passed.code, .httpStatus)
        XCTAssertEqual(passed.httpStatus, 401)
        XCTAssertEqual(passed.url, url)
        XCTAssertEqual(h.server.requestCount(path: "/t.png"), 0, "nothing was sent, nothing retried")
    }

    func testCancelWhileTheModifierWaits() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/c.png", .ok(png))
        let entered = DispatchSemaphore(value: 0)
        let box = ResultBox()
        let token = h.manager.downloadImage(
            withURL: h.server.url("/c.png"),
            options: [
                .noCache,
                .requestModifier { r in
                    entered.signal()
                    try await Task.sleep(for: .seconds(60))  // until the cancel cancels the task
                    return r
                }
            ]
        ) { box.set($0) }
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success)
        h.manager.cancel(token)
        XCTAssertEqual(box.wait(timeout: 10)?.error?.code, .cancelled)
        XCTAssertTrue(eventually { h.manager.activeDownloadCount == 0 }, "the download ended")
        XCTAssertEqual(h.server.requestCount(path: "/c.png"), 0)
    }

    func testRefusedRedirectReachesNothingAndSaysWhy() throws {
        let target = try LoopbackHTTPServer(routes: ["/t.png": .ok(png)])
        defer { target.shutdown() }
        let hops = DWLock<[DWRedirect]>([])
        let h = try Harness {
            $0.redirectHandler = { redirect in
                hops.withLock { $0.append(redirect) }
                return redirect.next.url.hasPrefix(target.baseURL) ? .refuse(reason: "host not allowed") : .follow
            }
        }
        defer { h.close() }
        h.server.setRoute("/a", .redirect(to: "/b", status: 301))
        h.server.setRoute("/b", .redirect(to: target.url("/t.png"), status: 307))
        let url = h.server.url("/a")
        let error = try XCTUnwrap(h.fetch(url, options: [.noCache]).error)
        XCTAssertEqual(error.code, .httpStatus)
        XCTAssertEqual(error.httpStatus, 307)
        XCTAssertEqual(error.refusedRedirect, target.url("/t.png"))
        XCTAssertEqual(error.url, url)
        XCTAssertTrue(error.message.contains("host not allowed"), error.message)
        XCTAssertEqual(hops.value.map(\.hop), [1, 2])
        XCTAssertEqual(hops.value.map(\.status), [301, 307])
        XCTAssertEqual(hops.value.first?.next.url, h.server.url("/b"), "relative Location resolved")
        XCTAssertEqual(target.acceptedConnections, 0, "nothing reached the refused target")
    }

    func testRewriteSendsAnotherRequest() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/old", .redirect(to: "/moved.png"))
        h.server.setHandler("/real.png") { [png] request in
            request.header("X-Rewritten") == "1" ? .ok(png) : .status(400)
        }
        let handler: DWRedirectHandler = { redirect in
            var next = redirect.next
            next.url = next.url.replacingOccurrences(of: "/moved.png", with: "/real.png")
            next.setHeader("X-Rewritten", "1")
            return .rewrite(next)
        }
        let image = try h.fetch(h.server.url("/old"), options: [.noCache, .redirectHandler(handler)]).get()
        XCTAssertEqual(image.pixelWidth, 3)
        XCTAssertEqual(h.server.requestedPaths, ["/old", "/real.png"])
        // A rewrite to another scheme is refused before anything is sent.
        let toFile: DWRedirectHandler = { _ in .rewrite(DWURLRequest(url: "file:///etc/passwd")) }
        XCTAssertEqual(
            h.fetch(h.server.url("/old"), options: [.noCache, .redirectHandler(toFile)]).error?.code,
            .invalidURL)
    }

    func testFollowedHopsKeepHeadersButNotCredentialsAcrossOrigins() throws {
        let other = try LoopbackHTTPServer()
        defer { other.shutdown() }
        let h = try Harness { $0.redirectHandler = { _ in .follow } }
        defer { h.close() }
        h.server.setRoute("/same", .redirect(to: "/same.png"))
        h.server.setRoute("/same.png", .ok(png))
        h.server.setRoute("/away", .redirect(to: other.url("/away.png")))
        other.setRoute("/away.png", .ok(png))
        let headers: DWWebImageOptions = [.noCache, .headers(["Authorization": "Bearer s3cret", "X-Trace": "7"])]
        XCTAssertNoThrow(try h.fetch(h.server.url("/same"), options: headers).get())
        XCTAssertNoThrow(try h.fetch(h.server.url("/away"), options: headers).get())
        let same = try XCTUnwrap(h.server.requestLog.first { $0.path == "/same.png" })
        XCTAssertEqual(same.header("Authorization"), "Bearer s3cret")
        let away = try XCTUnwrap(other.requestLog.first { $0.path == "/away.png" })
        XCTAssertNil(away.header("Authorization"), "credentials stay on their origin")
        XCTAssertEqual(away.header("X-Trace"), "7")
    }

    func testRedirectLimitHoldsWhenThePipelineFollows() throws {
        let h = try Harness { $0.redirectHandler = { _ in .follow } }
        defer { h.close() }
        h.server.setRoute("/loop", .redirect(to: "/loop"))
        let error = try XCTUnwrap(h.fetch(h.server.url("/loop"), options: [.noCache]).error)
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.curlCode, CurlCode.tooManyRedirects)
        XCTAssertEqual(h.server.requestCount(path: "/loop"), 11, "the first request and 10 redirects")
    }
}
