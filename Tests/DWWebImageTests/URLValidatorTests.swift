// URLValidator: percent-encoding, what is refused, and the byte-level fast path against URLComponents.
import Foundation
import XCTest

@testable import DWWebImage

final class URLValidatorTests: XCTestCase {
    func testURLValidatorPercentEncodesAndRejects() {
        XCTAssertEqual(try URLValidator.validate(" http://h/a b.png ").get(), "http://h/a%20b.png")
        XCTAssertEqual(try URLValidator.validate("HTTPS://h/é").get(), "HTTPS://h/%C3%A9")
        XCTAssertEqual(URLValidator.validate("").error?.code, .emptyURL)
        XCTAssertEqual(URLValidator.validate("mailto:a@b").error?.code, .invalidURL)
    }

    func testURLFastPathAgreesWithURLComponents() {
        // Every URL the byte-level fast path accepts, URLComponents accepts too, with the same host and port.
        let urls = [
            "http://h/a.png", "HTTPS://Example.COM:8443/p/q?x=1&y=%20#frag", "http://127.0.0.1:80",
            "http://a-b.c/~u/x_y(1)!$&'*+,;=:@/?q=/?", "http://h:65535/", "http://h:0/", "http://h:65536/",
            "http://h:/x", "http://user:pw@h/x", "http://[::1]:8080/x", "http://h/a%2", "http://h/a%zz",
            "http://h/a#b#c", "http:/h/x", "http://", "ftp://h/x", "http://h_1/x", "http://h/a[1]"
        ]
        for url in urls {
            let bytes = Array(url.utf8)
            guard let fast = URLValidator.authority(of: bytes) else { continue }
            let components = URLComponents(string: url)
            XCTAssertNotNil(components, url)
            XCTAssertEqual(
                components?.host?.lowercased(), String(decoding: bytes[fast.host], as: UTF8.self).lowercased(), url)
            XCTAssertEqual(components?.port, fast.port, url)
            XCTAssertTrue(["http", "https"].contains(components?.scheme?.lowercased() ?? ""), url)
        }
        XCTAssertEqual(URLValidator.hostKey("HTTPS://Example.COM/x"), "example.com:443")
        XCTAssertEqual(URLValidator.hostKey("http://h:8080/x"), "h:8080")
        XCTAssertEqual(URLValidator.hostKey("http://[::1]:8080/x"), "[::1]:8080", "the URLComponents path")
        XCTAssertNotNil(URLValidator.authority(of: Array("http://h/a.png".utf8)), "the usual URL takes the fast path")
        XCTAssertEqual(URLValidator.validate("http://h:0/").error?.code, .invalidURL)
        XCTAssertEqual(URLValidator.validate("http://h:65536/").error?.code, .invalidURL)
    }
}
