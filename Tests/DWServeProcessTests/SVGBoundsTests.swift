// SVG sources bounded in pixels and time through the built `dwfetch serve`: an
// 8000 × 8000 PNG inside a 10 × 10 SVG, embedded XPM/PNM, external references, a filter chain under
// --render-budget, a document without a size measured without a render, and --source-formats. Memory is the
// server's VmHWM, CPU its own and its reaped children's (the SVG helpers) from /proc/PID/stat.
import DWTestServer
import Foundation
import XCTest

final class SVGBoundsTests: ServeTestCase {
    static let ns = "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""

    /// The review's bomb: an 8000 × 8000 RGBA PNG (all zero, ~250 KB compressed) as a data: URL in an SVG declaring
    /// `size` (gdk-pixbuf would decode 256 MB of it).
    private func bomb(size: String) throws -> Data {
        let base64 = try python(
            """
            import base64, struct, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            z = zlib.compressobj(9)
            row = b'\\x00' * (1 + 8000 * 4)
            data = b''.join(z.compress(row) for _ in range(8000)) + z.flush()
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 8000, 8000, 8, 6, 0, 0, 0)) \
                + chunk(b'IDAT', data) + chunk(b'IEND', b'')
            print(base64.b64encode(png).decode())
            """)
        return Data(
            "<svg \(Self.ns) \(size)><image width=\"10\" height=\"10\" href=\"data:image/png;base64,\(base64)\"/></svg>"
                .utf8)
    }

