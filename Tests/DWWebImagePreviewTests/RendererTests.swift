// DWTerminalRenderer against real libchafa: cells' colours read back from the output, sixels decoded by
// libsixel's sixel2png, kitty and iTerm2 sequences taken apart.
import DWTestServer
import DWTestSupport
import DWWebImage
@testable import DWWebImagePreview
import DWWebImageProcessing
import Foundation
import XCTest

final class RendererTests: XCTestCase {
    static func bitmap(_ width: Int, _ height: Int, _ color: (Int, Int) -> (UInt8, UInt8, UInt8)) -> DWBitmap {
        var pixels = Data(count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = color(x, y), i = (y * width + x) * 4
                pixels[i] = r; pixels[i + 1] = g; pixels[i + 2] = b; pixels[i + 3] = 255
            }
        }
        return DWBitmap(width: width, height: height, pixels: pixels)!
    }

    static func solid(_ width: Int, _ height: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> DWBitmap {
        bitmap(width, height) { _, _ in (r, g, b) }
    }

    private let trueColor = DWTerminalRenderer(format: DWTerminalFormat(graphics: .symbols, colors: .trueColor))

    // MARK: - Symbols

    func testSolidColoursFillEveryCellWithThatColour() {
        for (r, g, b) in [(255, 0, 0), (0, 255, 0), (0, 0, 255), (12, 200, 99), (255, 255, 255)]
            as [(UInt8, UInt8, UInt8)]
        {
            let picture = trueColor.render(Self.solid(24, 12, r, g, b), columns: 6, rows: 3)
            XCTAssertEqual(picture.columns, 6)
            XCTAssertEqual(picture.rows, 3)
            let screen = TerminalScreen(picture.text)
            XCTAssertEqual(screen.rows.count, 3, picture.text.debugDescription)
            let expected = RGBColor(r: Int(r), g: Int(g), b: Int(b))
            for (y, row) in screen.rows.enumerated() {
                XCTAssertEqual(row.count, 6, "row \(y)")
                for (x, cell) in row.enumerated() {
                    XCTAssertTrue(
                        cell.solidColor.map { $0.isClose(to: expected) } ?? false,
                        "cell (\(x), \(y)) shows \(String(describing: cell.solidColor)), expected \(expected)")
                }
            }
            XCTAssertTrue(picture.text.hasSuffix("\u{1B}[0m"), "attributes reset at the end")
            XCTAssertFalse(picture.text.hasSuffix("\n"))
        }
    }

    func testLeftAndRightHalvesKeepTheirColours() throws {
        let split = Self.bitmap(32, 16) { x, _ in x < 16 ? (255, 0, 0) : (0, 0, 255) }
        let screen = TerminalScreen(trueColor.render(split, columns: 8, rows: 4).text)
        XCTAssertEqual(screen.rows.count, 4)
        for row in screen.rows {
            XCTAssertEqual(row.count, 8)
            for (x, cell) in row.enumerated() {
                let expected = x < 4 ? RGBColor(r: 255, g: 0, b: 0) : RGBColor(r: 0, g: 0, b: 255)
                if x == 3 || x == 4 {
                    // libchafa's scaler is smooth: the cells at the edge may mix both colours, but lean to their side.
                    let mean = try XCTUnwrap(cell.meanColor)
                    XCTAssertTrue(x == 3 ? mean.r > mean.b : mean.b > mean.r, "column \(x): \(mean)")
                } else {
                    XCTAssertTrue(
                        cell.solidColor?.isClose(to: expected) ?? false,
                        "column \(x): \(String(describing: cell.solidColor))")
                }
            }
        }
    }

    func testAHorizontalGradientRisesAcrossTheCells() {
        // 64 px from black to white: column c of 16 covers values around (4c + 1.5) × 255 / 63.
        let gradient = Self.bitmap(64, 8) { x, _ in
            let v = UInt8(x * 255 / 63)
            return (v, v, v)
        }
        let screen = TerminalScreen(trueColor.render(gradient, columns: 16, rows: 2).text)
        XCTAssertEqual(screen.rows.count, 2)
        for row in screen.rows {
            let values = row.compactMap { $0.meanColor?.r }
            XCTAssertEqual(values.count, 16)
            for (c, value) in values.enumerated() {
                let expected = Int((Double(c * 4) + 1.5) * 255 / 63)
                XCTAssertLessThanOrEqual(abs(value - expected), 24, "column \(c): \(value), expected about \(expected)")
            }
            XCTAssertEqual(values, values.sorted(), "left to right never gets darker: \(values)")
            XCTAssertLessThan(values[0], 24)
            XCTAssertGreaterThan(values[15], 231)
        }
    }

    func testTheFramesOfATwoFrameGIF() throws {
        let red: UInt8 = 0, blue: UInt8 = 1
        let data = SampleImages.gif(
            width: 16, height: 8, palette: [(255, 0, 0), (0, 0, 255)],
            frames: [[UInt8](repeating: red, count: 128), [UInt8](repeating: blue, count: 128)],
            delayCentiseconds: 10, loopCount: 0)
        let image = try DWImage(data: data)
        let animation = try XCTUnwrap(image.animatedImage())
        XCTAssertEqual(animation.frameCount, 2)
        let expected = [RGBColor(r: 255, g: 0, b: 0), RGBColor(r: 0, g: 0, b: 255)]
        for index in 0..<2 {
            let picture = trueColor.render(animation.frame(at: index).bitmap, maxColumns: 8, maxRows: 8)
            XCTAssertEqual(picture.columns, 8)
            XCTAssertEqual(picture.rows, 2, "16 × 8 px on 1:2 cells, 8 columns wide → 2 rows")
            let cells = TerminalScreen(picture.text).rows.flatMap { $0 }
            XCTAssertEqual(cells.count, 16)
            XCTAssertTrue(cells.allSatisfy { $0.solidColor?.isClose(to: expected[index]) ?? false }, "frame \(index)")
        }
        // A DWImage renders its first frame.
        let first = try trueColor.render(image, maxColumns: 8, maxRows: 8)
        XCTAssertTrue(
            TerminalScreen(first.text).rows.flatMap { $0 }.allSatisfy {
                $0.solidColor?.isClose(to: expected[0]) ?? false
            })
    }

    func testPaletteAndNoColourModes() {
        let red = Self.solid(8, 8, 255, 0, 0)
        let p256 = DWTerminalRenderer(format: DWTerminalFormat(graphics: .symbols, colors: .palette256)).render(
            red, columns: 4, rows: 2)
        XCTAssertTrue(p256.text.contains("5;196m"), "xterm colour 196 is pure red: \(p256.text.debugDescription)")
        XCTAssertFalse(p256.text.contains("38;2;") || p256.text.contains("48;2;"))

        let p16 = TerminalScreen(
            DWTerminalRenderer(format: DWTerminalFormat(graphics: .symbols, colors: .palette16))
                .render(red, columns: 4, rows: 2).text)
        let codes = Set(p16.sgrs.flatMap { $0 })
        XCTAssertFalse(codes.contains(38) || codes.contains(48), "no extended colours: \(p16.sgrs)")
        XCTAssertFalse(codes.isDisjoint(with: [31, 41, 91, 101]), "a red from the 16: \(p16.sgrs)")

        let none = DWTerminalRenderer(format: DWTerminalFormat(graphics: .symbols, colors: .none)).render(
            red, columns: 4, rows: 2)
        let noneCodes = Set(TerminalScreen(none.text).sgrs.flatMap { $0 })
        XCTAssertTrue(noneCodes.isSubset(of: [0, 7, 27]), "no colour at all: \(none.text.debugDescription)")
        XCTAssertEqual(TerminalScreen(none.text).rows.map(\.count), [4, 4])
    }

    func testALargeImageIsShrunkWhileItLoadsAndKeepsItsColoursAndShape() throws {
        // 1200 × 800: top half green, bottom half magenta, as a JPEG (libvips).
        let indices = (0..<800).flatMap { y in [UInt8](repeating: y < 400 ? 0 : 1, count: 1200) }
        let gif = SampleImages.gif(width: 1200, height: 800, palette: [(0, 255, 0), (255, 0, 255)], frames: [indices])
        let jpeg = try DWConvert(format: .jpeg, quality: 95).process(DWImage(data: gif))
        XCTAssertEqual(jpeg.format, .jpeg)
        // 20 × 5 cells of symbols sample at most 160 px: the decoded bitmap is a thumbnail, not 1200 × 800.
        let bitmap = try trueColor.previewBitmap(jpeg, maxColumns: 20, maxRows: 5)
        XCTAssertLessThanOrEqual(max(bitmap.width, bitmap.height), 160)
        XCTAssertEqual(Double(bitmap.width) / Double(bitmap.height), 1.5, accuracy: 0.02)
        let picture = try trueColor.render(jpeg, maxColumns: 20, maxRows: 5)
        XCTAssertEqual(picture.columns, 15, "height-limited: 5 rows × 2 × 1.5")
        XCTAssertEqual(picture.rows, 5)
        let rows = TerminalScreen(picture.text).rows
        XCTAssertEqual(rows.count, 5)
        let green = RGBColor(r: 0, g: 255, b: 0), magenta = RGBColor(r: 255, g: 0, b: 255)
        for cell in rows[0] + rows[1] {
            XCTAssertTrue(cell.solidColor?.isClose(to: green, tolerance: 24) ?? false, "\(cell)")
        }
        for cell in rows[3] + rows[4] {
            XCTAssertTrue(cell.solidColor?.isClose(to: magenta, tolerance: 24) ?? false, "\(cell)")
        }
        // Small images are decoded as they are.
        let small = try trueColor.previewBitmap(jpeg, maxColumns: 200, maxRows: 100)
        XCTAssertEqual(small.width, 1200)
    }

    // MARK: - Pixel protocols

    func testSixelsDecodeBackToTheCanvasSize() throws {
        let tool = "/usr/bin/sixel2png"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw MissingPrerequisite("sixel2png is missing (Debian libsixel-bin; scripts/setup.sh installs it)")
        }
        // 4 × 2 cells of 10 × 24 px: 40 × 48 px (sixel bands are 6 px high, so 48 is exact).
        let renderer = DWTerminalRenderer(format: DWTerminalFormat(graphics: .sixels), cellWidth: 10, cellHeight: 24)
        let split = Self.bitmap(20, 24) { x, _ in x < 10 ? (255, 0, 0) : (0, 0, 255) }
        let picture = renderer.render(split, columns: 4, rows: 2)
        XCTAssertTrue(picture.text.hasPrefix("\u{1B}P"), "a DCS sixel sequence")
        XCTAssertTrue(picture.text.hasSuffix("\u{1B}\\"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sixel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let six = dir.appendingPathComponent("in.six"), png = dir.appendingPathComponent("out.png")
        try Data(picture.text.utf8).write(to: six)
        let sixel2png = try ProcessRun.run(tool, ["-i", six.path, "-o", png.path])
        XCTAssertEqual(sixel2png.status, 0, sixel2png.errors)
        let bytes = [UInt8](try Data(contentsOf: png))
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        XCTAssertEqual(be32(16), 40, "width: 4 cells × 10 px")
        XCTAssertEqual(be32(20), 48, "height: 2 cells × 24 px")
    }

    func testKittyOutputIsChunkedBase64WithTheRightKeys() throws {
        let renderer = DWTerminalRenderer(format: DWTerminalFormat(graphics: .kitty), cellWidth: 10, cellHeight: 20)
        // 10 × 5 cells of 10 × 20 px: 100 × 100 px of RGBA = 40,000 bytes, so several chunks.
        let picture = renderer.render(Self.solid(50, 50, 0, 128, 255), columns: 10, rows: 5)
        let commands = try Self.apcCommands(picture.text)
        XCTAssertGreaterThan(commands.count, 3)
        let first = commands[0]
        let keys = Dictionary(
            uniqueKeysWithValues: first.control.split(separator: ",").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1)
                return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
            })
        XCTAssertEqual(keys["a"], "T", "transmit and display")
        XCTAssertEqual(keys["f"], "32", "RGBA")
        XCTAssertEqual(keys["c"], "10")
        XCTAssertEqual(keys["r"], "5")
        XCTAssertEqual(keys["m"], "1", "more chunks follow")
        let width = try XCTUnwrap(keys["s"].flatMap { Int($0) }), height = try XCTUnwrap(keys["v"].flatMap { Int($0) })
        XCTAssertEqual(width, 100)
        XCTAssertEqual(height, 100)
        var pixels = Data()
        for (i, command) in commands.enumerated().dropFirst() {
            let last = i == commands.count - 1
            XCTAssertEqual(command.control, last ? "m=0" : "m=1", "chunk \(i)")
            XCTAssertLessThanOrEqual(command.payload.utf8.count, 4096, "chunk \(i) is at most 4096 bytes")
            XCTAssertTrue(command.payload.utf8.count % 4 == 0, "each chunk is whole base64 quads")
            // kitty decodes each chunk on its own.
            pixels += try XCTUnwrap(Data(base64Encoded: command.payload), "chunk \(i) is valid base64")
        }
        XCTAssertEqual(pixels.count, width * height * 4)
        XCTAssertEqual(Array(pixels.prefix(4)), [0, 128, 255, 255])
    }

    func testITermOutputIsAnInlineFileOfTheRightCellSize() throws {
        let renderer = DWTerminalRenderer(format: DWTerminalFormat(graphics: .iterm))
        let text = renderer.render(Self.solid(16, 16, 255, 255, 0), columns: 6, rows: 3).text
        XCTAssertTrue(text.hasPrefix("\u{1B}]1337;File=inline=1;"), text.prefix(60).debugDescription)
        XCTAssertTrue(text.contains("width=6;height=3;"))
        XCTAssertTrue(text.hasSuffix("\u{07}"))
        let base64 = try XCTUnwrap(text.split(separator: ":", maxSplits: 1).last).dropLast()
        let file = try XCTUnwrap(Data(base64Encoded: String(base64)))
        XCTAssertEqual(Array(file.prefix(4)), [0x49, 0x49, 0x2A, 0x00], "a little-endian TIFF")
    }

    /// The kitty APC commands (`ESC _G control ; payload ESC \`) in `text`, which must hold nothing else.
    static func apcCommands(_ text: String) throws -> [(control: String, payload: String)] {
        var rest = Substring(text)
        var commands: [(String, String)] = []
        while !rest.isEmpty {
            guard rest.hasPrefix("\u{1B}_G"), let end = rest.range(of: "\u{1B}\\") else {
                XCTFail("not an APC graphics command: \(rest.prefix(40).debugDescription)")
                return commands
            }
            let body = rest[rest.index(rest.startIndex, offsetBy: 3)..<end.lowerBound]
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            commands.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
            rest = rest[end.upperBound...]
        }
        return commands
    }
}
