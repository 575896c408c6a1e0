// DWImage(contentsOfFile:): a mapped file validates and decodes exactly as the same bytes in memory, while the GIF
// scanner and decoder release what they have read.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class MappedImageTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("dwmapped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// A GIF of several MiB (noise frames), so the decoder crosses many release steps.
    private func bigGIF() -> Data {
        var g = GIFBuilder(width: 320, height: 240, globalPalette: GIFFixtures.palette8, loop: 3)
        for i in 0..<24 {
            g.frames.append(
                .init(
                    width: 320, height: 240, pixels: GIFFixtures.pattern(320, 240, colors: 8, seed: 100 + i),
                    interlaced: i % 3 == 0, disposal: i % 4 == 0 ? 2 : 1))
        }
        return g.encode()
    }

    private func frameHashes(_ image: DWImage) throws -> [Int] {
        var hashes: [Int] = []
        try XCTUnwrap(image.animatedImage()).forEachFrame { frame in
            hashes.append(frame.pixels.hashValue)
            return true
        }
        return hashes
    }

    func testAMappedGIFDecodesExactlyAsTheBytesInMemory() throws {
        let bytes = bigGIF()
        XCTAssertGreaterThan(bytes.count, 4 * GIFSession.dropStep, "crosses several release steps")
        let path = dir.appendingPathComponent("big.gif").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: bytes))
        let mapped = try DWImage(contentsOfFile: path)
        let inMemory = try DWImage(data: bytes)
        XCTAssertEqual(mapped, inMemory)
        XCTAssertEqual(mapped.frameCount, 24)
        XCTAssertEqual(mapped.loopCount, 3)
        XCTAssertEqual(try frameHashes(mapped), try frameHashes(inMemory))
        XCTAssertEqual(try frameHashes(mapped), try frameHashes(mapped), "and again, after its pages were released")
        let random = try XCTUnwrap(mapped.animatedImage(bufferCount: 2))
        XCTAssertEqual(random.frame(at: 17).pixels, try XCTUnwrap(inMemory.animatedImage()).frame(at: 17).pixels)
    }

    func testOpeningAMappedGIFNeverHoldsTheWholeFile() throws {
        // 24 MiB of image data in 255-byte sub-blocks (DWImage only walks them; it decodes nothing until asked).
        var gif = Data("GIF89a".utf8) + Data([0x10, 0, 0x10, 0, 0x80, 0, 0]) + Data(count: 6)  // 16×16, 2 colours
        gif += Data([0x2C, 0, 0, 0, 0, 0x10, 0, 0x10, 0, 0, 8])  // image descriptor, LZW code size 8
        var rng = SplitMix(seed: 11)
        let block = Data([255]) + Data((0..<255).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        for _ in 0..<(24 << 20) / 256 { gif += block }
        gif += Data([0, 0x3B])
        let path = dir.appendingPathComponent("long.gif").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: gif))
        gif = Data()
        guard let resetPeak = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else {
            throw MissingPrerequisite("cannot reset the peak RSS here (/proc/self/clear_refs)")
        }
        resetPeak.write(Data("5".utf8))  // VmHWM := current RSS
        try resetPeak.close()
        let before = peakResidentBytes()
        let image = try DWImage(contentsOfFile: path)
        XCTAssertEqual(image.frameCount, 1)
        let grew = peakResidentBytes() - before
        XCTAssertLessThan(grew, 8 << 20, "opening a 24 MiB GIF peaked \(grew >> 20) MiB above where it started")
    }

    private func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else {
            return 0
        }
        return kib * 1024
    }

    func testOtherFormatsAndErrors() throws {
        let png = SampleImages.png(width: 7, height: 5)
        let path = dir.appendingPathComponent("a.png").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: png))
        let image = try DWImage(contentsOfFile: path)
        XCTAssertEqual(image.data, png)
        XCTAssertEqual(image.pixelWidth, 7)
        // A user's own file that cannot be read is 10003 with the path, as a file:// URL's; 10008 is the cache's.
        let missing = dir.appendingPathComponent("missing.png").path
        XCTAssertThrowsError(try DWImage(contentsOfFile: missing)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .transport)
            XCTAssertEqual(($0 as? DWWebImageError)?.message, "cannot open \(missing): No such file or directory")
        }
        XCTAssertThrowsError(try DWImage(contentsOfFile: dir.path)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .transport)
            XCTAssertEqual(($0 as? DWWebImageError)?.message, "cannot read \(dir.path): not a regular file")
        }
        let empty = dir.appendingPathComponent("empty").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        XCTAssertThrowsError(try DWImage(contentsOfFile: empty)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)
        }
    }
}
