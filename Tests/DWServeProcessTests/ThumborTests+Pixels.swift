// thumbor's byte-level filters (sharpen, noise, curve), autojpg and extract_focal side by side with thumbor 7.8.0.
import DWTestServer
import Foundation
import XCTest

extension ThumborTests {
    /// `mid.png`: 160 × 120 RGB of mid-range gradients and a few hard edges, no alpha (noise is not clipped on it).
    func pixelSources() throws {
        let text = try python(
            """
            import base64, io
            from PIL import Image, ImageDraw
            im = Image.new('RGB', (160, 120))
            px = im.load()
            for y in range(120):
                for x in range(160):
                    px[x, y] = (60 + x * 120 // 159, 60 + y * 120 // 119, 90 + (x + y) * 60 // 278)
            d = ImageDraw.Draw(im)
            d.rectangle([30, 20, 70, 60], fill=(190, 180, 70))
            d.ellipse([80, 50, 150, 110], fill=(70, 80, 180))
            out = io.BytesIO(); im.save(out, 'PNG')
            print(base64.b64encode(out.getvalue()).decode())
            """)
        origin.setRoute("/mid.png", .ok(try XCTUnwrap(Data(base64Encoded: text)), contentType: "image/png"))
    }

    /// sharpen, seeded noise and curve on PNG sources without a resize: thumbor's C on the same bytes, so the
    /// answers are equal pixel for pixel (checked at 60 dB, where a single differing byte would show); with a
    /// resize and JPEG, within 30 dB as the other filters.
    func testPixelFiltersMatchThumbor() throws {
        try sources()
        try pixelSources()
        let server = try thumborServe()
        let mid = "image_url='\(image("mid.png"))'", framed = "image_url='\(image("framed.png"))'"
        let alpha = "image_url='\(image("alpha.png"))'", land = "image_url='\(image("land.jpg"))'"
        let curve =
            "curve([(0,0),(40,59),(255,255)],[(32,59),(64,80),(128,153),(192,214),(255,212)],"
            + "[(34,41),(128,112),(255,255)],[(40,46),(128,127),(255,198)])"
        let rows: [(String, Double)] = [
            ("\(mid), filters=['sharpen(2,1,true)']", 60),
            ("\(mid), filters=['sharpen(1.5,0.5,false)']", 60),
            ("\(framed), filters=['sharpen(5,3,false)']", 60),
            ("\(alpha), filters=['sharpen(2,1,true)']", 60),
            ("\(land), width=120, filters=['sharpen(2,1,true)']", 30),
            ("\(mid), filters=['noise(40,7)']", 60),
            ("\(alpha), filters=['noise(30,123)']", 60),
            ("\(mid), filters=['\(curve)']", 60),
            (
                "\(framed), filters=['curve([(0,0),(255,255)],[(0,50),(128,170),(255,254)],[(0,0),(255,255)],[(0,48),(255,225)])']",
                60
            ),
            ("\(land), width=120, filters=['\(curve)']", 30)
        ]
        let paths = try ThumborOracle.libthumbor(rows.map(\.0))
        for (path, row) in zip(paths, rows) { try compare(path, on: server, psnr: row.1) }
    }

    /// Unseeded noise is random in both: the same size and type, and the same statistics of the change it makes
    /// (mean about 0, standard deviation about amount/√12 per channel) within 10 %.
    func testUnseededNoiseMatchesThumborStatistically() throws {
        try pixelSources()
        let server = try thumborServe()
        let path = try ThumborOracle.libthumbor(["image_url='\(image("mid.png"))', filters=['noise(40)']"])[0]
        let plain = try ThumborOracle.libthumbor(["image_url='\(image("mid.png"))'"])[0]
        let ours = try server.get(path), reference = try thumbor().get(path), source = try thumbor().get(plain)
        XCTAssertEqual([ours.status, reference.status], [200, 200], ours.text)
        XCTAssertEqual(ours.header("Content-Type"), reference.header("Content-Type"))
        let mine = try Self.noiseStatistics(ours.body, source.body),
            theirs = try Self.noiseStatistics(reference.body, source.body)
        XCTAssertEqual(mine.mean, theirs.mean, accuracy: 1, "mean change")
        XCTAssertEqual(mine.deviation, theirs.deviation, accuracy: theirs.deviation * 0.1, "spread of the change")
        XCTAssertGreaterThan(mine.deviation, 8, "noise was added")
        let again = try server.get(path.replacingOccurrences(of: "noise(40)", with: "noise(40):quality(80)"))
        XCTAssertNotEqual(again.body, ours.body, "unseeded: another rendering, other noise")
    }

    /// The mean and standard deviation of `noisy` − `clean` over the red channel.
    private static func noiseStatistics(_ noisy: Data, _ clean: Data) throws -> (mean: Double, deviation: Double) {
        let text = try python(
            """
            import base64, io, statistics
            from PIL import Image
            a = Image.open(io.BytesIO(base64.b64decode('\(noisy.base64EncodedString())'))).convert('RGB')
            b = Image.open(io.BytesIO(base64.b64decode('\(clean.base64EncodedString())'))).convert('RGB')
            d = [p[0] - q[0] for p, q in zip(a.getdata(), b.getdata())]
            print(statistics.mean(d), statistics.pstdev(d))
            """)
        let parts = text.split(separator: " ").compactMap { Double($0) }
        guard parts.count == 2 else { throw ServeStartFailure("no statistics: \(text)") }
        return (parts[0], parts[1])
    }

    /// autojpg: an opaque PNG becomes JPEG, one with alpha stays PNG, `autojpg(false)` and an explicit format win,
    /// and `meta/` lists `auto_png_to_jpg_conversion` where thumbor's does;
    /// extract_focal changes nothing in thumbor 7.8 (it reads the image part percent-encoded, so the inner crop
    /// never matches) and nothing here: the outer image is fetched as it is.
    func testAutoJPGAndExtractFocalMatchThumbor() throws {
        try sources()
        try pixelSources()
        let land = try HTTPClient.request(port: origin.port, target: "/land.jpg").body
        origin.setRoute("/unsafe/10x20:110x120/land.jpg", .ok(land, contentType: "image/jpeg"))
        let server = try thumborServe()
        let mid = "image_url='\(image("mid.png"))'", alpha = "image_url='\(image("alpha.png"))'"
        let rows = [
            "\(mid), filters=['autojpg()']", "\(mid), width=80, filters=['autojpg(true)']",
            "\(mid), filters=['autojpg(false)']", "\(alpha), filters=['autojpg()']",
            "\(mid), filters=['autojpg()', 'format(webp)']", "image_url='\(image("land.jpg"))', filters=['autojpg()']",
            "image_url='\(image("unsafe/10x20:110x120/land.jpg"))', width=60, height=60, filters=['extract_focal()']"
        ]
        let paths = try ThumborOracle.libthumbor(rows)
        for path in paths { try compare(path, on: server, psnr: 30) }
        XCTAssertEqual(try server.get(paths[0]).header("Content-Type"), "image/jpeg")
        XCTAssertEqual(try server.get(paths[3]).header("Content-Type"), "image/png")
        let metas = try ThumborOracle.libthumbor([
            "\(mid), meta=True, width=80, filters=['autojpg()']", "\(alpha), meta=True, filters=['autojpg()']",
            "\(mid), meta=True, filters=['autojpg()', 'format(png)']"
        ])
        for path in metas {
            let mine = try Self.meta(try server.get(path).body), theirs = try Self.meta(try thumbor().get(path).body)
            XCTAssertEqual(mine["operations"], theirs["operations"], path)
        }
    }
}
