// `lp:N` through the built `dwfetch serve`: the loop count of an animated result overridden, read back with Pillow.
import DWTestServer
import Foundation
import XCTest

final class AnimationLoopTests: ServeTestCase {
    /// `lp:N` sets how many times the result plays (0 = forever): WebP's ANIM loop count N, GIF's NETSCAPE2.0 N − 1
    /// (no block for one play); every frame is kept; a bad count is a 400; without it the source's count stays.
    func testLoopOptionOverridesTheLoopCount() throws {
        origin.setRoute("/l.gif", .ok(SampleImages.gif(width: 8, height: 8, frames: 2, loopCount: 3)))
        let server = try serve(["--max-animation-frames", "100"])
        func loop(_ options: String) throws -> String {
            let answer = try server.get(ProxyPath.plain(origin.url("/l.gif"), options: options))
            XCTAssertEqual(answer.status, 200, answer.text)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwlp-\(UUID().uuidString)")
            try answer.body.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            return try python(
                "from PIL import Image; im = Image.open('\(file.path)'); "
                    + "print(im.info.get('loop'), getattr(im, 'n_frames', 1))")
        }
        XCTAssertEqual(try loop("w:4"), "3 2", "the source's NETSCAPE2.0 3 without lp")
        XCTAssertEqual(try loop("w:4/lp:0"), "0 2", "forever")
        XCTAssertEqual(try loop("w:4/lp:2"), "1 2", "two plays: NETSCAPE2.0 1")
        XCTAssertEqual(try loop("w:4/lp:1"), "None 2", "one play: no NETSCAPE2.0 block")
        XCTAssertEqual(try loop("w:4/lp:5/f:webp"), "5 2", "WebP: ANIM loop count 5")
        XCTAssertEqual(try loop("loop:0"), "0 2", "the long name, alone")
        for bad in ["lp:-1", "lp:x", "lp:1:2"] {
            XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/l.gif"), options: bad)).status, 400, bad)
        }
    }
}
