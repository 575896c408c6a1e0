// PreviewOrderTests: with --preview, a picture that takes long to draw (an animation playing) holds up no other
// URL's result: the runner in-process, a previewer that records what it is asked, real downloads from the loopback
// server. Order is counted, not time.
import ArgumentParser
import DWFetchCLI
import DWTestServer
import DWTestSupport
import DWWebImage
import Foundation
import XCTest

final class PreviewOrderTests: XCTestCase {
    /// A previewer whose picture for `slowURL` "plays" until another URL's image has been handed over (or 10 s).
    private final class SlowPreview: FetchPreview {
        let events = Recorder<String>()
        let slowURL: String
        let slowShowing = TestFlag()
        let otherKept = TestFlag()

        init(slowURL: String) { self.slowURL = slowURL }

        func expect(_ urls: [String]) {}

        func keep(_ image: DWImage, for url: String) {
            events.append("kept \(url)")
            if url != slowURL { otherKept.set() }
        }

        func show(url: String) {
            events.append("show \(url)")
            if url == slowURL {
                slowShowing.set()
                _ = eventually(timeout: 10) { otherKept.isSet }
            }
            events.append("shown \(url)")
        }

        func interrupt() {}
    }

    func testASlowPictureDoesNotHoldUpAnotherURLsResult() throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwpreview-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let (first, second) = (server.url("/first.png"), server.url("/second.png"))
        let preview = SlowPreview(slowURL: first)
        server.setRoute("/first.png", .ok(SampleImages.png(width: 8, height: 8, seed: 1), contentType: "image/png"))
        // The second image is answered only once the first one's picture is playing.
        let secondImage = SampleImages.png(width: 8, height: 8, seed: 2)
        server.setHandler("/second.png") { _ in
            _ = eventually(timeout: 10) { preview.slowShowing.isSet }
            return .ok(secondImage, contentType: "image/png")
        }
        let command = try XCTUnwrap(DWFetch.parseAsRoot(["--preview", "-q", "-j", "2", first, second]) as? DWFetch)
        let manager = DWWebImageManager(cache: DWWebImageCache(rootDirectory: root), removeExpiredAtStart: false)
        defer { manager.invalidate() }
        let runner = FetchRunner(command: command, manager: manager, engines: DWFetchEngines(preview: { _ in preview }))
        let report = runner.run([first, second])

        XCTAssertEqual(report.failed, 0)
        let events = preview.events.values
        let kept = try XCTUnwrap(events.firstIndex(of: "kept \(second)"), "\(events)")
        let shown = try XCTUnwrap(events.firstIndex(of: "shown \(first)"), "\(events)")
        XCTAssertLessThan(kept, shown, "the second result was handled while the first picture played: \(events)")
        // Still in input order on screen: the first line and picture, then the second.
        XCTAssertEqual(events.filter { $0.hasPrefix("show ") }, ["show \(first)", "show \(second)"])
    }
}
