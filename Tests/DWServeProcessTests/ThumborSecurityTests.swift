// The thumbor dialect's protections and classification: signatures (rotation, a bad HMAC, unsafe refused by
// default), the SSRF guard on thumbor URLs, which dialect a path is in, and bad filters as 400s naming them.
import DWTestServer
import Foundation
import XCTest

final class ThumborSecurityTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    private func image() -> String {
        origin.setRoute("/a.png", .ok(png, contentType: "image/png"))
        return "127.0.0.1:\(origin.port)/a.png"
    }

    /// Any `--thumbor-key` (and `THUMBOR_SECURITY_KEY`) signs; another key's signature, a tampered path and an
    /// unsafe URL without `--thumbor-allow-unsafe` are 403 and reach no origin.
    func testSignatureRotationBadHMACAndUnsafeRefused() throws {
        let source = image()
        let server = try serve(
            ["--thumbor-key", "old-key", "--thumbor-key", "new-key"],
            environment: ["THUMBOR_SECURITY_KEY": "env-key"])
        let call = "image_url='\(source)', width=32, height=24"
        for key in ["old-key", "new-key", "env-key"] {
            let path = try ThumborOracle.libthumbor([call], key: key)[0]
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(key): \(response.text)")
            XCTAssertEqual(try pillow(response.body).width, 32)
        }
        let fetches = origin.requestCount(path: "/a.png")
        let foreign = try ThumborOracle.libthumbor([call], key: "other-key")[0]
        let refused = try server.get(foreign)
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertTrue(refused.text.contains("invalid thumbor signature"), refused.text)
        let signed = try ThumborOracle.libthumbor([call], key: "new-key")[0]
        XCTAssertEqual(try server.get(signed.replacingOccurrences(of: "32x24", with: "33x24")).status, 403, "tampered")
        let unsafe = try server.get("/unsafe/32x24/\(source)")
        XCTAssertEqual(unsafe.status, 403, unsafe.text)
        XCTAssertTrue(unsafe.text.contains("--thumbor-allow-unsafe"), unsafe.text)
        XCTAssertEqual(origin.requestCount(path: "/a.png"), fetches, "no refused URL reached the origin")
    }

    /// A thumbor-only deployment (`--thumbor-key`, no imgproxy key) on a public interface starts without
    /// `--allow-unsigned`: its thumbor URLs are checked against the thumbor key, and imgproxy's URLs, which would
    /// have no key to check, are refused (403), `/info` too; no "no signature key" warning.
    func testThumborOnlyOnAPublicInterfaceNeedsNoAllowUnsigned() throws {
        let source = image()
        let server = try serve(["--host", "0.0.0.0", "--thumbor-key", "public-key"])
        let path = try ThumborOracle.libthumbor(["image_url='\(source)', width=32, height=24"], key: "public-key")[0]
        let thumbor = try server.get(path)
        XCTAssertEqual(thumbor.status, 200, thumbor.text)
        XCTAssertEqual(try pillow(thumbor.body).width, 32)
        XCTAssertEqual(try server.get("/unsafe/32x24/\(source)").status, 403, "unsafe still refused")
        let fetches = origin.requestCount(path: "/a.png")
        for target in [
            "/insecure/rs:fit:16:16/plain/http://\(source)", "/unsafe/plain/http://\(source)",
            "/info/insecure/plain/http://\(source)"
        ] {
            let refused = try server.get(target)
            XCTAssertEqual(refused.status, 403, "\(target): \(refused.text)")
        }
        XCTAssertEqual(origin.requestCount(path: "/a.png"), fetches, "no imgproxy URL reached the origin")
        XCTAssertFalse(server.stderr.contains("no signature key"), server.stderr)
    }

    /// The SSRF guard applies to thumbor URLs as to imgproxy's: loopback refused without `--allow-network`, and
    /// `--allow-host` limits the hosts.
    func testSSRFGuardOnThumborURLs() throws {
        let source = image()
        let guarded = try serve(["--thumbor-allow-unsafe"], allowOrigin: false)
        let loopback = try guarded.get("/unsafe/32x24/\(source)")
        XCTAssertEqual(loopback.status, 403, loopback.text)
        XCTAssertTrue(loopback.text.contains("source address not allowed"), loopback.text)
        let hosts = try serve(["--thumbor-allow-unsafe", "--allow-host", "images.example.com"])
        XCTAssertEqual(try hosts.get("/unsafe/32x24/\(source)").status, 403)
        XCTAssertEqual(origin.acceptedConnections, 0, "nothing reached the origin")
    }

    /// With the dialect on, `/unsafe/` followed by imgproxy's options, `plain/` or an encoded source is still
    /// imgproxy's; a thumbor-shaped rest is thumbor's. With it off, a thumbor path is a 400 saying so.
    func testClassification() throws {
        let source = image()
        let server = try serve(["--thumbor-allow-unsafe"])
        let imgproxyPlain = try server.get("/unsafe/rs:fit:16:16/plain/http://\(source)")
        XCTAssertEqual([imgproxyPlain.status, try pillow(imgproxyPlain.body).width], [200, 16], imgproxyPlain.text)
        let encoded = ProxyPath.encoded("http://\(source)").split(separator: "/").last.map(String.init) ?? ""
        let imgproxyEncoded = try server.get("/unsafe/rs:fit:20:20/" + encoded)
        XCTAssertEqual(
            [imgproxyEncoded.status, try pillow(imgproxyEncoded.body).width], [200, 20], imgproxyEncoded.text)
        XCTAssertEqual(try server.get("/unsafe/" + encoded).body, png, "no options: the source itself")
        let thumbor = try server.get("/unsafe/10x10/\(source)")
        XCTAssertEqual([thumbor.status, try pillow(thumbor.body).width], [200, 10], thumbor.text)
        XCTAssertEqual(try server.get("/unsafe/\(source)").status, 200, "a thumbor URL with the image only")
        let off = try serve()
        let refused = try off.get("/unsafe/10x10/\(source)")
        XCTAssertEqual(refused.status, 400, refused.text)
    }

    /// The result limits see the canvas fill() makes (and a turn's sides): a box over --max-result-dimension is a
    /// 422 before anything is decoded, as for imgproxy's extend.
    func testResultLimitsCountTheFillCanvas() throws {
        let source = image()
        let server = try serve(["--thumbor-allow-unsafe", "--max-result-dimension", "500"])
        XCTAssertEqual(try server.get("/unsafe/fit-in/400x100/filters:fill(red)/\(source)").status, 200)
        for path in [
            "fit-in/900x100/filters:fill(red)", "fit-in/100x900/filters:fill(blur)",
            "adaptive-fit-in/100x600/filters:fill(auto)", "400x450/filters:rotate(90):fill(red)"
        ] {
            let response = try server.get("/unsafe/\(path)/\(source)")
            XCTAssertEqual(response.status, path.hasPrefix("400x450") ? 200 : 422, "\(path): \(response.text)")
        }
    }

    /// Numbers past any integer in every part that takes one: an answer each (no trap), and the server still up.
    func testHugeNumbersAnswer() throws {
        let source = image()
        let server = try serve(["--thumbor-allow-unsafe"])
        let huge = "99999999999999999999999"
        for path in [
            "0x0:\(huge)x\(huge)/10x10", "\(huge)x10", "trim:top-left:\(huge)",
            "10x10/filters:focal(0x0:\(huge)x\(huge)):focal(1x1:\(huge)x\(huge))",
            "10x10/filters:blur(\(huge),\(huge)):max_bytes(\(huge)):round_corner(\(huge),1,1,1)",
            "meta/0x0:\(huge)x\(huge)/10x10"
        ] {
            let response = try server.get("/unsafe/\(path)/\(source)")
            XCTAssertTrue([200, 400].contains(response.status), "\(path): \(response.status) \(response.text)")
        }
        XCTAssertEqual(try server.get("/healthcheck").text, "WORKING", "still serving")
    }

    /// An unknown filter or a bad argument is a 400 naming it (thumbor ignores both).
    func testBadFiltersAre400NamingThem() throws {
        let source = image()
        let server = try serve(["--thumbor-allow-unsafe"])
        for (filters, named) in [
            ("sepia()", "sepia"), ("quality(high)", "quality"), ("blur(0)", "blur"),
            ("fill(nocolour)", "fill"), ("format(bmp)", "format"), ("grayscale(1)", "grayscale")
        ] {
            let response = try server.get("/unsafe/10x10/filters:\(filters)/\(source)")
            XCTAssertEqual(response.status, 400, "\(filters): \(response.text)")
            XCTAssertTrue(response.text.contains(named), "\(filters): \(response.text)")
        }
    }

    /// The same processing reached from both dialects is one variant: an imgproxy URL spelling the thumbor URL's
    /// transform (thumbor's defaults: no EXIF rotation, nothing of the metadata kept, the ICC profile kept) is
    /// answered from the cache with the same bytes.
    func testOneCacheEntryForBothDialects() throws {
        let source = image()
        let server = try serve(["--thumbor-allow-unsafe"])
        let thumbor = try server.get("/unsafe/30x20/\(source)")
        XCTAssertEqual(thumbor.status, 200, thumbor.text)
        let before = try server.metric("dwserve_transforms_total")
        let imgproxy = try server.get(
            "/insecure/rt:fill/w:30/h:20/el:1/g:fp:0.5:0.5/ar:0/kcr:0/scp:0/plain/http://\(source)")
        XCTAssertEqual(imgproxy.status, 200, imgproxy.text)
        XCTAssertEqual(imgproxy.body, thumbor.body)
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), before, "no second transform")
    }
}
