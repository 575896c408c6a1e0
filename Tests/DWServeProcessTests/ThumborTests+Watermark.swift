// thumbor's watermark() side by side with thumbor 7.8.0: positions (offsets, negative, center, repeat, percentages),
// alpha and ratios, each against thumbor's own pixels; and frame(), refused.
import DWTestServer
import Foundation
import XCTest

extension ThumborTests {
    /// `wm.png`: 40 × 30 RGBA, an opaque red-to-blue gradient with a half-transparent white band and a fully
    /// transparent corner; `dot.png`: 12 × 9 RGBA, opaque green with a transparent border.
    func watermarkSources() throws {
        let text = try python(
            """
            import base64, io
            from PIL import Image, ImageDraw
            wm = Image.new('RGBA', (40, 30))
            px = wm.load()
            for y in range(30):
                for x in range(40):
                    px[x, y] = (255 - x * 6, 40 + y * 4, x * 6, 255)
            d = ImageDraw.Draw(wm)
            d.rectangle([0, 12, 39, 17], fill=(255, 255, 255, 128))
            d.rectangle([30, 0, 39, 8], fill=(0, 0, 0, 0))
            dot = Image.new('RGBA', (12, 9), (0, 0, 0, 0))
            ImageDraw.Draw(dot).rectangle([2, 2, 9, 6], fill=(20, 200, 60, 255))
            for im in (wm, dot):
                out = io.BytesIO(); im.save(out, 'PNG'); print(base64.b64encode(out.getvalue()).decode())
            """)
        let images = text.split(separator: "\n").compactMap { Data(base64Encoded: String($0)) }
        XCTAssertEqual(images.count, 2)
        origin.setRoute("/wm.png", .ok(images[0], contentType: "image/png"))
        origin.setRoute("/dot.png", .ok(images[1], contentType: "image/png"))
    }

    /// Every argument form against thumbor's output: corner offsets, negative offsets (`-0` too), `center`,
    /// `repeat` along one axis and both (thumbor's 6 × 6 cap past 100 copies, and its 10-pixel gap for a watermark
    /// over half the side), percentages, alpha 0…100, width and height ratios (`none` too), over a JPEG and over a
    /// PNG with alpha, the watermark URL with and without a scheme and percent-encoded. 30 dB as the other filters
    /// (the watermark's resize is Pillow's Lanczos there, libvips' here).
    func testWatermarkMatchesThumbor() throws {
        try sources()
        try watermarkSources()
        let server = try thumborServe(["--watermark-allow-host", "127.0.0.1"])
        let wm = image("wm.png"), dot = image("dot.png")
        let land = "image_url='\(image("land.jpg"))', width=150"
        let alpha = "image_url='\(image("alpha.png"))'"
        let filters = [
            (land, "watermark(\(wm),10,10,0)"),
            (land, "watermark(\(wm),-10,-20,30)"),
            (land, "watermark(\(wm),-0,-0,0)"),
            (land, "watermark(\(wm),-50,5,0)"),
            (land, "watermark(\(wm),140,90,0)"),
            (land, "watermark(\(wm),center,center,50)"),
            (land, "watermark(\(wm),center,-5,20)"),
            (land, "watermark(\(wm),repeat,repeat,0)"),
            (land, "watermark(\(wm),repeat,10,40)"),
            (land, "watermark(\(wm),10,repeat,0)"),
            ("image_url='\(image("land.jpg"))'", "watermark(\(dot),repeat,repeat,0)"),
            ("image_url='\(image("land.jpg"))', width=60", "watermark(\(wm),repeat,repeat,0)"),
            (land, "watermark(\(wm),20p,-10p,40)"),
            (land, "watermark(\(wm),-33p,center,0)"),
            (land, "watermark(\(wm),10,10,100)"),
            (land, "watermark(\(wm),0,0,0,30)"),
            (land, "watermark(\(wm),-0,-0,0,none,50)"),
            (land, "watermark(\(wm),center,center,0,50,50)"),
            (land, "watermark(\(wm),repeat,repeat,10,20)"),
            (alpha, "watermark(\(wm),10,10,30)"),
            (alpha, "watermark(\(dot),repeat,center,0)"),
            (land, "watermark(http://\(wm),5,5,0)"),
            (land, "watermark(\(wm.replacingOccurrences(of: "/", with: "%2F")),5,5,0)"),
            (land, "watermark(\(wm),5,5,0):grayscale()")
        ]
        let paths = try ThumborOracle.libthumbor(filters.map { "\($0.0), filters=['\($0.1)']" })
        let plain = try ThumborOracle.libthumbor(filters.map(\.0))
        for (path, bare) in zip(paths, plain) {
            // Measured: equal pixels without a resize of the watermark (JPEG bytes included), 43-62 dB else.
            let resized =
                path.contains(",0,30)") || path.contains(",50)") || path.contains(",10,20)") || path.contains("/60x0/")
            try compare(path, on: server, psnr: resized ? 33 : 40)
            guard !path.contains(",10,10,100)") else { continue }  // alpha 100: nothing of the watermark is left
            // The filter ran in thumbor (which ignores a filter it cannot read): its answer is not the plain one.
            let marked = try thumbor().get(path), unmarked = try thumbor().get(bare)
            XCTAssertLessThan(try PixelComparison(marked.body, unmarked.body).psnr, 30, "\(path): thumbor drew it")
        }
    }

    /// A watermark that fails: thumbor answers 400 for a failed load and 500 for bytes it cannot read; serve answers
    /// as for a source (404, 422), naming the watermark.
    func testFailingWatermarkAgainstThumbor() throws {
        try sources()
        try watermarkSources()
        origin.setRoute("/missing.png", .status(404))
        origin.setRoute("/text.png", .ok(Data("not an image".utf8), contentType: "image/png"))
        let server = try thumborServe(["--watermark-allow-host", "127.0.0.1"])
        for (name, theirs, ours) in [("missing.png", 400, 404), ("text.png", 500, 422)] {
            let path = "/unsafe/100x0/filters:watermark(\(image(name)),0,0,0)/\(image("land.jpg"))"
            XCTAssertEqual(try thumbor().get(path).status, theirs, "thumbor, \(name)")
            let response = try server.get(path)
            XCTAssertEqual(response.status, ours, "\(name): \(response.text)")
            XCTAssertTrue(response.text.contains("thumbor watermark"), response.text)
        }
    }

    /// frame() is refused with a 400 naming it (thumbor draws its nine-patch; not served here).
    func testFrameIsRefused() throws {
        try sources()
        try watermarkSources()
        let server = try thumborServe(["--watermark-allow-host", "127.0.0.1"])
        let response = try server.get("/unsafe/100x100/filters:frame(\(image("wm.png")))/\(image("land.jpg"))")
        XCTAssertEqual(response.status, 400, response.text)
        XCTAssertTrue(response.text.contains("frame"), response.text)
        XCTAssertEqual(origin.requestCount(path: "/wm.png"), 0)
    }
}
