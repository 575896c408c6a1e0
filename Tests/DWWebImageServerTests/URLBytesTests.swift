// DWURLBytes against Foundation: the byte-level fast paths answer as URLComponents and removingPercentEncoding do,
// and leave to them what they do not read the same way.
@testable import DWWebImageServer
import Foundation
import XCTest

final class URLBytesTests: XCTestCase {
    func testSimpleAuthorityMatchesURLComponentsOrDeclines() throws {
        let urls = [
            "http://127.0.0.1:8080/img0000.jpg", "https://Example.COM/a/b.png?x=1&y=%20", "HTTP://host/", "http://host",
            "http://user:pw@host:1/x", "http://a-b.c.d/%41", "https://h:65535/", "http://h:0/", "http://h:65536/",
            "http://h:/", "http://[::1]:80/x", "http://h/a#frag", "http://h/a b", "http://h/%zz", "http://u@v@h/",
            "ftp://h/x", "http:///x", "http://h/é", "http://h?q=1", "http://ho_st/x"
        ]
        for url in urls {
            guard let simple = DWURLBytes.simpleHTTPAuthority(url) else { continue }  // Foundation's business
            let components = try XCTUnwrap(URLComponents(string: url), url)
            XCTAssertEqual(simple.host, components.host?.lowercased(), url)
            XCTAssertEqual(simple.hasUserinfo, components.user != nil, url)
            XCTAssertEqual(simple.hasUserinfo, DWURLBytes.hasUserinfo(url), url)
            XCTAssertTrue(["http", "https"].contains(components.scheme?.lowercased()), url)
        }
        XCTAssertNotNil(DWURLBytes.simpleHTTPAuthority("http://127.0.0.1:8080/img0000.jpg"), "the usual source is fast")
        for declined in [
            "http://h/a#frag", "http://[::1]:80/x", "http://h:0/", "http://h/%zz", "ftp://h/x", "http:///x"
        ] {
            XCTAssertNil(DWURLBytes.simpleHTTPAuthority(declined), declined)
        }
    }

    func testPercentDecodingMatchesFoundation() {
        for text in [
            "plain", "http%3A%2F%2Fh%2Fa.png", "%C3%A9t%C3%A9", "50%25", "%", "%4", "%zz", "%FF%FE", "a%2fb", ""
        ] {
            XCTAssertEqual(DWURLBytes.percentDecoded(text[...]), text.removingPercentEncoding, text)
        }
    }

    func testUserinfoBeforeTheHostOnly() {
        XCTAssertTrue(DWURLBytes.hasUserinfo("http://u:p@h/x"))
        XCTAssertFalse(DWURLBytes.hasUserinfo("http://h/x@y"))
        XCTAssertFalse(DWURLBytes.hasUserinfo("http://h?x@y"))
        XCTAssertFalse(DWURLBytes.hasUserinfo("http://h#x@y"))
        XCTAssertFalse(DWURLBytes.hasUserinfo("no scheme@h"))
    }
}
