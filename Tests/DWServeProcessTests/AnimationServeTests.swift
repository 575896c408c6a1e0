// Animated GIF and WebP through serve: every frame resized, delays and loop count kept; the first frame when the
// output cannot animate. Read back with Pillow.
import DWTestServer
import Foundation
import XCTest

final class AnimationServeTests: ServeTestCase {
    func testGIFAndWebPKeepFramesDelaysAndLoop() throws {
        origin.setRoute("/a.gif", .ok(SampleImages.gif(width: 40, height: 20, frames: 3, delayCentiseconds: 20)))
        let server = try serve(["--max-animation-frames", "100"])
        let gif = try server.get(ProxyPath.plain(origin.url("/a.gif"), options: "w:20"))
        XCTAssertEqual(gif.status, 200, gif.text)
        XCTAssertEqual(try animation(gif.body), "GIF 20x10 3 200,200,200", "GIF in, GIF out, every frame resized")
        let webp = try server.get(ProxyPath.plain(origin.url("/a.gif"), options: "w:20/f:webp"))
        XCTAssertEqual(webp.status, 200, webp.text)
        XCTAssertEqual(try animation(webp.body), "WEBP 20x10 3 200,200,200", "GIF in, animated WebP out")

        origin.setRoute("/a.webp", .ok(webp.body))
        let back = try server.get(ProxyPath.plain(origin.url("/a.webp"), options: "rs:fill:10:10/f:gif"))
        XCTAssertEqual(back.status, 200, back.text)
        XCTAssertEqual(try animation(back.body), "GIF 10x10 3 200,200,200", "animated WebP in: every frame")
        let same = try server.get(ProxyPath.plain(origin.url("/a.webp"), options: "w:10/f:webp"))
        XCTAssertEqual(try animation(same.body), "WEBP 10x5 3 200,200,200", "WebP in, WebP out through a plain resize")
        let preferred = try server.get(ProxyPath.plain(origin.url("/a.webp"), options: "w:10"))
        XCTAssertEqual(try animation(preferred.body), "GIF 10x5 3 200,200,200", "no format: imgproxy's preferred GIF")
        let still = try server.get(ProxyPath.plain(origin.url("/a.webp"), options: "w:10/f:png"))
        XCTAssertEqual(try animation(still.body), "PNG 10x5 1 0", "PNG cannot animate: the first frame")
    }

    /// NETSCAPE2.0 loop 3 (four plays) survives GIF → GIF, GIF → WebP (ANIM loop 4) and WebP → GIF.
    func testLoopCountIsKept() throws {
        origin.setRoute("/l.gif", .ok(SampleImages.gif(width: 8, height: 8, frames: 2, loopCount: 3)))
        let server = try serve(["--max-animation-frames", "100"])
        let gif = try server.get(ProxyPath.plain(origin.url("/l.gif"), options: "w:4"))
        let webp = try server.get(ProxyPath.plain(origin.url("/l.gif"), options: "w:4/f:webp"))
        XCTAssertEqual(try loop(gif.body), "3")
        XCTAssertEqual(try loop(webp.body), "4")
        origin.setRoute("/l.webp", .ok(webp.body))
        XCTAssertEqual(try loop(server.get(ProxyPath.plain(origin.url("/l.webp"), options: "w:2/f:gif")).body), "3")
    }

    private func loop(_ data: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwloop-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try python("from PIL import Image; im = Image.open('\(file.path)'); print(im.info.get('loop'))")
    }

    /// "FORMAT WxH frames delays(ms, comma-separated)" as Pillow reads an animation.
    private func animation(_ data: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwanim-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try python(
            """
            from PIL import Image
            im = Image.open('\(file.path)'); n = getattr(im, 'n_frames', 1); d = []
            for i in range(n):
                im.seek(i); im.load(); d.append(str(im.info.get('duration', 0)))
            print(im.format, '%dx%d' % im.size, n, ','.join(d))
            """)
    }
}