    func testAnEmbeddedPNGBombIsRefusedBeforeAnythingDecodesIt() throws {
        origin.setRoute("/bomb.svg", .ok(try bomb(size: "width=\"10\" height=\"10\""), contentType: "image/svg+xml"))
        origin.setRoute("/unsized-bomb.svg", .ok(try bomb(size: ""), contentType: "image/svg+xml"))
        let red = SampleImages.png(width: 4, height: 4) { _, _ in (255, 0, 0, 255) }
        let small =
            "<svg \(Self.ns) width=\"10\" height=\"10\"><image width=\"10\" height=\"10\" "
            + "href=\"data:image/png;base64,\(red.base64EncodedString())\"/></svg>"
        origin.setRoute("/small.svg", .ok(Data(small.utf8), contentType: "image/svg+xml"))
        let server = try serve()
        XCTAssertEqual(
            try server.get("/insecure/f:png/plain/\(origin.url("/small.svg"))").status, 200,
            "an embedded PNG within the limits is drawn")
        let before = server.peakResidentBytes
        for path in [
            "/insecure/f:png/plain/\(origin.url("/bomb.svg"))", "/insecure/w:5/plain/\(origin.url("/bomb.svg"))@webp",
            "/info/insecure/plain/\(origin.url("/bomb.svg"))",
            "/info/insecure/plain/\(origin.url("/unsized-bomb.svg"))",
            "/insecure/f:png/plain/\(origin.url("/unsized-bomb.svg"))"
        ] {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 422, "\(path): \(response.text)")
        }
        let grown = server.peakResidentBytes - before
        XCTAssertLessThan(grown, 100 << 20, "peak RSS grew \(grown >> 20) MB (decoding the bomb costs ~500 MB)")
        XCTAssertEqual(
            try server.get("/insecure/plain/\(origin.url("/bomb.svg"))").status, 200,
            "served as SVG nothing is rendered (imgproxy's behaviour)")
    }

    func testEmbeddedXPMAndPNMAndExternalReferencesAre422() throws {
        let xpm = Data("/* XPM */\nstatic char *x[] = {\"1 1 1 1\", \"a c #FF0000\", \"a\"};\n".utf8)
        let pnm = Data("P6 1 1 255 ".utf8) + Data([255, 0, 0])
        let documents: [(String, String)] = [
            (
                "xpm",
                "<image width=\"10\" height=\"10\" xlink:href=\"data:image/x-xpixmap;base64,\(xpm.base64EncodedString())\"/>"
            ),
            (
                "pnm",
                "<image width=\"10\" height=\"10\" href=\"data:image/x-portable-pixmap;base64,\(pnm.base64EncodedString())\"/>"
            ),
            (
                "pnm-as-png",
                "<image width=\"10\" height=\"10\" href=\"data:image/png;base64,\(pnm.base64EncodedString())\"/>"
            ),
            ("external", "<image width=\"10\" height=\"10\" href=\"\(origin.url("/red.png"))\"/>"),
            ("file", "<image width=\"10\" height=\"10\" href=\"file:///etc/passwd\"/>")
        ]
        origin.setRoute("/red.png", .ok(SampleImages.png(width: 10, height: 10)))
        for (name, body) in documents {
            origin.setRoute(
                "/\(name).svg",
                .ok(
                    Data("<svg \(Self.ns) width=\"10\" height=\"10\">\(body)</svg>".utf8),
                    contentType: "image/svg+xml"))
        }
        let server = try serve()
        for (name, _) in documents {
            for options in ["f:png", "w:5/f:webp"] {
                let response = try server.get("/insecure/\(options)/plain/\(origin.url("/\(name).svg"))")
                XCTAssertEqual(response.status, 422, "\(name) \(options): \(response.text)")
            }
            XCTAssertEqual(try server.get("/info/insecure/plain/\(origin.url("/\(name).svg"))").status, 422, name)
        }
        XCTAssertFalse(origin.requestedPaths.contains("/red.png"), "the SVG made the server fetch")
    }

    func testAFilterChainIsStoppedAtTheRenderBudget() throws {
        let chain = String(repeating: "<feMorphology radius=\"30\"/>", count: 5)
        let svg =
            "<svg \(Self.ns) width=\"400\" height=\"400\"><filter id=\"m\">\(chain)</filter>"
            + "<rect width=\"400\" height=\"400\" fill=\"#888\" filter=\"url(#m)\"/></svg>"
        origin.setRoute("/chain.svg", .ok(Data(svg.utf8), contentType: "image/svg+xml"))
        let unsized = svg.replacingOccurrences(of: " width=\"400\" height=\"400\"><filter", with: "><filter")
        origin.setRoute("/unsized-chain.svg", .ok(Data(unsized.utf8), contentType: "image/svg+xml"))
        let server = try serve(["--render-budget", "1"])
        let before = server.cpuSeconds
        let response = try server.get("/insecure/f:png/plain/\(origin.url("/chain.svg"))")
        XCTAssertEqual(response.status, 422, response.text)
        let spent = server.cpuSeconds - before
        XCTAssertGreaterThan(spent, 0.8, "the render ran up to its budget")
        XCTAssertLessThan(spent, 1.8, "and stopped there: \(spent) s of CPU (the chain takes ~2.4 s)")
        // measured without a render: the size from the document, nothing drawn (no CPU to speak of)
        let measuring = server.cpuSeconds
        let info = try server.get("/info/insecure/plain/\(origin.url("/unsized-chain.svg"))")
        XCTAssertEqual(info.status, 200, info.text)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: info.body) as? [String: Any])
        XCTAssertEqual([object["width"] as? Int, object["height"] as? Int], [300, 150], "CSS's default object size")
        XCTAssertLessThan(server.cpuSeconds - measuring, 0.3, "measuring it rendered nothing")
    }

    func testSourceFormatsRefusesOtherFormatsBeforeTheirDecoder() throws {
        origin.setRoute("/a.tiff", .ok(SampleImages.tiff(width: 8, height: 8), contentType: "image/tiff"))
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 8, height: 8), contentType: "image/png"))
        origin.setRoute("/d.svg", .ok(SampleImages.svgDrawing, contentType: "image/svg+xml"))
        let server = try serve(["--source-formats", "png,jpg"])
        XCTAssertEqual(try server.get("/insecure/f:webp/plain/\(origin.url("/a.png"))").status, 200)
        for path in [
            "/insecure/f:png/plain/\(origin.url("/a.tiff"))", "/insecure/f:png/plain/\(origin.url("/d.svg"))",
            "/insecure/w:10/plain/\(origin.url("/a.tiff"))", "/insecure/plain/\(origin.url("/a.tiff"))",
            "/insecure/plain/\(origin.url("/d.svg"))", "/info/insecure/plain/\(origin.url("/d.svg"))"
        ] {
            XCTAssertEqual(try server.get(path).status, 422, path)
        }
        let everything = try serve()
        XCTAssertEqual(try everything.get("/insecure/f:png/plain/\(origin.url("/a.tiff"))").status, 200, "the default")
        XCTAssertThrowsError(try serve(["--source-formats", "png,xpm"]), "an unknown format is a usage error")
    }
}
