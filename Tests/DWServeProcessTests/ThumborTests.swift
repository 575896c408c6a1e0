// The thumbor dialect side by side with thumbor 7.8.0 itself: the same libthumbor URLs sent to both, the answers'
// status, Content-Type, size and pixels (PSNR) compared; then what serve does differently on purpose.
import DWTestServer
import Foundation
import XCTest

final class ThumborTests: ServeTestCase {
    /// One thumbor for the whole class (started by the first test that needs it).
    nonisolated(unsafe) private static var oracle: Result<ThumborOracle, Error>?

    override class func tearDown() {
        if case .success(let oracle) = Self.oracle { oracle.stop() }
        Self.oracle = nil
    }

    func thumbor() throws -> ThumborOracle {
        if Self.oracle == nil { Self.oracle = Result { try ThumborOracle() } }
        return try XCTUnwrap(Self.oracle).get()
    }

    /// A serve speaking thumbor with thumbor's key, unsafe URLs allowed (as the reference's conf).
    func thumborServe(_ args: [String] = []) throws -> ServeProcess {
        try serve(["--thumbor-key", ThumborOracle.key, "--thumbor-allow-unsafe"] + args)
    }

    /// Smooth colour fields with a few hard edges: a 300 × 200 JPEG (landscape), its 200 × 300 portrait twin, a
    /// 120 × 80 PNG whose right half is half transparent, and a 240 × 190 PNG: a 200 × 150 photo in a light frame.
    func sources() throws {
        let text = try python(
            """
            import base64, io
            from PIL import Image, ImageDraw
            def photo(w, h):
                im = Image.new('RGB', (w, h))
                px = im.load()
                for y in range(h):
                    for x in range(w):
                        px[x, y] = (x * 255 // (w - 1), y * 255 // (h - 1), (x + y) * 255 // (w + h - 2))
                d = ImageDraw.Draw(im)
                d.rectangle([w // 5, h // 5, w // 2, h // 2], fill=(250, 240, 20))
                d.ellipse([w // 2, h // 2, w - 10, h - 10], fill=(20, 30, 200))
                out = io.BytesIO(); im.save(out, 'JPEG', quality=95); return out.getvalue()
            alpha = Image.new('RGBA', (120, 80), (200, 40, 40, 255))
            ImageDraw.Draw(alpha).rectangle([60, 0, 119, 79], fill=(40, 200, 40, 128))
            out = io.BytesIO(); alpha.save(out, 'PNG')
            framed = Image.new('RGB', (240, 190), (250, 250, 250))
            framed.paste(Image.open(io.BytesIO(photo(200, 150))), (25, 15))
            out2 = io.BytesIO(); framed.save(out2, 'PNG')
            for data in (photo(300, 200), photo(200, 300), out.getvalue(), out2.getvalue()):
                print(base64.b64encode(data).decode())
            """)
        let images = text.split(separator: "\n").compactMap { Data(base64Encoded: String($0)) }
        XCTAssertEqual(images.count, 4)
        origin.setRoute("/framed.png", .ok(images[3], contentType: "image/png"))
        origin.setRoute("/land.jpg", .ok(images[0], contentType: "image/jpeg"))
        origin.setRoute("/port.jpg", .ok(images[1], contentType: "image/jpeg"))
        origin.setRoute("/alpha.png", .ok(images[2], contentType: "image/png"))
    }

    /// `host:port/name` as thumbor URLs usually carry the image (no scheme).
    func image(_ name: String) -> String { "127.0.0.1:\(origin.port)/\(name)" }

    /// Sends `path` to thumbor and to serve: the same status and Content-Type, the same size, pixels at least
    /// `psnr` dB apart (0: the size only, where the engines legitimately differ).
    func compare(
        _ path: String, on server: ServeProcess, psnr: Double, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let reference = try thumbor().get(path), ours = try server.get(path)
        XCTAssertEqual(ours.status, reference.status, "\(path): \(ours.text)", file: file, line: line)
        XCTAssertEqual(ours.header("Content-Type"), reference.header("Content-Type"), path, file: file, line: line)
        guard reference.status == 200, ours.status == 200 else { return }
        let measured = try PixelComparison(reference.body, ours.body)
        XCTAssertEqual(measured.sizes[1], measured.sizes[0], "\(path): output size", file: file, line: line)
        XCTAssertGreaterThanOrEqual(measured.psnr, psnr, "\(path): PSNR against thumbor's", file: file, line: line)
    }

