// The response modifier against the in-process server: a 200 turned into a failure (no retry, nothing cached), a
// 200 and a redirect turned into a follow of another URL (cached under the request's own key), every head seen on
// the transfer thread with its headers, and maxRedirects holding a modifier that always follows.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class ResponseModifierTests: XCTestCase {
    private let png = SampleImages.png(width: 5, height: 4)

    func testA200IsTurnedIntoAFailureWithoutRetryOrCache() throws {
        let seen = DWLock<[DWURLResponse]>([])
        let threads = DWLock<Set<UInt>>([])  // pthread_self() of each call
        let policyThreads = DWLock<Set<UInt>>([])
        let h = try Harness {
            $0.retryCount = 2
            $0.retryDelay = 0
            $0.connectionPolicy = { _, _ in
                policyThreads.withLock { _ = $0.insert(UInt(pthread_self())) }
                return true
            }
            $0.responseModifier = { response in
                seen.withLock { $0.append(response) }
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                return response.header("x-verdict") == "blocked" ? .fail(reason: "blocked by policy") : .accept
            }
        }
        defer { h.close() }
        h.server.setRoute("/blocked.png", .ok(png, headers: [("X-Verdict", "blocked")]))
        h.server.setRoute("/fine.png", .ok(png))
        let url = h.server.url("/blocked.png")

        guard case .failure(let error) = h.fetch(url) else { return XCTFail("a refused 200 was delivered") }
        XCTAssertEqual(error.code, .httpStatus)
        XCTAssertEqual(error.httpStatus, 200)
        XCTAssertTrue(error.message.contains("blocked by policy"), error.message)
        XCTAssertEqual(h.server.requestCount(path: "/blocked.png"), 1, "never retried")
        if case .success = h.fetch(url, options: .fromCacheOnly) { XCTFail("a refused response was cached") }

        XCTAssertEqual(try h.fetch(h.server.url("/fine.png")).get().data, png)
        let heads = seen.withLock { $0 }
        XCTAssertEqual(heads.map(\.status), [200, 200])
        XCTAssertEqual(heads.first?.url, url)
        XCTAssertEqual(heads.first?.header("X-VERDICT"), "blocked", "names match case-insensitively")
        XCTAssertEqual(heads.last?.header("content-length"), "\(png.count)")
        XCTAssertEqual(threads.value.count, 1)
        XCTAssertEqual(threads.value, policyThreads.value, "on the transfer thread, as the connection policy")
    }

    func testA200AndARedirectAreTurnedIntoAFollow() throws {
        let h = try Harness {
            $0.responseModifier = { response in
                // A 200 that names the real image elsewhere, and a redirect to a dead end, both go to /real.png.
                if let real = response.header("X-Real-Image") { return .follow(url: real) }
                if response.status == 302 {
                    return .follow(url: response.url.replacingOccurrences(of: "/moved", with: "/real.png"))
                }
                return .accept
            }
        }
        defer { h.close() }
        h.server.setRoute("/real.png", .ok(png))
        h.server.setRoute(
            "/pointer", .ok(Data("see header".utf8), headers: [("X-Real-Image", h.server.url("/real.png"))]))
        h.server.setRoute("/moved", .redirect(to: h.server.url("/gone.png")))
        for path in ["/pointer", "/moved"] {
            let url = h.server.url(path)
            let image = try h.fetch(url).get()
            XCTAssertEqual(image.data, png, path)
            XCTAssertEqual(h.manager.imageFromMemory(withURL: url)?.data, png, "\(path): cached under its own key")
        }
        XCTAssertEqual(h.server.requestCount(path: "/real.png"), 2)
        XCTAssertEqual(h.server.requestCount(path: "/gone.png"), 0, "the redirect's own target is never asked")
    }

    func testMaxRedirectsHoldsAModifierThatAlwaysFollows() throws {
        let h = try Harness {
            $0.maxRedirects = 3
            $0.responseModifier = { .follow(url: $0.url) }
        }
        defer { h.close() }
        h.server.setRoute("/loop.png", .ok(png))
        guard case .failure(let error) = h.fetch(h.server.url("/loop.png")) else { return XCTFail("no loop detected") }
        XCTAssertEqual(error.code, .transport, "\(error)")
        XCTAssertEqual(h.server.requestCount(path: "/loop.png"), 4, "the request and three hops")
    }
}
