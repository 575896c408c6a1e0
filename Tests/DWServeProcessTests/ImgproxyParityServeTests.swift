// The finer points of imgproxy's behaviour, against the built `dwfetch serve` with URLs from PyPI's imgproxy
// package: JPEG XL in and out (libjxl's cjxl makes the sources, djxl reads the results back), Accept's order and
// ENFORCE_*, the security options, and sizes with no parse-time bounds (the result limits refuse instead).
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ImgproxyParityServeTests: ServeTestCase {
    /// JPEG XL sources in both forms (bare codestream and ISO-BMFF container) are read; `f:jxl` writes JPEG XL at
    /// imgproxy's default quality 77; without a format an opaque JPEG XL source gets imgproxy's preferred JPEG.
    func testJPEGXLSourcesAndOutput() throws {
        let png = SampleImages.quadrants(width: 64, height: 48)
        origin.setRoute("/bare.jxl", .ok(try LibJXLTools.cjxl(png, container: false)))
        origin.setRoute("/boxed.jxl", .ok(try LibJXLTools.cjxl(png, container: true)))
        origin.setRoute(
            "/opaque.jxl", .ok(try LibJXLTools.cjxl(SampleImages.png(width: 64, height: 48), container: false)))
        origin.setRoute("/q.png", .ok(png))
        let server = try serve()
        let paths = try Self.pypi([
            (origin.url("/bare.jxl"), "width=32, height=32, resizing_type='fit', extension='png'", ""),
            (origin.url("/boxed.jxl"), "width=32, height=32, resizing_type='fit', extension='png'", ""),
            (origin.url("/opaque.jxl"), "width=32", ""),
            (origin.url("/q.png"), "width=32, extension='jxl'", ""),
            (origin.url("/q.png"), "width=32, extension='jxl'", "'q:77'"),
            (origin.url("/q.png"), "width=32, extension='jxl'", "'q:30'")
        ])
        for path in paths[0...1] {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
            let facts = try Self.pixels(response.body)
            XCTAssertEqual([facts.width, facts.height], [32, 24], path)
            XCTAssertEqual(facts.format, "PNG")
            XCTAssertEqual(facts.topLeft, [255, 0, 0], "lossless JPEG XL source, red top-left quadrant: \(path)")
        }
        let unnamed = try server.get(paths[2])
        XCTAssertEqual([unnamed.status, try pillow(unnamed.body).format] as [AnyHashable], [200, "JPEG"], unnamed.text)
        let jxl = try server.get(paths[3])
        XCTAssertEqual(jxl.status, 200, jxl.text)
        XCTAssertEqual(jxl.header("Content-Type"), "image/jxl")
        XCTAssertEqual(Array(jxl.body.prefix(2)), [0xFF, 0x0A], "a JPEG XL codestream")
        let decoded = try Self.pixels(try LibJXLTools.djxl(jxl.body))
        XCTAssertEqual([decoded.width, decoded.height], [32, 24])
        XCTAssertTrue(zip(decoded.topLeft, [255, 0, 0]).allSatisfy { abs($0 - $1) <= 24 }, "\(decoded.topLeft)")
        XCTAssertEqual(try server.get(paths[4]).body, jxl.body, "the default quality is imgproxy's 77")
        XCTAssertNotEqual(try server.get(paths[5]).body, jxl.body)
    }

    /// `Accept` allowing both: AVIF for a still result, WebP for an animation (imgproxy's order: JXL, AVIF, WebP,
    /// AVIF and JXL only when not animated); the bucket, not the raw header, is the key; `Vary: Accept`.
    func testAutoFormatOrderAVIFThenWebP() throws {
        origin.setRoute("/still.png", .ok(SampleImages.png(width: 40, height: 30)))
        origin.setRoute("/anim.gif", .ok(SampleImages.gif(width: 20, height: 20, frames: 3)))
        let server = try serve(["--auto-format", "--max-animation-frames", "10"])
        let paths = try Self.pypi([
            (origin.url("/still.png"), "width=32", ""), (origin.url("/anim.gif"), "width=10", "")
        ])
        let both = ["Accept": "image/avif,image/webp,*/*"]
        let still = try server.get(paths[0], headers: both)
        XCTAssertEqual(still.header("Content-Type"), "image/avif", still.text)
        XCTAssertEqual(still.header("Vary"), "Accept")
        let animated = try server.get(paths[1], headers: both)
        XCTAssertEqual(animated.header("Content-Type"), "image/webp", animated.text)
        XCTAssertEqual(try pillow(animated.body).frames, 3, "an animated WebP, every frame")
        let before = try server.metric("dwserve_transforms_total")
        XCTAssertEqual(try server.get(paths[0], headers: ["Accept": "image/webp;q=0.9, image/avif"]).body, still.body)
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), before, "the same bucket is the same variant")
        XCTAssertEqual(try server.get(paths[0], headers: ["Accept": "image/webp"]).header("Content-Type"), "image/webp")
        // --auto-jxl comes first; --auto-webp alone leaves AVIF to the preferred formats.
        let jxl = try serve(["--auto-jxl", "--auto-avif"])
        XCTAssertEqual(
            try jxl.get(paths[0], headers: ["Accept": "image/avif,image/jxl"]).header("Content-Type"), "image/jxl")
        let webpOnly = try serve(["--auto-webp"])
        XCTAssertEqual(
            try webpOnly.get(paths[0], headers: ["Accept": "image/avif"]).header("Content-Type"), "image/png")
    }

    /// imgproxy's ENFORCE_*: the client's `Accept` wins even over the URL's format (WebP always, AVIF and JPEG XL
    /// for a still result only); a client that does not accept it gets the URL's format.
    func testEnforceOverridesTheURLsFormat() throws {
        origin.setRoute("/still.png", .ok(SampleImages.png(width: 40, height: 30)))
        origin.setRoute("/anim.gif", .ok(SampleImages.gif(width: 20, height: 20, frames: 3)))
        let paths = try Self.pypi([
            (origin.url("/still.png"), "width=32, extension='png'", ""),
            (origin.url("/anim.gif"), "width=10, extension='gif'", "")
        ])
        let webp = try serve(["--enforce-webp"])
        let enforced = try webp.get(paths[0], headers: ["Accept": "image/webp"])
        XCTAssertEqual(enforced.header("Content-Type"), "image/webp", enforced.text)
        XCTAssertEqual(enforced.header("Vary"), "Accept")
        XCTAssertEqual(try webp.get(paths[0], headers: ["Accept": "image/png"]).header("Content-Type"), "image/png")
        XCTAssertEqual(try webp.get(paths[0]).header("Content-Type"), "image/png", "no Accept: the URL's format")
        let avif = try serve(["--enforce-avif", "--max-animation-frames", "10"])
        let both = ["Accept": "image/avif,image/webp"]
        XCTAssertEqual(try avif.get(paths[0], headers: both).header("Content-Type"), "image/avif")
        let animation = try avif.get(paths[1], headers: both)
        XCTAssertEqual(animation.header("Content-Type"), "image/gif", "no animated AVIF: the URL's GIF stays")
        XCTAssertEqual(try pillow(animation.body).frames, 3)
    }

    /// Without `--allow-security-options` each is imgproxy's 403 (a known option that is forbidden, not a malformed
    /// one); with it, each limit bites at the value given.
    func testSecurityOptionsForbiddenByDefaultAndEffectiveWhenAllowed() throws {
        let png = SampleImages.png(width: 300, height: 200)  // 0.06 MP
        origin.setRoute("/p.png", .ok(png))
        origin.setRoute("/anim.gif", .ok(SampleImages.gif(width: 20, height: 20, frames: 5)))
        let source = origin.url("/p.png"), gif = origin.url("/anim.gif")
        let options = ["msr:1", "max_src_file_size:100000000", "maf:2", "mafr:1", "mrd:10"]
        let paths = try Self.pypi(
            options.map { (source, "width=50", "'\($0)'") } + [
                (source, "width=50", "'msr:0.059'"), (source, "width=50", "'msr:0.06'"),
                (source, "width=50", "'msfs:\(png.count - 1)'"), (source, "width=50", "'msfs:\(png.count)'"),
                (gif, "extension='gif'", "'maf:3'"), (gif, "extension='gif'", "'maf:3', 'mafr:0.0003'"),
                (gif, "extension='gif'", "'maf:3', 'mafr:0.0005'"), (source, "", "'mrd:60'"),
                (source, "", "'mrd:60', 'pd:10'")
            ])
        let closed = try serve()
        for path in paths[0..<options.count] {
            let response = try closed.get(path)
            XCTAssertEqual(response.status, 403, "\(path): \(response.text)")
            XCTAssertTrue(response.text.contains("security processing options are not allowed"), response.text)
        }
        let open = try serve(["--allow-security-options"])
        for path in paths[0..<options.count] { XCTAssertEqual(try open.get(path).status, 200, path) }
        let statuses = try paths[options.count..<options.count + 4].map { try open.get($0).status }
        XCTAssertEqual(statuses, [422, 200, 422, 200], "msr at 0.06 MP, msfs at the source's \(png.count) bytes")
        let three = try open.get(paths[options.count + 4])
        XCTAssertEqual(ServeAttackTests.gifFrameCount(three.body), 3, "maf:3: three frames, whatever the server's rule")
        XCTAssertEqual(try open.get(paths[options.count + 5]).status, 422, "mafr: a 400-pixel frame over 300")
        XCTAssertEqual(try open.get(paths[options.count + 6]).status, 200)
        let scaled = try pillow(try open.get(paths[options.count + 7]).body)
        XCTAssertEqual([scaled.width, scaled.height], [60, 40], "mrd scales the result down to fit")
        let padded = try pillow(try open.get(paths[options.count + 8]).body)
        XCTAssertEqual([padded.width, padded.height], [60, 42], "padding counted, as imgproxy's limitScale")
    }

    /// No parse-time bounds (imgproxy has none): `dpr:20` with a small width works as imgproxy (never past the
    /// source without enlarge); `w:100000` without enlarge is the source's size; with enlarge the result limit
    /// refuses it (422, imgproxy's status for its size limits) from the header, before any transform or allocation.
    func testHugeSizesAreJudgedByTheResultLimitsNotTheParser() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 300, height: 200)))
        let source = origin.url("/p.png")
        let paths = try Self.pypi([
            (source, "width=10", "'dpr:20'"), (source, "width=10", "'dpr:2.5'"),
            (source, "width=100000", ""), (source, "width=100000, enlarge=True", ""),
            (source, "width=10, enlarge=True", "'dpr:100000'")
        ])
        let server = try serve()
        let sizes = try paths[0...2].map { path -> [Int] in
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
            let facts = try pillow(response.body)
            return [facts.width, facts.height]
        }
        XCTAssertEqual(sizes, [[200, 133], [25, 17], [300, 200]])
        let before = server.residentBytes
        for path in paths[3...4] {
            let refused = try server.get(path)
            XCTAssertEqual(refused.status, 422, "\(path): \(refused.text)")
        }
        XCTAssertLessThan(server.residentBytes - before, 32 << 20, "nothing big was allocated")
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 3, "refused before their transforms started")
    }

    /// `ph:1` (imgproxy 4's preserve_hdr): a 16-bit source stays 16-bit in PNG, TIFF, AVIF and JPEG XL; JPEG (and
    /// every result without `ph:1`) is 8-bit; padding's background is the 16-bit red. Read back by libvips'
    /// vipsheader and getpoint.
    func testPreserveHDRKeeps16Bits() throws {
        let grey16 = Data(
            base64Encoded: try python(
                """
                import base64, io
                from PIL import Image
                im = Image.new('I;16', (40, 30)); im.putdata([0x1234] * 1200); out = io.BytesIO(); im.save(out, 'PNG')
                print(base64.b64encode(out.getvalue()).decode())
                """))!
        origin.setRoute("/g16.png", .ok(grey16))
        let source = origin.url("/g16.png")
        let paths = try Self.pypi([
            (source, "width=20, extension='png'", "'ph:1'"), (source, "width=20, extension='png'", ""),
            (source, "width=20, extension='tiff'", "'preserve_hdr:1'"),
            (source, "width=20, extension='jxl'", "'ph:1'"), (source, "width=20, extension='jpg'", "'ph:1'"),
            (source, "width=20", "'ph:1', 'rot:90', 'c:10:10'"),
            (source, "width=20", "'ph:1', 'pd:4', 'bg:ff0000', 'bl:1'")
        ])
        let server = try serve()
        let expected: [(String, [Int])] = [
            ("ushort", [4660]), ("uchar", [18]), ("ushort", [4660]), ("ushort", [4660]),
            ("uchar", [18]), ("ushort", [4660]), ("ushort", [65535])
        ]
        for (path, (format, value)) in zip(paths, expected) {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
            let facts = try Self.vips(response.body)
            XCTAssertEqual(facts.format, format, path)
            XCTAssertEqual(facts.point.first ?? -1, value[0], accuracy: value[0] / 20, "\(path): \(facts.point)")
        }
    }

    // MARK: - Helpers

    /// The band format (`uchar`, `ushort`), the band count and the pixel at `x`, `y` as libvips' own tools read them.
    static func vips(_ data: Data, x: Int = 1, y: Int = 1) throws -> (format: String, point: [Int], bands: Int) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwhdr-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func run(_ arguments: [String]) throws -> String {  // libvips-tools (scripts/setup.sh installs it)
            try Subprocess.output(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let text = try run(["vipsheader", "-f", "format", file.path])  // "…VIPS_FORMAT_USHORT…"
        let format = ["uchar", "ushort"].first { text.contains("VIPS_FORMAT_" + $0.uppercased() + ")") } ?? text
        let point = try run(["vips", "getpoint", file.path, "\(x)", "\(y)"]).split(separator: " ").compactMap {
            Int($0)
        }
        return (format, point, Int(try run(["vipsheader", "-f", "bands", file.path])) ?? 0)
    }

    /// The paths PyPI's imgproxy package builds: (source, keyword arguments, extra options) each, one python3 run.
    static func pypi(_ cases: [(String, String, String)]) throws -> [String] {
        let lines = cases.map { source, kwargs, extra in
            "print(imgproxy.ImgProxy('\(source)'\(kwargs.isEmpty ? "" : ", " + kwargs))(\(extra)))"
        }
        let paths = try python("import imgproxy\n" + lines.joined(separator: "\n")).split(separator: "\n").map(
            String.init)
        XCTAssertEqual(paths.count, cases.count)
        return paths
    }

    /// Size, format and the (1, 1) pixel's RGB as Pillow reads them.
    static func pixels(_ data: Data) throws -> (width: Int, height: Int, format: String, topLeft: [Int]) {
        let text = try python(
            """
            import base64, io
            from PIL import Image
            im = Image.open(io.BytesIO(base64.b64decode('\(data.base64EncodedString())')))
            print(im.width, im.height, im.format, *im.convert('RGB').getpixel((1, 1)))
            """)
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 6 else { throw MissingPrerequisite("Pillow could not read the image: \(text)") }
        return (Int(parts[0]) ?? -1, Int(parts[1]) ?? -1, parts[2], parts[3...].map { Int($0) ?? -1 })
    }
}
