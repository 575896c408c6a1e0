// Terminal detection from environments, cell shapes and fitting.
import DWWebImagePreview
import XCTest

final class DetectionTests: XCTestCase {
    private func detect(_ env: [String: String]) -> DWTerminalFormat { DWTerminalFormat.detect(environment: env) }

    func testPixelProtocolsFromTheTerminalsOwnVariables() {
        XCTAssertEqual(detect(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"]).graphics, .kitty)
        XCTAssertEqual(detect(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"]).graphics, .kitty)
        XCTAssertEqual(detect(["TERM": "xterm-ghostty", "TERM_PROGRAM": "ghostty"]).graphics, .kitty)
        XCTAssertEqual(detect(["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"]).graphics, .iterm)
        XCTAssertEqual(detect(["TERM": "xterm-256color", "ITERM_SESSION_ID": "w0t0p0:1"]).graphics, .iterm)
        XCTAssertEqual(detect(["TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"]).graphics, .iterm, "iTerm2 over SSH")
        XCTAssertEqual(detect(["TERM": "xterm-256color", "WEZTERM_EXECUTABLE": "/usr/bin/wezterm"]).graphics, .iterm)
        XCTAssertEqual(detect(["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"]).graphics, .iterm)
        XCTAssertEqual(detect(["TERM": "foot"]).graphics, .sixels)
        XCTAssertEqual(detect(["TERM": "mlterm"]).graphics, .sixels)
        XCTAssertEqual(detect(["TERM": "xterm-256color"]).graphics, .symbols)
        XCTAssertEqual(detect([:]).graphics, .symbols)
    }

    func testMultiplexersAndNoColorFallBackToSymbols() {
        XCTAssertEqual(
            detect(["TERM": "tmux-256color", "KITTY_WINDOW_ID": "1", "TMUX": "/tmp/tmux-0/default,1,0"]).graphics,
            .symbols)
        XCTAssertEqual(detect(["TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"]).graphics, .symbols)
        XCTAssertEqual(detect(["TERM": "foot", "STY": "1.pts-0.host"]).graphics, .symbols)
        XCTAssertEqual(
            detect(["TERM": "xterm-kitty", "NO_COLOR": "1"]), DWTerminalFormat(graphics: .symbols, colors: .none))
        XCTAssertEqual(detect(["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"]).colors, .none)
        XCTAssertEqual(
            detect(["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": ""]).colors, .trueColor,
            "an empty NO_COLOR does not count (no-color.org)")
    }

    func testColourDepth() {
        XCTAssertEqual(detect(["TERM": "xterm-256color", "COLORTERM": "truecolor"]).colors, .trueColor)
        XCTAssertEqual(detect(["TERM": "xterm", "COLORTERM": "24bit"]).colors, .trueColor)
        XCTAssertEqual(detect(["TERM": "xterm-direct"]).colors, .trueColor)
        XCTAssertEqual(detect(["TERM": "xterm-kitty"]).colors, .trueColor)
        XCTAssertEqual(detect(["TERM": "tmux-256color", "TMUX": "x"]).colors, .palette256)
        XCTAssertEqual(detect(["TERM": "xterm-256color"]).colors, .palette256)
        XCTAssertEqual(detect(["TERM": "xterm"]).colors, .palette16)
        XCTAssertEqual(detect(["TERM": "linux"]).colors, .palette16)
        XCTAssertEqual(detect(["TERM": "dumb"]).colors, .none)
    }

    func testCellSizeFromThePixelSizeElseOneToTwo() {
        XCTAssertTrue(DWTerminalSize(columns: 80, rows: 24).cellSize == (10, 20))
        XCTAssertTrue(DWTerminalSize(columns: 100, rows: 50, pixelWidth: 900, pixelHeight: 850).cellSize == (9, 17))
        XCTAssertTrue(DWTerminalSize(columns: 100, rows: 50, pixelWidth: 0, pixelHeight: 850).cellSize == (10, 20))
    }

    func testFittingKeepsTheAspectRatioOnTheCellShape() {
        // Symbols: a square image on 1:2 cells is twice as many columns as rows.
        XCTAssertEqual(
            DWTerminalFit.fitting(width: 400, height: 400, maxColumns: 80, maxRows: 100),
            DWTerminalFit(columns: 80, rows: 40))
        // Height-limited: rows first, columns follow.
        XCTAssertEqual(
            DWTerminalFit.fitting(width: 400, height: 400, maxColumns: 80, maxRows: 20),
            DWTerminalFit(columns: 40, rows: 20))
        // Square cells (from ws_xpixel/ws_ypixel): a square image is square in cells.
        XCTAssertEqual(
            DWTerminalFit.fitting(width: 400, height: 400, maxColumns: 80, maxRows: 30, cellWidth: 12, cellHeight: 12),
            DWTerminalFit(columns: 30, rows: 30))
        // Small images are not blown up: symbols show one pixel per half cell, pixel protocols one pixel per pixel.
        XCTAssertEqual(
            DWTerminalFit.fitting(width: 16, height: 16, maxColumns: 80, maxRows: 40),
            DWTerminalFit(columns: 16, rows: 8))
        XCTAssertEqual(
            DWTerminalFit.fitting(width: 40, height: 40, maxColumns: 80, maxRows: 40, graphics: .kitty),
            DWTerminalFit(columns: 4, rows: 2))
        // Never zero.
        XCTAssertEqual(
            DWTerminalFit.fitting(width: 10_000, height: 1, maxColumns: 80, maxRows: 40),
            DWTerminalFit(columns: 80, rows: 1))
        XCTAssertEqual(
            DWTerminalFit.fitting(width: 1, height: 10_000, maxColumns: 80, maxRows: 40),
            DWTerminalFit(columns: 1, rows: 40))
    }
}
