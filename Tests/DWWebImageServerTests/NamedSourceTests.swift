// Named origins' sources in-process: NAME://PATH split and checked, the default origin taking schemeless sources,
// and where a path is fetched from.
import DWWebImage
@testable import DWWebImageServer
import XCTest

final class NamedSourceTests: XCTestCase {
    func testNamedSourcesAreSplitAndPathsThatCouldLeaveAreRefused() throws {
        let names: Set<String> = ["shop", "default"]
        let source = try XCTUnwrap(DWNamedSource("shop://a/b.jpg?w=1", names: names))
        XCTAssertEqual(source.name, "shop")
        XCTAssertEqual(source.path, "a/b.jpg?w=1")
        XCTAssertNil(source.problem)
        XCTAssertNil(DWNamedSource("other://a.jpg", names: names), "an unknown name is not a named source")
        XCTAssertNil(DWNamedSource("https://shop/a.jpg", names: names))
        for path in ["../x", "a/../../x", "%2e%2e/x", "%252e%252E/x", "a/.\\x", "./x", "", "/", "a\u{0}b", "a\nb"] {
            XCTAssertNotNil(DWNamedSource("shop://" + path, names: names)?.problem, path)
        }
    }

    func testTheDefaultOriginTakesSchemelessSourcesOnly() throws {
        var rules = DWSourceRules()
        rules.originNames = ["default"]
        XCTAssertEqual(rules.rewrite("dir/cat.png"), "default://dir/cat.png")
        XCTAssertEqual(rules.rewrite("/dir/cat.png"), "default://dir/cat.png")
        XCTAssertEqual(rules.rewrite("https://x.example/cat.png"), "https://x.example/cat.png")
        XCTAssertEqual(rules.rewrite("dir/a:b.png"), "default://dir/a:b.png", "a colon after a / is no scheme")
        let url = try DWProxyURL(target: "/x/rs:fit:10:10/plain/dir%2Fcat.png", sources: rules)
        XCTAssertEqual(url.source, "default://dir/cat.png")
        XCTAssertThrowsError(try DWProxyURL(target: "/x/plain/default:%2F%2F..%2Fcat.png", sources: rules))
        XCTAssertThrowsError(try DWProxyURL(target: "/x/plain/nope:%2F%2Fcat.png", sources: rules))
    }

    func testTargetsStayUnderTheBaseOrPrefix() throws {
        let web = DWNamedOrigin(
            name: "web", location: .http(base: "https://img.example/media"),
            headers: ["X-Api-Key": "secret-value"])
        XCTAssertEqual(web.target(for: "a/b.png"), "https://img.example/media/a/b.png")
        XCTAssertEqual(web.target(for: "//a.png"), "https://img.example/media/a.png")
        XCTAssertFalse("\(web)".contains("secret-value"), "the description names headers, never their values")
        let store = DWS3Configuration(
            endpoint: "http://127.0.0.1:9000", accessKeyID: "AKIAEXAMPLEKEY1234",
            secretAccessKey: "very-secret")
        let bucket = DWNamedOrigin(name: "b", location: .s3(try XCTUnwrap(DWS3Location("s3://bkt/pre")), store: store))
        XCTAssertEqual(bucket.target(for: "x/y.png"), "s3://bkt/pre/x/y.png")
        XCTAssertFalse("\(bucket)".contains("very-secret"))
        XCTAssertFalse(bucket.place.contains("AKIAEXAMPLEKEY1234"), "the cache's policy marker holds no credential")
        XCTAssertTrue(DWNamedOrigin.isValidName("shop-2"))
        for bad in ["http", "s3", "local", "2shop", "Shop", "a_b", ""] {
            XCTAssertFalse(DWNamedOrigin.isValidName(bad), bad)
        }
    }
}
