// SVG sources through `dwfetch serve` as imgproxy serves them (URLs from PyPI's imgproxy package): kept as sanitised
// SVG without a format, rasterised at the size asked for with one, skp/raw/f:svg, --always-rasterize-svg,
// --no-sanitize-svg, /info, broken and huge documents, references never followed; and `dwfetch`'s pixel flags.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class SVGServeTests: ServeTestCase {
    /// 100 × 50: a red square, a blue circle, a green diagonal.
    let drawing = SampleImages.svgDrawing
    /// The drawing with a script, event handlers and a javascript: link.
    let dirty = Data(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" onload="alert(1)">
          <script>alert(2)</script>
          <rect x="5" y="5" width="40" height="40" fill="#ff0000" onclick="alert(3)"/>
          <a href="javascript:alert(4)"><circle cx="75" cy="25" r="20" fill="#0000ff"/></a>
        </svg>
        """.utf8)

    func testSVGSourcesAreServedAsImgproxyServesThem() throws {
        origin.setRoute("/d.svg", .ok(drawing, contentType: "image/svg+xml"))
        let server = try serve()
        let source = origin.url("/d.svg")
        // (keyword arguments of imgproxy.ImgProxy, extra options, Content-Type, width, height; 0 × 0: the SVG itself)
        let cases: [(String, String, String, Int, Int)] = [
            ("", "", "image/svg+xml", 0, 0),
            ("width=300, height=300, resizing_type='fit'", "", "image/svg+xml", 0, 0),  // no format: SVG stays SVG
            ("width=300, height=300, resizing_type='fit', extension='png'", "", "image/png", 300, 150),
            ("width=50, extension='webp'", "", "image/webp", 50, 25),
            ("width=40, height=40, resizing_type='fill', extension='jpg'", "", "image/jpeg", 40, 40),
            ("width=50", "'skp:svg'", "image/svg+xml", 0, 0),
            ("width=50, extension='png'", "'skp:svg'", "image/png", 50, 25),  // skp only when the formats agree
            ("width=50, extension='svg'", "", "image/svg+xml", 0, 0),
            ("width=50, extension='png'", "'raw:1'", "image/svg+xml", 0, 0)
        ]
        for (kwargs, extra, contentType, width, height) in cases {
            let path = try python("import imgproxy; print(imgproxy.ImgProxy('\(source)', \(kwargs))(\(extra)))")
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), contentType, path)
            XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff", path)
            XCTAssertEqual(
                response.header("Content-Security-Policy"), "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            if width == 0 {
                XCTAssertEqual(response.body, drawing, "\(path): a clean SVG is served byte for byte")
            } else {
                let facts = try pillow(response.body)
                XCTAssertEqual([facts.width, facts.height], [width, height], path)
            }
        }
        // the raster is librsvg's own at that size (rsvg-convert), not a resized raster
        let png = try server.get(
            try python("import imgproxy; print(imgproxy.ImgProxy('\(source)', width=400, extension='png')())"))
        XCTAssertLessThanOrEqual(try largestDifference(png.body, rsvgConvert(drawing, 400, 200)), 24)
        // f:svg from a raster source, as imgproxy: 422
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 20, height: 10)))
        XCTAssertEqual(try server.get("/insecure/f:svg/plain/\(origin.url("/p.png"))").status, 422)
        XCTAssertEqual(try server.get("/insecure/w:10/plain/\(origin.url("/p.png"))@svg").status, 422)
        let info = try server.get("/info/insecure/plain/\(source)")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: info.body) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "svg")
        XCTAssertEqual([object["width"] as? Int, object["height"] as? Int], [100, 50])
        XCTAssertEqual(object["size"] as? Int, drawing.count)
    }

    func testSVGServedAsSVGIsSanitisedAndStillRendersTheSame() throws {
        origin.setRoute("/x.svg", .ok(dirty, contentType: "image/svg+xml"))
        let server = try serve()
        let response = try server.get("/insecure/plain/\(origin.url("/x.svg"))")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "image/svg+xml")
        for gone in ["<script", "onload", "onclick", "alert", "javascript"] {
            XCTAssertFalse(response.text.contains(gone), "\(gone) in:\n\(response.text)")
        }
        let rasterised = try server.get("/insecure/f:png/plain/\(origin.url("/x.svg"))")  // from the original bytes
        XCTAssertEqual(try largestDifference(rasterised.body, rsvgConvert(response.body, 100, 50)), 0)
        XCTAssertEqual(
            try server.get("/insecure/raw:1/plain/\(origin.url("/x.svg"))").body, dirty,
            "raw:1 streams the source as it is (imgproxy does not sanitise it; the CSP sandbox stays)")
        let unsanitised = try serve(["--no-sanitize-svg"])
        XCTAssertEqual(try unsanitised.get("/insecure/plain/\(origin.url("/x.svg"))").body, dirty)
    }

    func testAlwaysRasterizeSVG() throws {
        origin.setRoute("/d.svg", .ok(drawing, contentType: "image/svg+xml"))
        let server = try serve(["--always-rasterize-svg"])
        let source = origin.url("/d.svg")
        let png = try server.get("/insecure/plain/\(source)")
        XCTAssertEqual(png.header("Content-Type"), "image/png", "the first preferred format with alpha")
        XCTAssertEqual(try pillow(png.body).width, 100)
        XCTAssertEqual(try server.get("/insecure/w:20/plain/\(source)@jpg").header("Content-Type"), "image/jpeg")
        XCTAssertEqual(try server.get("/insecure/skp:svg/plain/\(source)").header("Content-Type"), "image/svg+xml")
        XCTAssertEqual(try server.get("/insecure/f:svg/plain/\(source)").status, 422)
    }

    func testBrokenHugeAndReferencingSVGs() throws {
        let peer = try LoopbackHTTPServer()  // must see no request: nothing in an SVG may make the server fetch
        defer { peer.shutdown() }
        peer.setRoute("/red.png", .ok(SampleImages.png(width: 10, height: 10)))
        let references = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="50">
            <style>rect { fill: url(\(peer.url("/red.png"))) }</style>
            <image href="\(peer.url("/red.png"))" width="10" height="10"/><image xlink:href="file:///etc/passwd"/>
            <use href="\(peer.url("/d.svg#a"))"/><rect width="10" height="10" fill="#00ff00"/></svg>
            """
        origin.setRoute("/refs.svg", .ok(Data(references.utf8), contentType: "image/svg+xml"))
        origin.setRoute("/broken.svg", .ok(Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect".utf8)))
        let huge =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1e9\" height=\"1e9\"><rect width=\"1\" height=\"1\"/></svg>"
        origin.setRoute("/huge.svg", .ok(Data(huge.utf8), contentType: "image/svg+xml"))
        let server = try serve()
        // rasterised, references outside the document are refused before librsvg sees it; as SVG it is served
        for (options, status) in [("f:png", 422), ("w:50/f:webp", 422), ("", 200), ("skp:svg", 200)] {
            let response = try server.get(
                "/insecure/\(options.isEmpty ? "" : options + "/")plain/\(origin.url("/refs.svg"))")
            XCTAssertEqual(response.status, status, "\(options): \(response.text)")
            XCTAssertFalse(response.text.contains("root:"), "no file bytes in the answer")
        }
        XCTAssertEqual(peer.requestLog.count, 0, "an SVG made the server fetch: \(peer.requestedPaths)")
        for options in ["f:png", ""] {  // librsvg refuses it; the sanitiser cannot tokenise it: 422 both
            let broken = try server.get(
                "/insecure/\(options.isEmpty ? "" : options + "/")plain/\(origin.url("/broken.svg"))")
            XCTAssertEqual(broken.status, 422, "\(options): \(broken.text)")
        }
        for options in ["f:png", "w:100/f:png", "el:1/f:png"] {
            let response = try server.get("/insecure/\(options)/plain/\(origin.url("/huge.svg"))")
            XCTAssertEqual(response.status, 422, "\(options): \(response.text)")
        }
        XCTAssertLessThan(server.residentBytes, 1 << 30, "no raster of the declared size")
        // the result limits see a vector's size (scaled to the box without el:1) before anything renders; not
        // enlarged, a render over --max-result-pixels is scaled down to it (imgproxy's rule, its MAX_SRC_RESOLUTION)
        origin.setRoute("/d.svg", .ok(drawing, contentType: "image/svg+xml"))
        for (options, status) in [
            ("rs:fit:10000:10000:1", 422), ("rs:fit:8000:8000:1", 422), ("w:2000", 200),
            ("rs:fit:8000:8000", 200)
        ] {
            let response = try server.get("/insecure/\(options)/plain/\(origin.url("/d.svg"))@png")
            XCTAssertEqual(response.status, status, "\(options): \(response.status == 200 ? "" : response.text)")
            guard status == 200 else { continue }
            let facts = try pillow(response.body)
            XCTAssertLessThanOrEqual(facts.width * facts.height, 16_800_000, options)
            XCTAssertEqual(facts.width, options == "w:2000" ? 2000 : 5797, options)
        }
        XCTAssertEqual(
            try server.get("/insecure/plain/\(origin.url("/huge.svg"))").status, 200,
            "as SVG it is served (imgproxy: nothing is rendered)")
    }

    func testDwfetchDownloadsSVGAndItsPixelFlagsRasteriseIt() throws {
        origin.setRoute("/d.svg", .ok(drawing, contentType: "image/svg+xml"))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("dwsvg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let plain = try dwfetch(["--json", "--no-cache", "-o", out.path, origin.url("/d.svg")])
        XCTAssertEqual(plain["format"] as? String, "svg")
        XCTAssertEqual([plain["width"] as? Int, plain["height"] as? Int], [100, 50])
        let saved = try XCTUnwrap(plain["path"] as? String)
        XCTAssertTrue(saved.hasSuffix(".svg"), saved)
        XCTAssertEqual(FileManager.default.contents(atPath: saved), drawing)
        let resized = try dwfetch(["--json", "--no-cache", "--resize", "300x", "--format", "png", origin.url("/d.svg")])
        XCTAssertEqual(resized["format"] as? String, "png")
        XCTAssertEqual([resized["width"] as? Int, resized["height"] as? Int], [300, 150])
        XCTAssertEqual(resized["source_format"] as? String, "svg")
    }

    // MARK: Helpers

    /// One `dwfetch` run's JSON line.
    private func dwfetch(_ args: [String]) throws -> [String: Any] {
        let run = try ProcessRun.run(ServeProcess.binary.path, args)
        XCTAssertEqual(run.status, 0, run.output + run.errors)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }

    /// `svg` rendered by `rsvg-convert -w W -h H` (Debian librsvg2-bin).
    private func rsvgConvert(_ svg: Data, _ width: Int, _ height: Int) throws -> Data {
        try RSVGConvert.png(svg, width: width, height: height)
    }

    /// The largest channel difference of two images of one size, by Pillow (colour premultiplied by alpha).
    private func largestDifference(_ a: Data, _ b: Data) throws -> Int {
        let text = try python(
            """
            import base64, io
            from PIL import Image, ImageChops
            def load(s):
                im = Image.open(io.BytesIO(base64.b64decode(s))).convert('RGBA')
                return im.convert('RGBa')
            a, b = load('\(a.base64EncodedString())'), load('\(b.base64EncodedString())')
            print(-1 if a.size != b.size else max(hi for lo, hi in ImageChops.difference(a, b).getextrema()))
            """)
        return Int(text) ?? -1
    }
}
