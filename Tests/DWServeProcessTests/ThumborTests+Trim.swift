// thumbor's trim side by side with thumbor 7.8.0: both reference corners, the tolerance, and thumbor's own scan.
import DWTestServer
import Foundation
import XCTest

extension ThumborTests {
    /// Sources for the trim: `edges.png` (200 × 150) is a photo in a light, slightly uneven border (each pixel up to
    /// 14 from the top-left one) with a dark 4 × 4 patch in the bottom-right corner; `dark.png` the same in a dark
    /// border with a light patch in the top-left corner; `dot.png` is white with one black pixel (thumbor's scan
    /// then finds no right edge and ignores the trim).
    func trimSources() throws {
        let text = try python(
            """
            import base64, io
            from PIL import Image
            def framed(light, patch):
                im = Image.new('RGB', (200, 150))
                px = im.load()
                for y in range(150):
                    for x in range(200):
                        j = (x * 7 + y * 13) % 9
                        if patch(x, y):
                            px[x, y] = (30, 28, 35) if light else (240, 238, 236)
                        elif x < 25 or y < 20 or x >= 170 or y >= 125:
                            px[x, y] = (240 - j, 238 - j, 236 - j) if light else (30 + j, 28 + j, 35 + j)
                        else:
                            px[x, y] = (x % 256, y * 255 // 149, (x + y) % 256)
                out = io.BytesIO(); im.save(out, 'PNG'); return out.getvalue()
            edges = framed(True, lambda x, y: x >= 196 and y >= 146)
            dark = framed(False, lambda x, y: x < 4 and y < 4)
            dot = Image.new('RGB', (50, 40), (255, 255, 255))
            dot.putpixel((20, 10), (0, 0, 0))
            out2 = io.BytesIO(); dot.save(out2, 'PNG')
            for data in (edges, dark, out2.getvalue()):
                print(base64.b64encode(data).decode())
            """)
        let images = text.split(separator: "\n").compactMap { Data(base64Encoded: String($0)) }
        XCTAssertEqual(images.count, 3)
        origin.setRoute("/edges.png", .ok(images[0], contentType: "image/png"))
        origin.setRoute("/dark.png", .ok(images[1], contentType: "image/png"))
        origin.setRoute("/dot.png", .ok(images[2], contentType: "image/png"))
    }

    /// `trim`, `trim:top-left:N`, `trim:bottom-right[:N]` and `trim:N` (thumbor's bottom-right, tolerance 0): the
    /// same box as thumbor's (the output size is compared exactly; the rows were chosen so that the boxes differ:
    /// 175 × 130, 170 × 125, untrimmed), the pixels identical (PNG, no resize) or within 30 dB after a resize; a
    /// half-transparent corner (the alpha counts in the distance); the one-pixel quirk.
    func testTrimMatchesThumbor() throws {
        try sources()
        try trimSources()
        let server = try thumborServe()
        let edges = "image_url='\(image("edges.png"))'", dark = "image_url='\(image("dark.png"))'"
        let alpha = "image_url='\(image("alpha.png"))'"
        let rows: [(String, Double)] = [
            ("\(edges), trim=True", 60),
            ("\(edges), trim=('top-left', 13)", 60),
            ("\(edges), trim=('top-left', 15)", 60),
            ("\(edges), trim=('bottom-right', 15)", 60),
            ("\(dark), trim=('bottom-right', None)", 60),
            ("\(dark), trim=('bottom-right', 15)", 60),
            ("\(dark), trim=('top-left', 15)", 60),
            ("\(dark), trim=('bottom-right', 40), width=80", 30),
            ("\(edges), trim=('top-left', 500)", 60),
            ("\(alpha), trim=('bottom-right', None)", 60),
            ("\(alpha), trim=('top-left', 100)", 60),
            ("image_url='\(image("framed.png"))', trim=('bottom-right', 5), fit_in=True, width=90, height=90", 30),
            ("image_url='\(image("dot.png"))', trim=True", 60)
        ]
        let signed = try ThumborOracle.libthumbor(rows.map(\.0))
        for (path, row) in zip(signed, rows) { try compare(path, on: server, psnr: row.1) }
        for path in ["/unsafe/trim:10/\(image("dark.png"))", "/unsafe/trim:bottom-right:15/\(image("dark.png"))"] {
            try compare(path, on: server, psnr: 60)
        }
        let box = try server.get("/unsafe/trim:bottom-right:15/\(image("dark.png"))")
        XCTAssertEqual(try pillow(box.body).width, 170, "the dark border trimmed by the bottom-right pixel")
        let light = try server.get("/unsafe/trim:top-left:15/\(image("edges.png"))")
        XCTAssertEqual(try pillow(light.body).height, 130, "the light border trimmed by the top-left pixel")
    }
}
