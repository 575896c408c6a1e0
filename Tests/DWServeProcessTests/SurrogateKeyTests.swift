// The purge keys on every image answer: the source's hash (SHA-256 of the URL as requested) and the URL's tag.
import Crypto
import DWTestServer
import Foundation
import XCTest

final class SurrogateKeyTests: ServeTestCase {
    /// Every variant of one source carries the same key, so a CDN or Varnish purges them all by it; `tag:` adds one.
    func testEveryVariantOfASourceCarriesItsHashAndTheURLsTag() throws {
        origin.setRoute("/k.png", .ok(SampleImages.png(width: 64, height: 48)))
        let source = origin.url("/k.png")
        let hash = SHA256.hash(data: Data(source.utf8)).map { String(format: "%02x", $0) }.joined()
        let server = try serve()
        for options in ["w:10", "w:20/f:webp", ""] {
            let response = try server.get(ProxyPath.plain(source, options: options))
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.header("Surrogate-Key"), hash, options)
            XCTAssertEqual(response.header("xkey"), hash, options)
            XCTAssertEqual(response.header("Cache-Tag"), hash, options)
        }
        let tagged = try server.get(ProxyPath.plain(source, options: "w:10/tag:home-page"))
        XCTAssertEqual(tagged.header("Surrogate-Key"), "\(hash) home-page")
        XCTAssertEqual(tagged.header("Cache-Tag"), "\(hash),home-page")
        XCTAssertEqual(try server.get(ProxyPath.plain(source, options: "tag:a%20b")).status, 400, "a tag is a token")
    }
}
