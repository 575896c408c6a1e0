// kitty keeps every image it is sent: an animation drawn with --preview-format kitty deletes each frame's
// predecessor (a=d,d=C at the frame's origin) instead of piling one image per frame into the terminal's memory.
// The raw bytes come through a real pseudo-terminal (util-linux `script`).
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class KittyPreviewTests: XCTestCase {
    func testEachAnimationFrameDeletesTheOneItReplaces() throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwkitty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let plain = { (index: UInt8) in [UInt8](repeating: index, count: 128) }
        // Two frames played twice (NETSCAPE 1 = one repeat): four frames drawn.
        server.setRoute(
            "/blink.gif",
            .ok(
                SampleImages.gif(
                    width: 16, height: 8, palette: [(0, 255, 0), (255, 255, 0)],
                    frames: [plain(0), plain(1)], delayCentiseconds: 5, loopCount: 1),
                contentType: "image/gif"))
        let binary = try BuiltBinary.require("dwfetch")
        let raw = root.appendingPathComponent("typescript")
        let command =
            "stty cols 80 rows 24; exec '\(binary)' --cache-dir '\(root.path)/cache' --retries 0 --preview "
            + "--preview-format kitty '\(server.url("/blink.gif"))'"
        let script = try ProcessRun.run("/usr/bin/script", ["-q", "-e", "-c", command, raw.path])
        XCTAssertEqual(script.status, 0, script.errors)
        let text = String(decoding: try Data(contentsOf: raw), as: UTF8.self)
        let delete = "\u{1B}_Ga=d,d=C\u{1B}\\"
        let deletes = text.components(separatedBy: delete).count - 1
        XCTAssertEqual(deletes, 4, "one delete before each of the four frames")
        let firstGraphics = try XCTUnwrap(text.range(of: "\u{1B}_G"), "kitty graphics were sent")
        XCTAssertEqual(
            text[firstGraphics.lowerBound...].prefix(delete.count), Substring(delete),
            "no frame is sent before the delete of the one it replaces")
    }
}
