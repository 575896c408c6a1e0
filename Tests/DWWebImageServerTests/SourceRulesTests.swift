// imgproxy's source rules (URL replacements, base URL, allowed sources), truncated signatures, trusted signatures
// and the bearer secret, in-process.
import DWWebImage
@testable import DWWebImageServer
import XCTest

final class SourceRulesTests: XCTestCase {
    func testWildcardPrefixesMatchAsImgproxysRegexps() {
        var rules = DWSourceRules()
        rules.allowedSources = ["https://a.example/img/", "https://*.cdn.example/"]
        XCTAssertTrue(rules.allows("https://a.example/img/x.png"))
        XCTAssertFalse(rules.allows("https://a.example/other/x.png"))
        XCTAssertTrue(rules.allows("https://eu.cdn.example/x.png"), "* takes one host label run")
        XCTAssertFalse(rules.allows("https://evil.example/.cdn.example/x.png"), "* never crosses /")
        XCTAssertFalse(rules.allows("http://a.example/img/x.png"), "a prefix, from the start")
        XCTAssertTrue(DWSourceRules().allows("anything"), "no pattern: any source")
    }

    func testReplacementsExpandGroupsThenTheBaseURLIsPrefixed() {
        var rules = DWSourceRules()
        rules.replacements = ["mys3://=s3://bucket/images/", "cdn://*/*/=https://${2}.example/$1/", "x://=$$$0-${9}$9x"]
            .compactMap(DWSourceRules.Replacement.init(parsing:))
        XCTAssertEqual(rules.rewrite("mys3://cat.jpg"), "s3://bucket/images/cat.jpg")
        XCTAssertEqual(rules.rewrite("cdn://one/two/cat.jpg"), "https://two.example/one/cat.jpg")
        XCTAssertEqual(rules.rewrite("x://y"), "$x://-y", "$$ a dollar, $0 the match, unknown groups empty")
        XCTAssertEqual(rules.rewrite("https://other/cat.jpg"), "https://other/cat.jpg", "no match: unchanged")
        rules.baseURL = "https://origin.example/"
        XCTAssertEqual(rules.rewrite("cat.jpg"), "https://origin.example/cat.jpg")
        XCTAssertEqual(rules.rewrite("https://origin.example/cat.jpg"), "https://origin.example/cat.jpg")
        XCTAssertNil(DWSourceRules.Replacement(parsing: "no-equals"))
    }

    func testAProxyURLIsRewrittenThenCheckedAgainstTheAllowedSources() throws {
        var rules = DWSourceRules()
        rules.baseURL = "https://origin.example/"
        rules.allowedSources = ["https://origin.example/ok/"]
        XCTAssertEqual(
            try DWProxyURL(target: "/x/plain/ok/a.png", sources: rules).source, "https://origin.example/ok/a.png")
        XCTAssertThrowsError(try DWProxyURL(target: "/x/plain/no/a.png", sources: rules)) { error in
            XCTAssertEqual((error as? DWProxyURL.ParseError)?.status, 404)
            XCTAssertEqual((error as? DWProxyURL.ParseError)?.note, "source-refused")
        }
    }

    func testTruncatedAndTrustedSignatures() throws {
        let path = "/rs:fit:300:300/plain/http://img.example/a.png"
        let full = try XCTUnwrap(DWURLSigner(keyHex: "abcd", saltHex: "1234"))
        let short = try XCTUnwrap(DWURLSigner(keyHex: "abcd", saltHex: "1234", size: 8))
        XCTAssertEqual(
            full.signature(for: path).prefix(10), short.signature(for: path).prefix(10), "the MAC's first bytes")
        XCTAssertEqual(short.signature(for: path).count, 11, "8 bytes in base64url")
        XCTAssertTrue(short.isValid(signature: short.signature(for: path), for: path))
        XCTAssertFalse(short.isValid(signature: full.signature(for: path), for: path))
        XCTAssertNil(DWURLSigner(keyHex: "abcd", saltHex: "1234", size: 0))
        XCTAssertNil(DWURLSigner(keyHex: "abcd", saltHex: "1234", size: 33))
        var configuration = DWServeConfiguration()
        configuration.trustedSignatures = ["handed-out"]
        XCTAssertTrue(configuration.accepts(signature: "anything", for: path, signers: []), "no key: any signature")
        XCTAssertTrue(configuration.accepts(signature: "handed-out", for: path, signers: [short]))
        XCTAssertFalse(configuration.accepts(signature: "other", for: path, signers: [short]))
    }

    func testTheBearerSecretComparesWholeAndPrintsNothing() throws {
        var configuration = DWServeConfiguration()
        XCTAssertTrue(configuration.authorizes(nil), "no secret: nothing asked")
        configuration.secret = try XCTUnwrap(DWBearerSecret("t0ken"))
        XCTAssertTrue(configuration.authorizes("Bearer t0ken"))
        for wrong in [nil, "", "Bearer", "Bearer t0ke", "Bearer t0kenn", "bearer t0ken", "t0ken"] {
            XCTAssertFalse(configuration.authorizes(wrong), wrong ?? "nil")
        }
        XCTAssertNil(DWBearerSecret(""))
        var dumped = ""
        dump(configuration.secret, to: &dumped)
        for text in ["\(configuration.secret!)", String(reflecting: configuration.secret!), dumped] {
            XCTAssertFalse(text.contains("t0ken"), text)
        }
    }
}
