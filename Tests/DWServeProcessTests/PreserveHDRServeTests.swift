// `ph:1` through imgproxy's pixel steps (trim, sharpen, adjust, monochrome, watermark) and a grey16 source kept grey,
// against the built `dwfetch serve`, read back with libvips' own tools.
import DWTestServer
import Foundation
import XCTest

extension ImgproxyParityServeTests {
    /// A 16-bit RGB PNG, 40 × 30: R = 10007 + 500·x, G = 20011 + 300·y, B = 30013 (so (1, 1) is 10507, 20311, 30013,
    /// none a multiple of 257: an 8-bit step in between would show), with alpha 50000 when `alpha = True`, written by
    /// hand (Pillow has no RGB16 mode).
    static let rgb16Script = """
        import base64, struct, zlib
        alpha = False
        def chunk(kind, body):
            return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
        pixel = lambda x, y: (10007 + 500 * x, 20011 + 300 * y, 30013) + ((50000,) if alpha else ())
        rows = b''.join(b'\\x00' + b''.join(struct.pack('>' + 'H' * len(pixel(x, y)), *pixel(x, y))
                                               for x in range(40)) for y in range(30))
        png = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 40, 30, 16, 6 if alpha else 2, 0, 0, 0))
               + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))
        print(base64.b64encode(png).decode())
        """

    /// A 16-bit grey PNG, 40 × 30: a 5-pixel border of 4660 around 40000 (not a multiple of 257).
    static let framedGrey16Script = """
        import base64, io
        from PIL import Image
        im = Image.new('I;16', (40, 30))
        im.putdata([40000 if 5 <= x < 35 and 5 <= y < 25 else 4660 for y in range(30) for x in range(40)])
        out = io.BytesIO(); im.save(out, 'PNG'); print(base64.b64encode(out.getvalue()).decode())
        """

    /// A 16-bit grey PNG, 40 × 30 of 4660, with an embedded grey ICC profile (gamma 2.2, written by hand: no grey
    /// profile ships with lcms or Pillow): in sRGB's curve (imgproxy's sGrey) that is 2556.
    static let greyICCScript = """
        import base64, io, struct
        from PIL import Image
        def s15(v): return struct.pack('>i', int(round(v * 65536)))
        white = s15(0.9642) + s15(1.0) + s15(0.8249)
        desc = b'desc' + bytes(4) + struct.pack('>I', 5) + b'grey' + bytes(1) + bytes(81)
        tags = [(b'desc', desc), (b'wtpt', b'XYZ ' + bytes(4) + white),
                (b'kTRC', b'curv' + bytes(4) + struct.pack('>IH', 1, 563) + bytes(2)), (b'cprt', b'text' + bytes(4) + b'no' + bytes(1))]
        offset, table, data = 128 + 4 + 12 * len(tags), b'', b''
        for sig, body in tags:
            body += bytes(-len(body) % 4)
            table += sig + struct.pack('>II', offset + len(data), len(body)); data += body
        body = struct.pack('>I', len(tags)) + table + data
        header = (struct.pack('>I', 128 + len(body)) + b'lcms' + struct.pack('>I', 0x02100000) + b'mntrGRAYXYZ '
                  + bytes(12) + b'acsp' + bytes(28) + white + bytes(48))
        im = Image.new('I;16', (40, 30)); im.putdata([4660] * 1200)
        out = io.BytesIO(); im.save(out, 'PNG', icc_profile=header + body); print(base64.b64encode(out.getvalue()).decode())
        """

