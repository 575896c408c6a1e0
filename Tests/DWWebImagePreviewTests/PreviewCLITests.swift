// dwfetch --preview in a real terminal (tmux): the pictures' colours where expected, in input order after their
// lines, animations played, Ctrl-C leaving the terminal clean; and nothing drawn when stdout is not a terminal.
import DWTestServer
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class PreviewCLITests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!
    private let red = RGBColor(r: 255, g: 0, b: 0), blue = RGBColor(r: 0, g: 0, b: 255)
    private let green = RGBColor(r: 0, g: 255, b: 0), yellow = RGBColor(r: 255, g: 255, b: 0)

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwpreview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // 32 × 16: left half red, right half blue → 32 × 8 cells.
        let flag = (0..<16).flatMap { _ in (0..<32).map { x -> UInt8 in x < 16 ? 0 : 1 } }
        let flagGIF = SampleImages.gif(width: 32, height: 16, palette: [(255, 0, 0), (0, 0, 255)], frames: [flag])
        server.setRoute("/flag.gif", .ok(flagGIF, contentType: "image/gif"))
        // The same as a PNG (libvips), drawn through DWWebImageProcessing's decoder.
        let flagPNG = try DWConvert(format: .png).process(DWImage(data: flagGIF))
        XCTAssertEqual(flagPNG.format, .png)
        server.setRoute("/flag.png", .ok(flagPNG.data, contentType: "image/png"))
        // 16 × 8, green then yellow, played twice (NETSCAPE 1 = one repeat) → 16 × 4 cells, yellow at the end.
        let plain = { (index: UInt8) in [UInt8](repeating: index, count: 128) }
        server.setRoute(
            "/blink.gif",
            .ok(
                SampleImages.gif(
                    width: 16, height: 8, palette: [(0, 255, 0), (255, 255, 0)],
                    frames: [plain(0), plain(1)], delayCentiseconds: 20, loopCount: 1),
                contentType: "image/gif"))
        // Loops forever: only Ctrl-C ends it with --preview-loop.
        server.setRoute(
            "/forever.gif",
            .ok(
                SampleImages.gif(
                    width: 16, height: 8, palette: [(0, 255, 0), (255, 255, 0)],
                    frames: [plain(0), plain(1)], delayCentiseconds: 10, loopCount: 0),
                contentType: "image/gif"))
        server.setRoute("/missing.gif", .status(404))
        // The same blink as an animated WebP (libvips keeps GIF frames, delays and loop through a conversion).
        let blink = try DWImage(
            data: SampleImages.gif(
                width: 16, height: 8, palette: [(0, 255, 0), (255, 255, 0)],
                frames: [plain(0), plain(1)], delayCentiseconds: 20, loopCount: 1))
        let blinkWebP = try DWConvert(format: .webp, quality: 100).process(blink)
        XCTAssertEqual(blinkWebP.frameCount, 2)
        server.setRoute("/blink.webp", .ok(blinkWebP.data, contentType: "image/webp"))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    private func command(_ args: [String]) throws -> String {
        let binary = try BuiltBinary.require("dwfetch")
        let quoted = ([binary, "--cache-dir", root.appendingPathComponent("cache").path, "--retries", "0"] + args)
            .map { "'\($0)'" }.joined(separator: " ")
        // A handler (not an ignore) for INT in bash: dwfetch gets the default disposition, bash survives Ctrl-C
        // to print the status. The shell then sleeps so the pane stays alive (a dead pane reports no cursor).
        return "trap : INT\nunset NO_COLOR\nexport COLORTERM=truecolor\n\(quoted)\necho \"exit=$?\"\nexec sleep 600"
    }

    /// Waits until the command has printed its exit status.
    private func waitForExit(_ tmux: Tmux, timeout: TimeInterval = 60) throws -> Bool {
        try tmux.wait(timeout: timeout) { try screen(tmux).text.contains { $0.hasPrefix("exit=") } }
    }

    /// Rows of the screen: cells with colours, and the plain text of each.
    private func screen(_ tmux: Tmux) throws -> (cells: [[TerminalCell]], text: [String]) {
        let screen = TerminalScreen(try tmux.capture())
        return (screen.rows, screen.rows.map { String($0.map(\.character)) })
    }

    func testPicturesFollowTheirLinesInTheirColoursAndTheCursorComesBack() throws {
        let tmux = try Tmux(
            command: try command([
                "--preview", server.url("/flag.gif"), server.url("/missing.gif"),
                server.url("/blink.gif")
            ]))
        XCTAssertTrue(try waitForExit(tmux))
        let (cells, text) = try screen(tmux)
        let dump = text.joined(separator: "\n")
        let flagLine = try XCTUnwrap(text.firstIndex { $0.contains("/flag.gif") }, dump)
        let missingLine = try XCTUnwrap(text.firstIndex { $0.contains("/missing.gif") }, dump)
        let blinkLine = try XCTUnwrap(text.firstIndex { $0.contains("/blink.gif") }, dump)
        XCTAssertEqual(missingLine, flagLine + 9, "the flag's 8 rows come right after its line:\n\(dump)")
        XCTAssertEqual(blinkLine, missingLine + 1, "a failure draws nothing")
        guard missingLine == flagLine + 9, cells.count > blinkLine + 4 else { return }
        for row in cells[(flagLine + 1)...(flagLine + 8)] {
            guard row.count >= 32 else { return XCTFail("a short row:\n\(dump)") }
            for x in 0..<32 where x != 15 && x != 16 {
                let expected = x < 16 ? red : blue
                XCTAssertTrue(
                    row[x].solidColor?.isClose(to: expected) ?? false,
                    "flag column \(x): \(String(describing: row[x].solidColor))\n\(dump)")
            }
        }
        for row in cells[(blinkLine + 1)...(blinkLine + 4)] {
            guard row.count >= 16 else { return XCTFail("a short row:\n\(dump)") }
            for x in 0..<16 {
                XCTAssertTrue(
                    row[x].solidColor?.isClose(to: yellow) ?? false,
                    "the animation ended on its last frame: \(String(describing: row[x].solidColor))")
            }
        }
        XCTAssertTrue(text[blinkLine + 5].contains("2 fetched, 1 failed"), "the summary comes below the last picture")
        let exitLine = try XCTUnwrap(text.firstIndex { $0.hasPrefix("exit=") }, dump)
        XCTAssertEqual(
            text[exitLine].trimmingCharacters(in: .whitespaces), "exit=1", "one URL failed: 1, as without --preview")
        XCTAssertTrue(cells[exitLine].allSatisfy { $0.foreground == nil && $0.background == nil }, "attributes reset")
        XCTAssertEqual(try tmux.display("#{cursor_flag}"), "1", "the cursor is shown")
    }

    /// The picture below `line` (`rows` × `columns` cells), or a failure with the screen.
    private func picture(below needle: String, rows: Int, columns: Int, in tmux: Tmux) throws -> [[TerminalCell]] {
        let (cells, text) = try screen(tmux)
        let dump = text.joined(separator: "\n")
        let line = try XCTUnwrap(text.firstIndex { $0.contains(needle) }, dump)
        guard cells.count > line + rows, cells[(line + 1)...(line + rows)].allSatisfy({ $0.count >= columns }) else {
            XCTFail("no \(columns) × \(rows) picture below \(needle):\n\(dump)")
            return []
        }
        return cells[(line + 1)...(line + rows)].map { Array($0.prefix(columns)) }
    }

    func testPNGsAndProcessedImagesAreDrawnToo() throws {
        let png = try Tmux(command: try command(["--preview", server.url("/flag.png")]))
        XCTAssertTrue(try waitForExit(png))
        for row in try picture(below: "/flag.png", rows: 8, columns: 32, in: png) {
            for x in [0, 7, 14, 17, 24, 31] {
                XCTAssertTrue(
                    row[x].solidColor?.isClose(to: x < 16 ? red : blue) ?? false,
                    "PNG column \(x): \(String(describing: row[x].solidColor))")
            }
        }
        // --grayscale: the processed image is the one drawn — grey, red's side lighter than blue's.
        let grey = try Tmux(command: try command(["--preview", "--grayscale", server.url("/flag.gif")]))
        XCTAssertTrue(try waitForExit(grey))
        for row in try picture(below: "/flag.gif", rows: 8, columns: 32, in: grey) {
            let left = try XCTUnwrap(row[4].solidColor), right = try XCTUnwrap(row[27].solidColor)
            for c in [left, right] { XCTAssertTrue(abs(c.r - c.g) <= 2 && abs(c.g - c.b) <= 2, "grey: \(c)") }
            XCTAssertGreaterThan(left.r, right.r + 20, "red is lighter than blue in grey: \(left) \(right)")
        }
    }

    /// An animated WebP plays like a GIF: it ends on its last frame (yellow); drawn as a still it would be green.
    func testAnimatedWebPPlaysInPlace() throws {
        let tmux = try Tmux(command: try command(["--preview", server.url("/blink.webp")]))
        XCTAssertTrue(try waitForExit(tmux))
        for row in try picture(below: "/blink.webp", rows: 4, columns: 16, in: tmux) {
            for x in [0, 5, 10, 15] {
                XCTAssertTrue(
                    row[x].solidColor?.isClose(to: yellow) ?? false,
                    "the animation ended on its last frame: \(String(describing: row[x].solidColor))")
            }
        }
    }

    func testWithoutPreviewLoopAForeverLoopingGIFEndsByItself() throws {
        let tmux = try Tmux(command: try command(["--preview", server.url("/forever.gif"), server.url("/flag.gif")]))
        XCTAssertTrue(try waitForExit(tmux), "the loop-forever GIF stopped after its few seconds")
        let (_, text) = try screen(tmux)
        XCTAssertTrue(text.contains { $0.hasPrefix("exit=0") }, text.joined(separator: "\n"))
        let forever = try XCTUnwrap(text.firstIndex { $0.contains("/forever.gif") })
        XCTAssertEqual(
            text.firstIndex { $0.contains("/flag.gif") }, forever + 5, "the next line comes below the 4 rows")
        XCTAssertEqual(try tmux.display("#{cursor_flag}"), "1")
    }

    func testCtrlCStopsALoopingAnimationAndLeavesTheTerminalClean() throws {
        let tmux = try Tmux(command: try command(["--preview-loop", server.url("/forever.gif")]))
        // Playing: the line is there and the picture below it shows one of the two frames.
        let playing = try tmux.wait(timeout: 30) {
            let (cells, text) = try screen(tmux)
            guard let line = text.firstIndex(where: { $0.contains("/forever.gif") }), cells.count > line + 1,
                let color = cells[line + 1].first?.solidColor
            else { return false }
            return color.isClose(to: green) || color.isClose(to: yellow)
        }
        XCTAssertTrue(playing, (try? tmux.capture()) ?? "")
        XCTAssertEqual(try tmux.display("#{cursor_flag}"), "0", "the cursor is hidden while it plays")
        try tmux.run(["send-keys", "-t", "0", "C-c"])
        XCTAssertTrue(try waitForExit(tmux, timeout: 20), "Ctrl-C ended the run")
        let (cells, text) = try screen(tmux)
        let exitLine = try XCTUnwrap(text.firstIndex { $0.hasPrefix("exit=") }, text.joined(separator: "\n"))
        XCTAssertEqual(
            text[exitLine].trimmingCharacters(in: .whitespaces), "exit=130", "interrupted, as without --preview")
        XCTAssertTrue(cells[exitLine].allSatisfy { $0.foreground == nil && $0.background == nil }, "attributes reset")
        let line = try XCTUnwrap(text.firstIndex { $0.contains("/forever.gif") })
        XCTAssertEqual(exitLine, line + 6, "below the 4 rows of the picture and the summary, not inside it")
        if exitLine == line + 6 { XCTAssertTrue(text[line + 5].contains("1 fetched, 0 failed"), text[line + 5]) }
        XCTAssertEqual(try tmux.display("#{cursor_flag}"), "1", "the cursor is shown again")
    }

    func testHelpListsThePreviewFlagsAndABadFormatIsAUsageError() throws {
        let binary = try BuiltBinary.require("dwfetch")
        func run(_ args: [String]) throws -> (status: Int32, output: String) {
            let run = try ProcessRun.run(binary, args)
            return (run.status, run.output + run.errors)
        }
        let help = try run(["--help"])
        XCTAssertEqual(help.status, 0)
        for flag in ["--preview ", "--preview-loop", "--preview-format"] {
            XCTAssertTrue(help.output.contains(flag), flag)
        }
        let bad = try run(["--preview-format", "ascii-art", server.url("/flag.gif")])
        XCTAssertEqual(bad.status, 2, bad.output)
        XCTAssertTrue(bad.output.contains("symbols"), "the error names the formats: \(bad.output)")
    }

    func testNothingIsDrawnWhenStdoutIsNotATerminal() throws {
        let binary = try BuiltBinary.require("dwfetch")
        func run(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let run = try ProcessRun.run(
                binary, ["--cache-dir", root.appendingPathComponent("cache").path, "--retries", "0"] + args)
            return (run.status, run.output, run.errors)
        }
        let urls = [server.url("/flag.gif"), server.url("/blink.gif")]
        let plain = try run(["--json"] + urls)
        let previewed = try run(["--json", "--preview"] + urls)
        XCTAssertEqual(previewed.status, 0)
        XCTAssertFalse(previewed.stdout.contains("\u{1B}"), "no escape sequence on a file")
        XCTAssertEqual(previewed.stdout.split(separator: "\n").count, 2)
        for line in previewed.stdout.split(separator: "\n") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), "still JSON lines")
        }
        XCTAssertEqual(plain.stdout.split(separator: "\n").count, 2)
        XCTAssertEqual(
            previewed.stderr.components(separatedBy: "stdout is not a terminal").count - 1, 1,
            "one note says why: \(previewed.stderr)")
        XCTAssertFalse(plain.stderr.contains("not a terminal"))

        let failing = try run(["--preview-loop", server.url("/forever.gif"), server.url("/missing.gif")])
        XCTAssertEqual(failing.status, 1, "exit status as without --preview (and a looping GIF does not hold the run)")
        XCTAssertFalse(failing.stdout.contains("\u{1B}"))
    }
}
