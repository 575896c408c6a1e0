// imgproxy's IMGPROXY_USE_LAST_MODIFIED and IMGPROXY_CACHE_CONTROL_PASSTHROUGH in the built `dwfetch serve`: the
// origin's Last-Modified (and the 304 it allows) and its Cache-Control on image answers.
import DWTestServer
import Foundation
import XCTest

final class OriginHeadersServeTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)
    let modified = "Wed, 21 Oct 2015 07:28:00 GMT"

    func testUseLastModifiedCarriesTheSourcesAndAnswersNotModifiedWhenNotOlder() throws {
        origin.setRoute("/lm.png", .ok(png, contentType: "image/png", headers: [("Last-Modified", modified)]))
        let server = try serve([], environment: ["IMGPROXY_USE_LAST_MODIFIED": "true"])
        let variant = ProxyPath.plain(origin.url("/lm.png"), options: "rs:fit:32:32")
        let first = try server.get(variant)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.header("Last-Modified"), modified, "the source's, as the origin sent it")
        for since in [modified, "Thu, 22 Oct 2015 07:28:00 GMT"] {
            let again = try server.get(variant, headers: ["If-Modified-Since": since])
            XCTAssertEqual(again.status, 304, "If-Modified-Since \(since) is not older")
            XCTAssertTrue(again.body.isEmpty)
            XCTAssertEqual(again.header("Last-Modified"), modified)
        }
        let older = try server.get(variant, headers: ["If-Modified-Since": "Tue, 20 Oct 2015 07:28:00 GMT"])
        XCTAssertEqual(older.status, 200)
        XCTAssertEqual(older.body, first.body)
        let original = try server.get(ProxyPath.plain(origin.url("/lm.png")))
        XCTAssertEqual(original.header("Last-Modified"), modified, "the source without options too")
        XCTAssertEqual(origin.requestCount(path: "/lm.png"), 1, "read back from the cache, not asked again")

        let off = try serve(["--max-age", "60"])  // imgproxy's default: no Last-Modified, If-Modified-Since ignored
        let plain = try off.get(variant, headers: ["If-Modified-Since": modified])
        XCTAssertEqual(plain.status, 200)
        XCTAssertNil(plain.header("Last-Modified"))
    }

    func testCacheControlPassthroughGivesTheOriginsCacheControlWhenItSentOne() throws {
        let cacheControl = "public, max-age=1234, s-maxage=99"
        origin.setRoute("/cc.png", .ok(png, contentType: "image/png", headers: [("Cache-Control", cacheControl)]))
        origin.setRoute("/none.png", .ok(png, contentType: "image/png"))
        let variant = ProxyPath.plain(origin.url("/cc.png"), options: "rs:fit:32:32")
        let passing = try serve(["--max-age", "60"], environment: ["IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true"])
        let first = try passing.get(variant)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.header("Cache-Control"), cacheControl)
        XCTAssertEqual(try passing.get(variant).header("Cache-Control"), cacheControl, "a hot variant too")
        XCTAssertNil(first.header("Last-Modified"), "IMGPROXY_USE_LAST_MODIFIED is off")
        XCTAssertEqual(
            try passing.get(ProxyPath.plain(origin.url("/none.png"))).header("Cache-Control"),
            "public, max-age=60", "no Cache-Control from the origin: serve's own")

        let flag = try serve(["--max-age", "60", "--cache-control-passthrough"])
        XCTAssertEqual(try flag.get(variant).header("Cache-Control"), cacheControl)
        let off = try serve(["--max-age", "60"])
        XCTAssertEqual(try off.get(variant).header("Cache-Control"), "public, max-age=60")
    }

    /// The origin's Expires is kept with the original's disk entry and passed on; without a Cache-Control beside it,
    /// imgproxy's `max-age=<seconds until then>, public` (0 once past). Without passthrough, neither.
    func testCacheControlPassthroughPassesTheOriginsExpires() throws {
        let future = Date().addingTimeInterval(3600), past = "Wed, 21 Oct 2015 07:28:00 GMT"
        let formatter = DateFormatter()
        (formatter.locale, formatter.timeZone) = (Locale(identifier: "en_US_POSIX"), TimeZone(identifier: "GMT"))
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let expires = formatter.string(from: future)
        origin.setRoute("/ex.png", .ok(png, contentType: "image/png", headers: [("Expires", expires)]))
        origin.setRoute("/old.png", .ok(png, contentType: "image/png", headers: [("Expires", past)]))
        origin.setRoute(
            "/both.png",
            .ok(
                png, contentType: "image/png",
                headers: [("Expires", expires), ("Cache-Control", "public, max-age=77")]))
        let passing = try serve(["--max-age", "60"], environment: ["IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true"])
        for round in ["first", "a hot variant"] {
            let answer = try passing.get(ProxyPath.plain(origin.url("/ex.png"), options: "rs:fit:32:32"))
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(answer.header("Expires"), expires, round)
            let maxAge = answer.header("Cache-Control").flatMap {
                Int($0.replacingOccurrences(of: "max-age=", with: "").replacingOccurrences(of: ", public", with: ""))
            }
            XCTAssertTrue((3500...3600).contains(maxAge ?? -1), "\(round): \(answer.header("Cache-Control") ?? "none")")
        }
        let old = try passing.get(ProxyPath.plain(origin.url("/old.png")))
        XCTAssertEqual(old.header("Expires"), past)
        XCTAssertEqual(old.header("Cache-Control"), "max-age=0, public")
        let both = try passing.get(ProxyPath.plain(origin.url("/both.png")))
        XCTAssertEqual(both.header("Cache-Control"), "public, max-age=77", "the origin's Cache-Control wins")
        XCTAssertEqual(both.header("Expires"), expires)

        let off = try serve(["--max-age", "60"])
        let plain = try off.get(ProxyPath.plain(origin.url("/ex.png")))
        XCTAssertNil(plain.header("Expires"))
        XCTAssertEqual(plain.header("Cache-Control"), "public, max-age=60")
    }

    /// Both read what the origin said from the original's disk-cache entry: without a disk cache they would do
    /// nothing, so that start is refused.
    func testWithoutADiskCacheEitherFlagStopsTheStart() throws {
        for flag in ["--use-last-modified", "--cache-control-passthrough"] {
            let (status, text) = try ServeProcess.startFailure(["--no-disk-cache", flag])
            XCTAssertEqual(status, 2, text)
            XCTAssertTrue(text.contains("--no-disk-cache"), text)
        }
    }
}