    /// Each step keeps 16 bits with `ph:1` and does its maths there: brightness and contrast give exact 16-bit values
    /// (8-bit amounts × 257), saturation, sharpen and monochrome values that are no multiple of 257, the watermark
    /// leaves the pixels it does not cover exactly as they were, trim crops a grey16 source and keeps it grey; a grey
    /// background keeps grey16 grey, a coloured one makes it RGB16 (imgproxy's `vips_guard_colorspace`); a grey16
    /// source still writes a 16-bit AVIF, and one with a grey ICC profile comes out grey in sRGB's curve.
    func testPreserveHDRThroughEveryStep() throws {
        origin.setRoute("/rgb16.png", .ok(Data(base64Encoded: try python(Self.rgb16Script))!))
        let rgba16 = Self.rgb16Script.replacingOccurrences(of: "alpha = False", with: "alpha = True")
        origin.setRoute("/rgba16.png", .ok(Data(base64Encoded: try python(rgba16))!))
        origin.setRoute("/grey16.png", .ok(Data(base64Encoded: try python(Self.framedGrey16Script))!))
        origin.setRoute("/grey-icc.png", .ok(Data(base64Encoded: try python(Self.greyICCScript))!))
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("dwhdr-mark-\(UUID().uuidString).png")
        try SampleImages.png(width: 4, height: 4).write(to: mark)
        defer { try? FileManager.default.removeItem(at: mark) }
        let rgb = origin.url("/rgb16.png"), grey = origin.url("/grey16.png"), png = "extension='png'"
        let cases: [(String, String, Int, ([Int]) -> Bool)] = [
            (grey, "'ph:1'", 1, { $0 == [4660] }),
            (grey, "'ph:1', 't:10'", 1, { $0 == [40000] }),
            (grey, "'ph:1', 'pd:2', 'bg:808080'", 1, { $0 == [32896] }),
            (origin.url("/grey-icc.png"), "'ph:1'", 1, { p in p.count == 1 && abs(p[0] - 2556) < 30 }),
            (grey, "'ph:1', 'pd:2', 'bg:ff0000'", 3, { $0 == [65535, 0, 0] }),
            (rgb, "'ph:1', 'br:10'", 3, { $0 == [13077, 22881, 32583] }),
            (rgb, "'ph:1', 'co:2'", 3, { $0 == [0, 7726, 27130] }),
            (rgb, "'ph:1', 'sa:0.5'", 3, { p in p.count == 3 && p[0] > 10507 && p[2] < 30013 && p[1] % 257 != 0 }),
            (
                rgb, "'ph:1', 'sh:2'", 3,
                { p in p.count == 3 && abs(p[0] - 10507) < 400 && p.contains { $0 % 257 != 0 } }
            ),
            (rgb, "'ph:1', 'mc:1:ff0000'", 3, { p in p.count == 3 && p[0] > 0 && p[0] % 257 != 0 && p[1] == 0 }),
            (rgb, "'ph:1', 'wm:0.5:ce'", 3, { $0 == [10507, 20311, 30013] }),
            (origin.url("/rgba16.png"), "'ph:1', 'sh:2'", 4, { p in p.count == 4 && p[3] == 50000 }),
            (origin.url("/rgba16.png"), "'ph:1', 'sa:0.5', 'br:10'", 4, { p in p.count == 4 && p[3] == 50000 })
        ]
        let paths = try Self.pypi(cases.map { ($0.0, png, $0.1) } + [(grey, "extension='avif'", "'ph:1'")])
        let server = try serve(["--watermark", mark.path])
        for (path, (_, options, bands, check)) in zip(paths, cases) {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(options): \(response.text)")
            let facts = try Self.vips(response.body)
            XCTAssertEqual([facts.format, "\(facts.bands)"], ["ushort", "\(bands)"], options)
            XCTAssertTrue(check(facts.point), "\(options): \(facts.point)")
        }
        let watermarked = paths[cases.firstIndex { $0.1.contains("wm:") } ?? 0]
        let marked = try Self.vips(try server.get(watermarked).body, x: 20, y: 15)  // under the watermark
        XCTAssertNotEqual(marked.point, [20007, 24511, 30013], "the watermark is drawn at 16 bits")
        XCTAssertTrue(marked.point.contains { $0 % 257 != 0 }, "\(marked.point)")
        // AVIF has no grey: libheif gives RGB, 12 bits
        let avif = try Self.vips(try server.get(paths[cases.count]).body)
        XCTAssertEqual([avif.format, "\(avif.bands)"], ["ushort", "3"])
        // Lossy AVIF at imgproxy's quality rings near the frame's edge (4 pixels from 40000): a loose bound.
        XCTAssertEqual(avif.point.first ?? -1, 4660, accuracy: 3000, "\(avif.point)")
    }

    /// A grey watermark over a grey16 source keeps it grey16 (imgproxy's `vips_apply_watermark` composites in the
    /// image's space when both are grey): 200 at full opacity is about 200 × 256 there.
    func testPreserveHDRGreyWatermarkKeepsGrey() throws {
        origin.setRoute("/grey16.png", .ok(Data(base64Encoded: try python(Self.framedGrey16Script))!))
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("dwhdr-grey-\(UUID().uuidString).png")
        _ = try python("from PIL import Image\nImage.new('LA', (4, 4), (200, 255)).save('\(mark.path)')")
        defer { try? FileManager.default.removeItem(at: mark) }
        let path = try Self.pypi([(origin.url("/grey16.png"), "extension='png'", "'ph:1', 'wm:1:ce'")])[0]
        let server = try serve(["--watermark", mark.path])
        let response = try server.get(path)
        XCTAssertEqual(response.status, 200, response.text)
        let facts = try Self.vips(response.body, x: 20, y: 15)
        XCTAssertEqual([facts.format, "\(facts.bands)"], ["ushort", "1"])
        XCTAssertEqual(facts.point.first ?? -1, 51300, accuracy: 300, "\(facts.point)")
    }
}
