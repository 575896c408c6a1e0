// `dwfetch serve` as a drop-in imgproxy over HTTP: URLs built by PyPI's imgproxy package (signed and unsigned) and
// from imgproxy's docs, presets, exp, fn/att, local:// under --local-root, the fallback image, and the same bytes and
// key as `dwfetch --quality 80`. Outputs read back with Pillow (the reference reader).
import Crypto
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ImgproxyServeTests: ServeTestCase {
    let key = "736563726574", salt = "68656C6C6F"

    func testURLsFromPyPIsImgproxyPackageSignedAndUnsigned() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 64, height: 48)))
        let source = origin.url("/p.png")
        // (keyword arguments of imgproxy.ImgProxy, extra options, width, height, format)
        let cases: [(String, String, Int, Int, String)] = [
            ("width=32, height=32, resizing_type='fit'", "", 32, 24, "PNG"),
            ("width=20, height=20, resizing_type='fill', gravity='sm'", "", 20, 20, "PNG"),
            ("width=20, height=40", "", 20, 15, "PNG"),  // the package's default: auto, which fits here
            (
                "width=30, height=30, resizing_type='fill', gravity='nowe', extension='webp'", "'bl:1', 'q:70'", 30, 30,
                "WEBP"
            ),
            ("width=16, height=0, enlarge=False, extension='jpg'", "'pd:2', 'bg:ffffff'", 20, 16, "JPEG")
        ]
        for signed in [false, true] {
            let server = try serve(signed ? ["--key", key, "--salt", salt] : [])
            for (kwargs, extra, width, height, format) in cases {
                let credentials = signed ? ", key='\(key)', salt='\(salt)'" : ""
                let path = try python(
                    "import imgproxy; print(imgproxy.ImgProxy('\(source)'\(credentials), \(kwargs))(\(extra)))")
                XCTAssertEqual(path.hasPrefix("/insecure/"), !signed, path)
                let response = try server.get(path)
                XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
                let facts = try pillow(response.body)
                XCTAssertEqual([facts.width, facts.height], [width, height], path)
                XCTAssertEqual(facts.format, format, path)
            }
        }
    }

    /// Examples from imgproxy's processing docs, written by hand.
    func testHandWrittenURLsFromImgproxysDocs() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 400, height: 300)))
        let server = try serve()
        let encoded = ProxyPath.base64url(origin.url("/p.png"))
        let cases: [(String, Int, Int, String)] = [
            // no enlarge: the box cut to the image
            ("/insecure/rs:fill:300:400:0/g:sm/\(encoded).png", 300, 300, "PNG"),
            ("/insecure/rs:fit:300:300/\(encoded)", 300, 225, "PNG"),
            ("/insecure/resize:fill:300:400:0/gravity:sm/plain/\(origin.url("/p.png"))@jpg", 300, 300, "JPEG"),
            ("/insecure/w:200/h:200/rt:fill/ex:1/\(encoded).webp", 200, 200, "WEBP"),
            ("/insecure/c:200:100:nowe/\(encoded)", 200, 100, "PNG"),
            ("/insecure/rs:fit:100:100/pd:10:20/\(encoded)", 140, 95, "PNG"),
            ("/insecure/dpr:2/w:100/\(encoded)", 200, 150, "PNG"),
            ("/insecure/mw:500/\(encoded)", 500, 375, "PNG")
        ]
        for (path, width, height, format) in cases {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
            let facts = try pillow(response.body)
            XCTAssertEqual([facts.width, facts.height, facts.format] as [AnyHashable], [width, height, format], path)
        }
        let unknown = try server.get("/insecure/w:10/bogus:1/\(encoded)")
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(unknown.text.contains("bogus"), unknown.text)
    }

    func testPresetsAndOnlyPresets() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 64, height: 48)))
        let source = origin.url("/p.png")
        let server = try serve(["--preset", "default=f:webp", "--preset", "small=rs:fill:16:16"])
        let small = try server.get(ProxyPath.plain(source, options: "pr:small"))
        XCTAssertEqual(small.status, 200, small.text)
        XCTAssertEqual(small.header("Content-Type"), "image/webp", "default applies to every request")
        XCTAssertEqual(try pillow(small.body).width, 16)
        let only = try serve(["--only-presets", "--preset", "small=rs:fill:16:16/f:png"])
        let named = try only.get("/insecure/small/plain/\(source)")
        XCTAssertEqual(named.status, 200, named.text)
        XCTAssertEqual(try pillow(named.body).height, 16)
        XCTAssertEqual(try only.get(ProxyPath.plain(source, options: "w:10")).status, 400, "options are not presets")
    }

    func testExpiresCacheBusterAndContentDisposition() throws {
        origin.setRoute("/photos/cat.png", .ok(SampleImages.png(width: 32, height: 32)))
        let server = try serve()
        let source = origin.url("/photos/cat.png")
        let expired = try server.get(ProxyPath.plain(source, options: "exp:1600000000"))
        XCTAssertEqual(expired.status, 404, expired.text)
        XCTAssertEqual(
            try server.get(ProxyPath.plain(source, options: "exp:4102444800")).status, 200, "2100 is not past")
        let before = try server.metric("dwserve_transforms_total")
        let one = try server.get(ProxyPath.plain(source, options: "w:8/cb:1"))
        let two = try server.get(ProxyPath.plain(source, options: "w:8/cb:2"))
        XCTAssertEqual(one.body, two.body, "cb changes the key, not the image")
        XCTAssertEqual(
            try server.metric("dwserve_transforms_total") - before, 2, "each cache buster is its own variant")
        XCTAssertNil(one.header("Content-Disposition"))
        let attachment = try server.get(ProxyPath.plain(source, options: "att:1", ext: "webp"))
        XCTAssertEqual(
            attachment.header("Content-Disposition"),
            "attachment; filename=\"cat.webp\"; filename*=UTF-8''cat.webp")
        let named = try server.get(ProxyPath.plain(source, options: "fn:\(ProxyPath.base64url("a\"b/c\r\nd")):1"))
        let header = try XCTUnwrap(named.header("Content-Disposition"))
        XCTAssertTrue(header.hasPrefix("inline; filename=\"a_b_c__d.png\""), header)
        XCTAssertFalse(header.dropFirst(8).contains("\"b"), "no quote of the name reaches the header: \(header)")
    }

    func testLocalSourcesStayUnderTheRoot() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwlocal-\(UUID().uuidString)")
        let inside = root.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try SampleImages.png(width: 20, height: 10).write(to: inside.appendingPathComponent("a.png"))
        let secret = root.appendingPathComponent("secret.png")
        try SampleImages.png(width: 5, height: 5).write(to: secret)
        try FileManager.default.createSymbolicLink(
            at: inside.appendingPathComponent("out.png"), withDestinationURL: secret)
        let server = try serve(["--local-root", inside.path])
        let ok = try server.get("/insecure/w:10/plain/local:///a.png")
        XCTAssertEqual(ok.status, 200, ok.text)
        XCTAssertEqual(try pillow(ok.body).width, 10)
        XCTAssertEqual(try server.get("/insecure/\(ProxyPath.base64url("local:///a.png"))").status, 200)
        for escape in [
            "local:///../secret.png", "local:///%2e%2e/secret.png", "local:///out.png", "local://\(secret.path)",
            "local:///images/../../secret.png", "local:///", "local:///missing.png"
        ] {
            let refused = try server.get("/insecure/plain/\(escape)")
            XCTAssertTrue([403, 404].contains(refused.status), "\(escape): \(refused.status) \(refused.text)")
        }
        let disabled = try serve()
        XCTAssertEqual(
            try disabled.get("/insecure/plain/local:///a.png").status, 404, "no --local-root: no local files")
    }

    func testFallbackImageOnOrigin404() throws {
        origin.setRoute("/gone.png", .status(404))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwfallback-\(UUID().uuidString).png")
        try SampleImages.png(width: 40, height: 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try serve(["--fallback-image", file.path, "--fallback-max-age", "60"])
        let response = try server.get(ProxyPath.plain(origin.url("/gone.png"), options: "w:20"))
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Cache-Control"), "public, max-age=60")
        XCTAssertEqual([try pillow(response.body).width, try pillow(response.body).height], [20, 10], "processed too")
        let other = try serve(["--fallback-image", file.path, "--fallback-status", "404"])
        XCTAssertEqual(try other.get(ProxyPath.plain(origin.url("/gone.png"))).status, 404)
        XCTAssertEqual(try serve().get(ProxyPath.plain(origin.url("/gone.png"))).status, 404, "no fallback: the error")
    }

    /// "Keep the format, quality 80" gives the same bytes from dwfetch's flags and from a URL. A TIFF source is not a
    /// preferred format: serve makes it JPEG (as imgproxy), what `--format jpeg` asks dwfetch for.
    func testDwfetchAndServeGiveTheSameBytesForTheSameRequest() throws {
        for (path, data, format) in [
            ("/t.tiff", SampleImages.tiff(width: 24, height: 16), "jpeg"),
            ("/j.jpg", SampleImages.jpeg, nil)
        ] {
            origin.setRoute(path, .ok(data))
            let served = try serve().get(ProxyPath.plain(origin.url(path), options: "q:80"))
            XCTAssertEqual(served.status, 200, served.text)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwsame-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            let line = try dwfetchJSON(
                [
                    "--cache-dir", dir.appendingPathComponent("cache").path, "--quality", "80", "-o",
                    dir.appendingPathComponent("out").path, origin.url(path)
                ]
                    + (format.map { ["--format", $0] } ?? []))
            XCTAssertEqual(line["variant"] as? String, format.map { "plan(f:\($0)/q:80)" } ?? "plan(q:80)", path)
            XCTAssertEqual(
                line["sha256"] as? String, SHA256.hash(data: served.body).map { String(format: "%02x", $0) }.joined(),
                "\(path): the same bytes from dwfetch and serve")
        }
    }

    /// No format in the URL: imgproxy's preferred formats (`--preferred-formats`, default jpeg,png,gif) over HTTP,
    /// the flag in `--help`, and a list with an unknown format refused at start (exit 2).
    func testPreferredFormatsOverHTTP() throws {
        origin.setRoute(
            "/w.webp",
            .ok(
                try python(
                    """
                    import io, sys; from PIL import Image; out = io.BytesIO()
                    Image.new('RGB', (32, 32), (200, 0, 0)).save(out, 'WEBP'); print(out.getvalue().hex())
                    """
                ).hexBytes))
        origin.setRoute("/j.jpg", .ok(SampleImages.jpeg))
        let path = { (name: String) in
            try python("import imgproxy; print(imgproxy.ImgProxy('\(self.origin.url(name))', width=16, height=16)())")
        }
        let server = try serve()
        XCTAssertEqual(try server.get(path("/w.webp")).header("Content-Type"), "image/jpeg", "WebP source → JPEG")
        XCTAssertEqual(try server.get(path("/j.jpg")).header("Content-Type"), "image/jpeg")
        let webp = try serve(["--preferred-formats", "webp,png"])
        XCTAssertEqual(try webp.get(path("/j.jpg")).header("Content-Type"), "image/webp", "JPEG source → WebP")
        let text = try ProcessRun.run(ServeProcess.binary.path, ["serve", "--help"]).output
        XCTAssertTrue(text.contains("--preferred-formats"), text)
        XCTAssertEqual(try ServeProcess.exitStatus(refusing: ["--preferred-formats", "jpeg,bogus"]), 2)
    }

    /// `nl:1`, and `--never-larger` for every URL: a small JPEG asked for at q:95 is answered with its own bytes.
    func testNeverLargerAnswersTheSourceOverHTTP() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 64, height: 48)))
        let plain = try serve()
        let small = try plain.get(ProxyPath.plain(origin.url("/p.png"), options: "f:jpg/q:30")).body  // metadata-free
        origin.setRoute("/small.jpg", .ok(small))
        XCTAssertGreaterThan(
            try plain.get(ProxyPath.plain(origin.url("/small.jpg"), options: "q:95")).body.count, small.count)
        XCTAssertEqual(try plain.get(ProxyPath.plain(origin.url("/small.jpg"), options: "q:95/nl:1")).body, small)
        let never = try serve(["--never-larger"])
        XCTAssertEqual(try never.get(ProxyPath.plain(origin.url("/small.jpg"), options: "q:95")).body, small)
    }

    // MARK: - Helpers

    /// `dwfetch --json args`'s one line.
    func dwfetchJSON(_ args: [String]) throws -> [String: Any] {
        let data = try ProcessRun.run(ServeProcess.binary.path, ["--json", "--retries", "0"] + args).stdout
        let first = data.split(separator: UInt8(ascii: "\n")).first ?? Data()
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(first)) as? [String: Any])
    }
}

/// Width, height and format as Pillow reads them.
func pillow(_ data: Data) throws -> (width: Int, height: Int, format: String, frames: Int) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwpil-\(UUID().uuidString)")
    try data.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let text = try python(
        """
        from PIL import Image
        im = Image.open('\(file.path)'); print(im.width, im.height, im.format, getattr(im, 'n_frames', 1))
        """)
    let parts = text.split(separator: " ")
    guard parts.count == 4 else { XCTFail("Pillow: \(text)"); return (0, 0, "", 0) }
    return (Int(parts[0]) ?? -1, Int(parts[1]) ?? -1, String(parts[2]), Int(parts[3]) ?? -1)
}

/// Runs a python3 script (``Python/system``); its stdout, trimmed. A missing module fails the test (scripts/setup.sh
/// installs Pillow and imgproxy's helpers).
func python(_ script: String) throws -> String {
    try Python.system.script(script)
}

extension String {
    /// Hex digits to bytes.
    fileprivate var hexBytes: Data {
        var data = Data()
        var index = startIndex
        while let next = self.index(index, offsetBy: 2, limitedBy: endIndex), index < endIndex {
            data.append(UInt8(self[index..<next], radix: 16) ?? 0)
            index = next
        }
        return data
    }
}
