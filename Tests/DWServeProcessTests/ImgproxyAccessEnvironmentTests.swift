// imgproxy's access and source variables read by the built `dwfetch serve`, each checked through requests as
// imgproxy behaves: IMGPROXY_SECRET, IMGPROXY_KEY/SALT lists with IMGPROXY_SIGNATURE_SIZE, IMGPROXY_TRUSTED_SIGNATURES,
// IMGPROXY_BASE_URL, IMGPROXY_URL_REPLACEMENTS, IMGPROXY_ALLOWED_SOURCES, IMGPROXY_WATERMARK_DATA and
// IMGPROXY_FALLBACK_IMAGE_DATA.
import Crypto
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ImgproxyAccessEnvironmentTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    /// IMGPROXY_SECRET: an image (or /info) request without `Authorization: Bearer <secret>` is 403, as imgproxy's
    /// WithSecret; /health asks for nothing; the secret never reaches the logs.
    func testTheSecretIsAskedOfEveryImageRequest() throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try serve(["--verbose"], environment: ["IMGPROXY_SECRET": "s3cr3t-t0ken"])
        let path = ProxyPath.plain(origin.url("/a.png"))
        XCTAssertEqual(try server.get(path).status, 403, "no Authorization")
        XCTAssertEqual(try server.get(path, headers: ["Authorization": "Bearer wrong"]).status, 403)
        XCTAssertEqual(try server.get(path, headers: ["Authorization": "Bearer s3cr3t-t0kenX"]).status, 403)
        XCTAssertEqual(try server.get(path, headers: ["Authorization": "s3cr3t-t0ken"]).status, 403, "no Bearer")
        XCTAssertEqual(try server.get("/info" + path).status, 403, "/info too")
        let ok = try server.get(path, headers: ["Authorization": "Bearer s3cr3t-t0ken"])
        XCTAssertEqual(ok.status, 200, ok.text)
        XCTAssertEqual(try server.get("/health").status, 200, "the health probe needs no secret")
        XCTAssertFalse(server.stderr.contains("s3cr3t") || server.stdout.contains("s3cr3t"), server.stderr)
    }

    /// IMGPROXY_KEY/IMGPROXY_SALT as comma lists (a rotated key), IMGPROXY_SIGNATURE_SIZE truncating the MAC, and
    /// IMGPROXY_TRUSTED_SIGNATURES accepted as they are.
    func testRotatedKeysTruncatedSignaturesAndTrustedSignatures() throws {
        origin.setRoute("/a.png", .ok(png))
        let (old, new) = (("0123456789abcdef", "fedcba9876543210"), ("a1a2a3a4a5a6a7a8", "b1b2b3b4b5b6b7b8"))
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_KEY": "\(old.0),\(new.0)", "IMGPROXY_SALT": "\(old.1),\(new.1)",
                "IMGPROXY_SIGNATURE_SIZE": "8", "IMGPROXY_TRUSTED_SIGNATURES": "handed-out,another"
            ])
        let signedPath = "/rs:fit:20:20/plain/" + origin.url("/a.png")
        for (key, salt) in [old, new] {
            let short = try server.get("/" + Self.sign(signedPath, key: key, salt: salt, size: 8) + signedPath)
            XCTAssertEqual(short.status, 200, "an 8-byte signature with either key: \(short.text)")
        }
        let full = try server.get("/" + Self.sign(signedPath, key: new.0, salt: new.1, size: 32) + signedPath)
        XCTAssertEqual(full.status, 403, "the whole MAC is not an 8-byte signature")
        XCTAssertEqual(try server.get("/handed-out" + signedPath).status, 200, "a trusted signature")
        XCTAssertEqual(try server.get("/another" + signedPath).status, 200)
        XCTAssertEqual(try server.get("/insecure" + signedPath).status, 403)
    }

    /// IMGPROXY_URL_REPLACEMENTS, then IMGPROXY_BASE_URL, then IMGPROXY_ALLOWED_SOURCES (prefixes, `*` not crossing
    /// "/", 404 otherwise), in imgproxy's order.
    func testReplacementsBaseURLAndAllowedSources() throws {
        for path in ["/ok/a.png", "/no/a.png", "/x/deep/a.png", "/x/y/deep/a.png", "/pics/cats/a.png"] {
            origin.setRoute(path, .ok(png))
        }
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_BASE_URL": origin.url("/"),
                "IMGPROXY_URL_REPLACEMENTS": "pics://*/=\(origin.url("/pics/"))${1}/;gone://=nothing://",
                "IMGPROXY_ALLOWED_SOURCES": "\(origin.url("/ok/")), \(origin.url("/*/deep/")),\(origin.url("/pics/"))"
            ])
        XCTAssertEqual(try server.get(ProxyPath.plain("ok/a.png")).status, 200, "the base URL in front")
        XCTAssertEqual(try server.get(ProxyPath.encoded("ok/a.png")).status, 200, "base64 sources too")
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/ok/a.png"))).status, 200, "already under it")
        let refused = try server.get(ProxyPath.plain("no/a.png"))
        XCTAssertEqual(refused.status, 404, "not an allowed prefix: \(refused.text)")
        XCTAssertEqual(try server.get(ProxyPath.plain("x/deep/a.png")).status, 200, "* matches one segment")
        XCTAssertEqual(try server.get(ProxyPath.plain("x/y/deep/a.png")).status, 404, "* never crosses /")
        let replaced = try server.get(ProxyPath.plain("pics://cats/a.png"))
        XCTAssertEqual(replaced.status, 200, "pics://cats/ → \(origin.url("/pics/cats/")): \(replaced.text)")
    }

    /// IMGPROXY_WATERMARK_DATA and IMGPROXY_FALLBACK_IMAGE_DATA: the images themselves, base64-encoded.
    func testWatermarkAndFallbackImagesFromBase64() throws {
        origin.setRoute("/a.png", .ok(png))
        let fallback = SampleImages.png(width: 24, height: 10, seed: 9)
        let mark = SampleImages.png(width: 16, height: 16, seed: 200)
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_WATERMARK_DATA": mark.base64EncodedString(),
                "IMGPROXY_FALLBACK_IMAGE_DATA": fallback.base64EncodedString(options: .lineLength64Characters)
            ])
        let missing = try server.get(ProxyPath.plain(origin.url("/missing.png"), ext: "png"))
        XCTAssertEqual(missing.status, 200, missing.text)
        XCTAssertEqual(Self.pngSize(missing.body), [24, 10], "the fallback image served in the source's place")
        let plain = try server.get(ProxyPath.plain(origin.url("/a.png"), options: "wm:0", ext: "png"))
        let marked = try server.get(ProxyPath.plain(origin.url("/a.png"), options: "wm:1:ce", ext: "png"))
        XCTAssertEqual([plain.status, marked.status], [200, 200], marked.text)
        XCTAssertNotEqual(plain.body, marked.body, "wm: draws the watermark the variable holds")
        let half = try serve(
            [],
            environment: [
                "IMGPROXY_WATERMARK_DATA": mark.base64EncodedString(), "IMGPROXY_WATERMARK_OPACITY": "0.5"
            ])
        let halved = try half.get(ProxyPath.plain(origin.url("/a.png"), options: "wm:1:ce", ext: "png"))
        XCTAssertEqual(halved.status, 200, halved.text)
        XCTAssertNotEqual(halved.body, marked.body, "IMGPROXY_WATERMARK_OPACITY=0.5 multiplies wm:1")
        XCTAssertEqual(
            halved.body, try server.get(ProxyPath.plain(origin.url("/a.png"), options: "wm:0.5:ce", ext: "png")).body,
            "wm:1 at half opacity is wm:0.5")

        let (status, text) = try ServeProcess.startFailure(
            [], environment: ["IMGPROXY_WATERMARK_DATA": "@@not base64@@"])
        XCTAssertEqual(status, 2, text)
        XCTAssertTrue(text.contains("IMGPROXY_WATERMARK_DATA"), text)
    }

    /// IMGPROXY_ENABLE_CLIENT_HINTS: `Width`/`Sec-CH-Width` and `DPR`/`Sec-CH-DPR` are default options (the width in
    /// device pixels), under the URL's; the answer varies by them; one target answers each client as it asked.
    /// IMGPROXY_ALLOWED_PROCESSING_OPTIONS: a URL may use only the option names listed, as written (imgproxy's 404);
    /// the options inside a preset are not checked, naming the preset is.
    func testAllowedProcessingOptionsRefuseTheOthers() throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try serve(
            [],
            environment: [
                "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "rs, w,pr", "IMGPROXY_PRESETS": "small=rs:fit:10:10/q:50"
            ])
        for (options, status) in [
            ("rs:fit:20:20", 200), ("w:20", 200), ("rs:fit:20:20/q:50", 404), ("width:20", 404),
            ("pr:small", 200), ("resize:fit:20:20", 404)
        ] {
            let answer = try server.get(ProxyPath.plain(origin.url("/a.png"), options: options))
            XCTAssertEqual(answer.status, status, "\(options): \(answer.text)")
            if status == 404 { XCTAssertTrue(answer.text.contains("forbidden processing option"), answer.text) }
        }
    }

    func testClientHintsSetTheDefaultWidthAndDPRWithVary() throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try serve([], environment: ["IMGPROXY_ENABLE_CLIENT_HINTS": "true", "IMGPROXY_AUTO_WEBP": "1"])
        let path = ProxyPath.plain(origin.url("/a.png"), ext: "png")
        let none = try server.get(path)
        XCTAssertEqual(Self.pngSize(none.body), [64, 48], none.text)
        XCTAssertEqual(none.header("Vary"), "Sec-CH-DPR, DPR, Sec-CH-Width, Width", "the URL names png: not Accept")
        XCTAssertEqual(Self.pngSize(try server.get(path, headers: ["Width": "32"]).body), [32, 24])
        let both = try server.get(path, headers: ["Sec-CH-Width": "40", "Width": "10", "DPR": "2"])
        XCTAssertEqual(Self.pngSize(both.body), [40, 30], "Sec-CH-Width first; 40 device pixels at dpr 2")
        XCTAssertEqual(
            Self.pngSize(try server.get(path, headers: ["Width": "32", "DPR": "9"]).body), [32, 24],
            "a DPR over 8 is ignored")
        let named = ProxyPath.plain(origin.url("/a.png"), options: "w:16", ext: "png")
        XCTAssertEqual(Self.pngSize(try server.get(named, headers: ["Width": "32"]).body), [16, 12], "the URL's w wins")
        let negotiated = try server.get(ProxyPath.plain(origin.url("/a.png")), headers: ["Accept": "image/webp"])
        XCTAssertEqual(negotiated.header("Vary"), "Accept, Sec-CH-DPR, DPR, Sec-CH-Width, Width")
    }

    // MARK: - Helpers

    /// imgproxy's signature cut to `size` bytes (its IMGPROXY_SIGNATURE_SIZE).
    static func sign(_ path: String, key: String, salt: String, size: Int) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: ServeAttackTests.hex(key)))
        mac.update(data: ServeAttackTests.hex(salt) + Array(path.utf8))
        return base64url(Array(mac.finalize()).prefix(size))
    }

    /// A PNG's width and height from its IHDR.
    static func pngSize(_ data: Data) -> [Int] {
        let bytes = Array(data)
        guard bytes.count > 24 else { return [] }
        let be32 = { (at: Int) in bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return [be32(16), be32(20)]
    }
}
