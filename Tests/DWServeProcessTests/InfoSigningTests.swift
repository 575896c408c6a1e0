// /info's own signature key, expiry, --only-presets and --no-info.
import DWTestServer
import Foundation
import XCTest

final class InfoSigningTests: ServeTestCase {
    let key = "6b6579666f72696d61676573", salt = "73616c74"
    let infoKey = "6b6579666f72696e666f", infoSalt = "696e666f73616c74"

    /// With `--info-key/--info-salt`, an /info URL is signed with that pair only: its signature cannot fetch the
    /// image, and an image URL's signature is refused on /info.
    func testInfoKeySeparatesInfoAndImageSignatures() throws {
        origin.setRoute("/q.png", .ok(SampleImages.quadrants(width: 40, height: 30)))
        let server = try serve(["--key", key, "--salt", salt, "--info-key", infoKey, "--info-salt", infoSalt])
        let rest = "/plain/\(origin.url("/q.png"))"
        let infoSignature = try python(hmacOf: rest, key: infoKey, salt: infoSalt)
        let imageSignature = try python(hmacOf: rest, key: key, salt: salt)
        XCTAssertEqual(try server.get("/info/\(infoSignature)\(rest)").status, 200)
        XCTAssertEqual(try server.get("/\(infoSignature)\(rest)").status, 403, "an /info signature fetches no image")
        XCTAssertEqual(try server.get("/\(imageSignature)\(rest)").status, 200)
        XCTAssertEqual(
            try server.get("/info/\(imageSignature)\(rest)").status, 403, "an image signature is no /info one")
    }

    /// By default /info is signed with the image keys (imgproxy Pro).
    func testInfoIsSignedWithTheImageKeyByDefault() throws {
        origin.setRoute("/q.png", .ok(SampleImages.quadrants(width: 40, height: 30)))
        let server = try serve(["--key", key, "--salt", salt])
        let rest = "/plain/\(origin.url("/q.png"))"
        XCTAssertEqual(try server.get("/info/\(try python(hmacOf: rest, key: key, salt: salt))\(rest)").status, 200)
        XCTAssertEqual(
            try server.get("/info/\(try python(hmacOf: rest, key: infoKey, salt: infoSalt))\(rest)").status, 403)
    }

    /// `exp:` on /info: in the past 404, in the future 200 (it was a 400 "unknown info option").
    func testInfoAcceptsExpires() throws {
        origin.setRoute("/q.png", .ok(SampleImages.quadrants(width: 40, height: 30)))
        let server = try serve()
        let now = Int(Date().timeIntervalSince1970)
        let past = try server.get("/info/insecure/exp:\(now - 60)/plain/\(origin.url("/q.png"))")
        XCTAssertEqual(past.status, 404, past.text)
        let future = try server.get("/info/insecure/exp:\(now + 3600)/bh:2/plain/\(origin.url("/q.png"))")
        XCTAssertEqual(future.status, 200, future.text)
    }

    /// `--only-presets`: /info takes no option that chooses work (`bh`, `dc`, `avg`…), only `exp` and `cb`.
    func testOnlyPresetsLimitsInfoOptions() throws {
        origin.setRoute("/q.png", .ok(SampleImages.quadrants(width: 40, height: 30)))
        let server = try serve(["--only-presets", "--preset", "small=w:10"])
        let source = origin.url("/q.png")
        let refused = try server.get("/info/insecure/bh:9:9/plain/\(source)")
        XCTAssertEqual(refused.status, 400, refused.text)
        XCTAssertTrue(refused.text.contains("only-presets"), refused.text)
        XCTAssertEqual(try server.get("/info/insecure/dc:16/plain/\(source)").status, 400)
        XCTAssertEqual(try server.get("/info/insecure/cb:2/plain/\(source)").status, 200)
        XCTAssertEqual(try server.get("/info/insecure/plain/\(source)").status, 200)
    }

    /// `--no-info`: /info is 404, images are served.
    func testNoInfoAnswers404() throws {
        origin.setRoute("/q.png", .ok(SampleImages.quadrants(width: 40, height: 30)))
        let server = try serve(["--no-info"])
        XCTAssertEqual(try server.get("/info/insecure/plain/\(origin.url("/q.png"))").status, 404)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/q.png"))).status, 200)
    }
}
