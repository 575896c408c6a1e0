// dwfetch --preview killed with SIGTERM (or SIGHUP) in a real terminal (tmux) while an animation plays: the screen is
// left as Ctrl-C leaves it — cursor shown, attributes reset, the run's summary printed — and it exits 143 (129).
// 20 times in a row for SIGTERM: a race that shows once in twenty is a failure.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class PreviewSignalTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwpreview-sig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let plain = { (index: UInt8) in [UInt8](repeating: index, count: 128) }
        server.setRoute(
            "/forever.gif",
            .ok(
                SampleImages.gif(
                    width: 16, height: 8, palette: [(0, 255, 0), (255, 255, 0)],
                    frames: [plain(0), plain(1)], delayCentiseconds: 10, loopCount: 0),
                contentType: "image/gif"))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    /// Runs `--preview-loop forever.gif` in a fresh tmux pane, signals dwfetch once the animation plays (cursor
    /// hidden), and checks the screen it leaves.
    private func killWhilePlaying(_ sig: Int32, exits status: Int32, run n: Int) throws {
        let binary = try BuiltBinary.require("dwfetch")
        let pidFile = root.appendingPathComponent("pid-\(n)")
        let args = [
            binary, "--cache-dir", root.appendingPathComponent("cache").path, "--retries", "0", "--preview-loop",
            server.url("/forever.gif")
        ].map { "'\($0)'" }.joined(separator: " ")
        // In the background so the test knows its pid; the shell waits and prints the status (then keeps the pane).
        let tmux = try Tmux(
            command: "unset NO_COLOR\nexport COLORTERM=truecolor\n\(args) &\necho $! > '\(pidFile.path)'\n"
                + "wait $!\necho \"exit=$?\"\nexec sleep 600", rows: 20)
        let playing = try tmux.wait(timeout: 30) {
            guard FileManager.default.fileExists(atPath: pidFile.path) else { return false }
            let hidden = try tmux.display("#{cursor_flag}") == "0"
            return try hidden && tmux.capture().contains("/forever.gif")
        }
        XCTAssertTrue(playing, "run \(n): the animation plays, cursor hidden: \((try? tmux.capture()) ?? "")")
        let pidText = try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try XCTUnwrap(pid_t(pidText))
        kill(pid, sig)
        let screen = { TerminalScreen(try tmux.capture()).rows }
        let exited = try tmux.wait(timeout: 20) {
            try screen().contains { String($0.map(\.character)).hasPrefix("exit=") }
        }
        XCTAssertTrue(exited, "run \(n): the signal ended the run")
        let cells = try screen()
        let text = cells.map { String($0.map(\.character)) }
        let exitLine = try XCTUnwrap(text.firstIndex { $0.hasPrefix("exit=") }, text.joined(separator: "\n"))
        XCTAssertEqual(text[exitLine].trimmingCharacters(in: .whitespaces), "exit=\(status)", "run \(n)")
        XCTAssertTrue(text.contains { $0.contains("1 fetched, 0 failed") }, "run \(n): stopped as Ctrl-C stops it")
        XCTAssertTrue(
            cells[exitLine].allSatisfy { $0.foreground == nil && $0.background == nil }, "run \(n): attributes reset")
        XCTAssertEqual(try tmux.display("#{cursor_flag}"), "1", "run \(n): the cursor is shown again")
    }

    func testSIGTERMDuringAnAnimationRestoresTheTerminal20TimesInARow() throws {
        for n in 1...20 {
            try killWhilePlaying(SIGTERM, exits: 143, run: n)
        }
    }

    func testSIGHUPDuringAnAnimationRestoresTheTerminal() throws {
        try killWhilePlaying(SIGHUP, exits: 129, run: 0)
    }
}
