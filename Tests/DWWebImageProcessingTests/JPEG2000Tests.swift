// JPEG 2000 (a JP2 box file and a bare codestream, made by Pillow's OpenJPEG writer) read by libvips' jp2kload: sniffed
// by the size its header declares, decoded, resized, verified; and the attacks: a subsampled codestream libvips reads
// out of bounds, a header claiming 60000×60000, a tile grid past the standard's 65535 tiles, a header box that
// contradicts the codestream, a codestream cut short. Each a 10000 or 10005, and the next decode fine.
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class JPEG2000Tests: XCTestCase {
    /// An 8×6 RGB image, red on the left half and blue on the right, as a JP2 file, a bare codestream, and a grey
    /// codestream (Pillow's default: lossless).
    static let files: (jp2: Data, j2k: Data, grey: Data) = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jpeg2000-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try! Python.system.script(
            """
            import sys
            from PIL import Image
            im = Image.new("RGB", (8, 6), (255, 0, 0))
            im.paste((0, 0, 255), (4, 0, 8, 6))
            im.save(sys.argv[1] + "/a.jp2")
            im.save(sys.argv[1] + "/a.j2k")
            Image.new("L", (8, 6), 200).save(sys.argv[1] + "/g.j2k")
            """, arguments: [folder.path])
        let read = { (name: String) in try! Data(contentsOf: folder.appendingPathComponent(name)) }
        return (read("a.jp2"), read("a.j2k"), read("g.j2k"))
    }()

    func testJP2FileAndCodestreamAreReadDecodedAndResized() throws {
        for data in [Self.files.jp2, Self.files.j2k] {
            let image = try DWImage(data: data)
            XCTAssertEqual(image.format, .jp2)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight, image.frameCount], [8, 6, 1])
            XCTAssertNoThrow(try image.verifyDecodes())
            let bitmap = try image.bitmap()
            XCTAssertEqual([bitmap.width, bitmap.height], [8, 6])
            XCTAssertTrue(bitmap.rgba(x: 0, y: 0) == (255, 0, 0, 255))
            XCTAssertTrue(bitmap.rgba(x: 7, y: 5) == (0, 0, 255, 255))
            let small = try DWResize(width: 4, height: 4).process(image)
            XCTAssertEqual(small.format, .png, "JPEG 2000 is not written: PNG")
            XCTAssertEqual([small.pixelWidth, small.pixelHeight], [4, 3])
        }
        XCTAssertEqual(DWImageFormat(name: "J2K"), .jp2)
        XCTAssertEqual(DWImageFormat.jp2.mimeType, "image/jp2")
        XCTAssertFalse(DWImageFormat.jp2.isWritable)
        XCTAssertNil(DWImageFormat(conversionTargetNamed: "jp2"))
    }

    /// Pillow's 00r0_gray_l.jp2 and crash-d2c93….j2k subsample their only component (XRsiz 13, YRsiz 65): libvips 8.14
    /// opens them at the component's size and its decode reads past OpenJPEG's buffer (valgrind), a different result
    /// from run to run. The same codestream made here: the size is the image's, and every decode the same refusal.
    func testASubsampledCodestreamIsRefusedTheSameEveryTime() throws {
        var bytes = [UInt8](Self.files.grey)
        XCTAssertEqual(Array(bytes[40...44]), [0, 1, 7, 1, 1], "SIZ: one 8-bit component, not subsampled")
        bytes[43] = 3  // XRsiz: the component is 3 columns wide
        let image = try DWImage(data: Data(bytes))
        XCTAssertEqual([image.pixelWidth, image.pixelHeight], [8, 6], "the image's size, as Pillow reads it")
        for _ in 0..<5 {
            XCTAssertThrowsError(try image.verifyDecodes()) { Self.assertCode($0, .notAnImage, "subsampl") }
            XCTAssertThrowsError(try image.bitmap()) { Self.assertCode($0, .notAnImage, "subsampl") }
            XCTAssertThrowsError(try DWResize(width: 4, height: 4).process(image)) { Self.assertCode($0, .notAnImage) }
        }
        XCTAssertNoThrow(try DWImage(data: Self.files.grey).verifyDecodes(), "the next file is fine")
    }

    /// Pillow's own two: without the check, 00r0_gray_l.jp2 gave 7 different bitmaps in 8 decodes in one process.
    func testPillowsSubsampledFilesAreRefusedTheSameEveryTime() throws {
        let (images, _) = try PillowCorpusTests.corpus()
        for (name, size) in [
            ("00r0_gray_l.jp2", [76, 13]), ("crash-d2c93af851d3ab9a19e34503626368b2ecde9c03.j2k", [64, 64])
        ] {
            let image = try DWImage(data: Data(contentsOf: images.appendingPathComponent(name)))
            XCTAssertEqual([image.pixelWidth, image.pixelHeight], size, name)
            var answers: Set<String> = []
            for _ in 0..<8 {
                _ = [UInt8](repeating: .random(in: 0...255), count: .random(in: 1...4096))  // the heap moves
                do {
                    let bitmap = try image.bitmap()
                    answers.insert("\(bitmap.width)×\(bitmap.height) \(bitmap.pixels.hashValue)")
                } catch {
                    answers.insert("\(error)")
                }
            }
            XCTAssertEqual(answers.count, 1, "\(name): \(answers)")
            XCTAssertTrue(answers.first?.hasPrefix("[10000] JPEG 2000 is") == true, "\(name): \(answers)")
        }
    }

    func testAHeaderClaiming60000SquareIsRefusedBeforeAnythingIsAllocated() throws {
        let huge = Self.jp2(ihdr: (60000, 60000), siz: Self.siz(width: 60000, height: 60000, tile: 60000))
        let header = Self.jp2(ihdr: (8, 6), siz: Self.siz(width: 60000, height: 60000, tile: 60000))
        let codestream = Self.siz(width: 60000, height: 60000, tile: 1)
        let before = try Self.resetPeakRSS()
        XCTAssertThrowsError(try DWImage(data: huge)) { Self.assertCode($0, .tooLarge, "60000×60000") }
        // The small ihdr is passed by the limits; the codestream's own SIZ is held to them before OpenJPEG reads it.
        XCTAssertThrowsError(try DWImage(data: header).verifyDecodes()) { Self.assertCode($0, .tooLarge) }
        XCTAssertThrowsError(try DWImage(data: codestream)) { Self.assertCode($0, .tooLarge) }
        let image = try DWImage(data: header)
        XCTAssertThrowsError(try image.bitmap()) { Self.assertCode($0, .tooLarge, "60000×60000") }
        XCTAssertThrowsError(try DWResize(width: 10, height: 10).process(image)) { Self.assertCode($0, .tooLarge) }
        let grown = try Self.peakRSS() - before
        XCTAssertLessThan(grown, 64 << 20, "peak RSS grew by \(grown >> 20) MiB")
        XCTAssertNoThrow(try DWImage(data: Self.files.jp2).verifyDecodes(), "the next file is fine")
    }

    func testMalformedGridsAndCutCodestreamsAreNotAnImage() throws {
        // 1000×1000 one-pixel tiles: a million, past a tile-part index's 65535 (OpenJPEG allocates per tile).
        let tiles = Self.siz(width: 1000, height: 1000, tile: 1)
        XCTAssertThrowsError(try DWImage(data: tiles).verifyDecodes()) { Self.assertCode($0, .notAnImage, "tiles") }
        // A header box that says 8×6 over a 16×16 codestream.
        let lying = Self.jp2(ihdr: (8, 6), siz: Self.siz(width: 16, height: 16, tile: 16))
        XCTAssertThrowsError(try DWImage(data: lying).verifyDecodes()) {
            Self.assertCode($0, .notAnImage, "header box")
        }
        for data in [Self.files.jp2, Self.files.j2k] {
            let cut = try DWImage(data: data.prefix(data.count * 2 / 3))
            XCTAssertThrowsError(try cut.verifyDecodes()) { Self.assertCode($0, .notAnImage) }
            XCTAssertThrowsError(try cut.bitmap()) { Self.assertCode($0, .notAnImage) }
        }
        for bad in [Data([0xFF, 0x4F, 0xFF, 0x51, 0, 0x29]), Self.files.jp2.prefix(40)] {
            XCTAssertThrowsError(try DWImage(data: bad)) { Self.assertCode($0, .notAnImage) }
        }
        XCTAssertNoThrow(try DWImage(data: Self.files.j2k).verifyDecodes(), "the next file is fine")
    }

    /// Every prefix of a JP2 file and of a codestream: refused when read or when verified, never a crash, never
    /// passed as whole.
    func testEveryCutIsRefused() throws {
        for data in [Self.files.jp2, Self.files.j2k] {
            var passed: [Int] = []
            for length in 0..<data.count {
                guard let image = try? DWImage(data: data.prefix(length)) else { continue }
                if (try? image.verifyDecodes()) != nil { passed.append(length) }
                _ = try? image.bitmap()
            }
            XCTAssertEqual(passed, [], "cuts of a \(data.count)-byte file that --verify passes")
        }
        XCTAssertNoThrow(try DWImage(data: Self.files.jp2).verifyDecodes(), "the next file is fine")
    }

    // MARK: Helpers

    static func assertCode(
        _ error: Error, _ code: DWWebImageError.Code, _ words: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let error = error as? DWWebImageError
        XCTAssertEqual(error?.code, code, "\(String(describing: error))", file: file, line: line)
        if !words.isEmpty {
            XCTAssertTrue(
                error?.message.contains(words) == true, "\(String(describing: error))", file: file, line: line)
        }
    }

    /// SOC, a one-component 8-bit SIZ for `width`×`height` in square tiles of `tile`, and nothing after it.
    static func siz(width: UInt32, height: UInt32, tile: UInt32) -> Data {
        var bytes: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51, 0, 41, 0, 0]
        for value in [width, height, 0, 0, tile, tile, 0, 0] {
            bytes += withUnsafeBytes(of: value.bigEndian, Array.init)
        }
        return Data(bytes + [0, 1, 7, 1, 1])
    }

    /// A JP2 file: signature, ftyp, jp2h with an ihdr of `ihdr` (width, height), and `codestream` in a jp2c box.
    static func jp2(ihdr: (UInt32, UInt32), siz codestream: Data) -> Data {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: UInt32(8 + payload.count).bigEndian, Array.init) + Array(type.utf8) + payload
        }
        let size = withUnsafeBytes(of: ihdr.1.bigEndian, Array.init) + withUnsafeBytes(of: ihdr.0.bigEndian, Array.init)
        let header = box("ihdr", size + [0, 1, 7, 7, 0, 0]) + box("colr", [1, 0, 0, 0, 0, 0, 17])
        let signature: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        return Data(
            signature + box("ftyp", Array("jp2 \0\0\0\0jp2 ".utf8)) + box("jp2h", header)
                + box("jp2c", [UInt8](codestream)))
    }

    /// Resets the process's peak resident set (Linux: `5` into clear_refs) and returns the current one, in bytes.
    static func resetPeakRSS() throws -> Int {
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        return try peakRSS()
    }

    /// VmHWM from /proc/self/status, in bytes.
    static func peakRSS() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) << 10
    }
}