    /// The grammar, row by row, as libthumbor writes it, signed and unsafe: sizes (0 keeps the aspect ratio), crop
    /// to fill at each alignment, fit-in (never crops, never enlarges), adaptive and full fit-in, enlarging outside
    /// fit-in, flips (with alignment and manual crop), the manual crop before the resize, and the image part with or
    /// without scheme, percent-encoded or not. Every row within 30 dB of thumbor's pixels (measured: 35-50 dB).
    func testGrammarMatchesThumbor() throws {
        try sources()
        let server = try thumborServe()
        let land = "image_url='\(image("land.jpg"))'", port = "image_url='\(image("port.jpg"))'"
        let calls = [
            "\(land), width=100, height=100",
            "\(land), width=150",
            "\(land), height=50",
            "\(land), width=120, height=40, halign='left', valign='top'",
            "\(land), width=80, height=120, halign='right', valign='bottom'",
            "\(port), width=100, height=60, valign='top'",
            "\(land), fit_in=True, width=100, height=100",
            "\(port), fit_in=True, width=100, height=100",
            "\(land), fit_in=True, width=400, height=400",
            "\(port), adaptive_fit_in=True, width=150, height=100",
            "\(land), adaptive_fit_in=True, width=150, height=100",
            "\(land), full_fit_in=True, width=100, height=100",
            "\(port), full_fit_in=True, width=400, height=400",
            "\(port), adaptive_full_fit_in=True, width=120, height=80",
            "\(land), width=600, height=300",
            "\(land), width=100, height=100, flip=True",
            "\(land), width=100, height=100, flop=True",
            "\(land), flip=True, flop=True",
            "\(land), width=100, height=100, flip=True, halign='left'",
            "\(port), width=100, height=100, flop=True, valign='top'",
            "\(land), crop=((10, 20), (210, 170)), width=100, flip=True, flop=True",
            "\(land), crop=((10, 20), (210, 170)), width=100",
            "\(land), crop=((50, 50), (250, 150)), width=50, height=50, halign='left'",
            "image_url='\(image("framed.png"))', trim=True",
            "image_url='\(image("framed.png"))', trim=('top-left', 30), width=100, height=100",
            "image_url='http://\(image("land.jpg"))', width=90, height=60",
            "image_url='\(image("land.jpg").replacingOccurrences(of: "/", with: "%2F"))', width=90",
            "image_url='http%3A%2F%2F\(image("land.jpg").replacingOccurrences(of: "/", with: "%2F"))', width=90"
        ]
        let signed = try ThumborOracle.libthumbor(calls)
        let unsafe = try ThumborOracle.libthumbor(calls.map { $0 + ", unsafe=True" })
        for path in signed + unsafe { try compare(path, on: server, psnr: 30) }
    }

    /// The filters served, against thumbor's own: encoding (quality, format), geometry (no_upscale, upscale,
    /// stretch, proportion, fill), colour (grayscale, rgb, equalize, colorize, convolution, brightness, contrast,
    /// saturation, blur, background_color, round_corner). 30 dB where the two compute the same thing; lower, and why, where they legitimately differ:
    /// `proportion` (thumbor resamples twice, serve once: 28 dB), `saturation`
    /// (serve scales chroma in LCh, thumbor mixes with its own luma: 25 dB), transparent `round_corner` (the alpha
    /// along the anti-aliased edge; thumbor's right-hand corners are a pixel narrower: 25 dB), an edge-detecting
    /// `convolution` (it amplifies the engines' small differences in the resized image: 25 dB).
    func testFiltersMatchThumbor() throws {
        try sources()
        let server = try thumborServe()
        let land = "image_url='\(image("land.jpg"))'", alpha = "image_url='\(image("alpha.png"))'"
        let port = "image_url='\(image("port.jpg"))'"
        let rows: [(String, Double)] = [
            ("\(land), width=100, filters=['quality(40)']", 30),
            ("\(land), width=100, filters=['format(png)']", 30),
            ("\(land), width=100, filters=['format(webp)']", 28),
            ("\(land), width=600, height=300, filters=['no_upscale()']", 30),
            ("\(land), fit_in=True, width=600, height=600, filters=['upscale()']", 30),
            ("\(land), width=100, height=150, filters=['stretch()']", 30),
            ("\(land), width=200, height=100, filters=['proportion(0.5)']", 28),
            ("\(land), fit_in=True, width=200, height=200, filters=['fill(ff0000)']", 30),
            ("\(land), fit_in=True, width=200, height=200, filters=['fill(blue)']", 30),
            ("\(land), fit_in=True, width=200, height=200, filters=['fill(auto)']", 30),
            ("\(land), fit_in=True, width=200, height=200, filters=['fill(blur)']", 30),
            ("\(port), adaptive_fit_in=True, width=200, height=120, filters=['fill(blur)']", 30),
            ("\(alpha), fit_in=True, width=200, height=100, filters=['fill(transparent)']", 30),
            ("\(land), width=100, filters=['grayscale()']", 30),
            ("\(alpha), filters=['grayscale()']", 30),
            ("\(land), width=100, filters=['rgb(20,-10,5)']", 30),
            ("\(land), width=100, filters=['equalize()']", 30),
            ("\(land), width=100, height=100, filters=['focal(200x120:260x180)']", 30),
            ("\(land), width=100, height=100, filters=['focal(0x0:40x40)']", 30),
            ("\(port), width=100, height=60, filters=['focal(20x240:60x280)']", 30),
            ("\(land), width=120, height=60, filters=['rotate(90)']", 30),
            ("\(land), width=120, height=60, halign='left', filters=['rotate(-90)']", 30),
            ("\(land), width=100, filters=['rotate(180)']", 30),
            ("\(land), width=100, filters=['rotate(45)']", 30),
            ("\(land), width=100, filters=['colorize(40,20,80,ff8000)']", 30),
            ("\(land), width=100, filters=['convolution(1;2;1;2;4;2;1;2;1,3,true)']", 30),
            ("\(land), width=100, filters=['convolution(-1;-1;-1;-1;8;-1;-1;-1;-1,3,false)']", 25),
            ("\(land), width=150, filters=['round_corner(20,255,255,255)']", 30),
            ("\(land), width=150, filters=['round_corner(30|15,0,0,0)']", 30),
            ("\(alpha), filters=['round_corner(20,255,0,0,1)']", 25),
            ("\(land), width=100, filters=['brightness(20)']", 30),
            ("\(land), width=100, filters=['contrast(30)']", 28),
            ("\(land), width=100, filters=['saturation(0.5)']", 25),
            ("\(land), width=100, filters=['blur(3)']", 28),
            ("\(alpha), filters=['background_color(00ff00)']", 30),
            ("\(land), width=100, filters=['strip_exif()', 'strip_icc()']", 30)
        ]
        let paths = try ThumborOracle.libthumbor(rows.map(\.0))
        for (path, row) in zip(paths, rows) { try compare(path, on: server, psnr: row.1) }
    }

    /// `meta/`: thumbor's JSON, field by field against thumbor's own (numbers compared as numbers: thumbor mixes
    /// ints and floats): `source` (url, width, height, frameCount), `operations`, `target`, `focal_points`.
    func testMetaMatchesThumbor() throws {
        try sources()
        let server = try thumborServe()
        let land = "image_url='\(image("land.jpg"))', meta=True", port = "image_url='\(image("port.jpg"))', meta=True"
        let paths = try ThumborOracle.libthumbor([
            "\(land), width=100, height=100", "\(land), fit_in=True, width=100, height=100", land,
            "\(land), crop=((10, 20), (210, 170)), width=100, flip=True", "\(port), width=100, height=60, valign='top'",
            "\(port), full_fit_in=True, width=120, height=120", "\(land), width=120, height=40, halign='right'",
            "\(land), width=100, height=150, filters=['stretch()']"
        ])
        for path in paths {
            let ours = try server.get(path), reference = try thumbor().get(path)
            XCTAssertEqual([ours.status, reference.status], [200, 200], "\(path): \(ours.text)")
            XCTAssertEqual(ours.header("Content-Type"), "application/json")
            let mine = try Self.meta(ours.body), theirs = try Self.meta(reference.body)
            for key in ["source", "operations", "target", "focal_points"] {
                XCTAssertEqual(mine[key], theirs[key], "\(path): \(key)")
            }
        }
    }

    /// A meta answer's fields with every number as a Double (thumbor writes 100 and 100.0 alike), and the focal
    /// point's `z` left out.
    static func meta(_ body: Data) throws -> [String: NSObject] {
        func normal(_ value: Any) -> NSObject {
            switch value {
            case let n as NSNumber: return NSNumber(value: n.doubleValue)
            case let a as [Any]: return a.map(normal) as NSArray
            case let d as [String: Any]:
                return d.filter { $0.key != "z" }.mapValues(normal) as NSDictionary
            default: return value as? NSObject ?? NSNull()
            }
        }
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let thumbor = try XCTUnwrap(root["thumbor"] as? [String: Any])
        return thumbor.mapValues(normal)
    }

    /// Headers thumbor's filters set: max_age(N) is the Cache-Control max-age, max_age(0) removes Cache-Control;
    /// format(heic) answers image/heif; max_bytes keeps the answer under its bound; /healthcheck is WORKING.
    func testHeaderFiltersAndHealthcheck() throws {
        try sources()
        let server = try thumborServe()
        let land = "image_url='\(image("land.jpg"))'"
        let paths = try ThumborOracle.libthumbor([
            "\(land), width=100, filters=['max_age(60)']", "\(land), width=100, filters=['max_age(0)']",
            "\(land), width=100, filters=['format(heic)']", "\(land), width=300, filters=['max_bytes(6000)']"
        ])
        XCTAssertEqual(try server.get(paths[0]).header("Cache-Control"), "public, max-age=60")
        let uncached = try server.get(paths[1])
        XCTAssertEqual(uncached.status, 200)
        XCTAssertNil(uncached.header("Cache-Control"))
        XCTAssertNil(try thumbor().get(paths[1]).header("Cache-Control"), "thumbor's own max_age(0)")
        let heif = try server.get(paths[2])
        XCTAssertEqual([heif.status, heif.header("Content-Type")] as [AnyHashable?], [200, "image/heif"], heif.text)
        let small = try server.get(paths[3])
        XCTAssertEqual(small.status, 200, small.text)
        XCTAssertLessThanOrEqual(small.body.count, 6000)
        XCTAssertEqual(try pillow(small.body).width, 300)
        for target in ["/healthcheck"] {
            let ours = try server.get(target), reference = try thumbor().get(target)
            XCTAssertEqual([ours.status, reference.status], [200, 200])
            XCTAssertEqual(ours.text, "WORKING")
            XCTAssertEqual(reference.text, "WORKING")
        }
    }
}
